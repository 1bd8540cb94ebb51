#!/usr/bin/env bash
# Bad input through the real binary: a clear message, exit code 2, no crash, no hang, and no
# workspace left behind.
source "$(dirname "$0")/lib.sh"

# expect_refused "description" "message fragment" merlin-args...
expect_refused() {
  local d=$1 frag=$2; shift 2
  set +e
  timeout 20 "$MERLIN" "$@" >out.txt 2>err.txt
  local rc=$?
  set -e
  if [ $rc = 2 ] && grep -qF -- "$frag" err.txt; then pass "$d"; else
    fail "$d (rc=$rc)"; head -5 err.txt; fi
}
no_workspace() { check "no workspace left: $1" test -z "$(find . -maxdepth 3 -type d -name "$1_*")"; }

cat >ok.yaml <<'Y'
description: {name: ok, description: d}
env:
  variables:
    N: 1
study:
  - name: s
    run:
      cmd: echo $(V)
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [V]
Y
echo 1 >samples.csv
sed 's/column_labels: \[V\]/&\n    allow_shell_metacharacters: true/' ok.yaml >optin_plain.yaml

expect_refused "no spec at all" "spec file is required" run --local
mkdir varsfirst && (cd varsfirst && "$MERLIN" run --local --no-progress --vars N=2 ../ok.yaml >/dev/null 2>&1)
check "--vars KEY=VALUE before the spec leaves the spec alone" test $? = 0
rm -rf varsfirst
expect_refused "missing spec file" "nope.yaml" run --local nope.yaml
expect_refused "unknown option" "--bogus" run --local --bogus ok.yaml
expect_refused "--vars without =" "KEY=VALUE" run --local --vars N ok.yaml
expect_refused "--vars unknown key" "NOT_A_VAR" run --local --vars NOT_A_VAR=1 ok.yaml
no_workspace ok

printf 'description: {name: x, description: d}\nstudy:\n  - name: s\n    run: {cmd: "echo\n' >broken.yaml
expect_refused "broken YAML gives file:line" "broken.yaml:" validate broken.yaml

printf '\x00\x01\x02garbage\xff' >binary.yaml
expect_refused "binary garbage" "binary.yaml" validate binary.yaml

{ echo 'a: &a ["x","x","x","x","x","x","x","x","x","x"]'
  for i in b c d e f g h i j k; do echo "$i: &$i [*a$( [ $i = b ] || true ),*a,*a,*a,*a,*a,*a,*a,*a,*a]" | sed "s/\*a/*$(echo $i | tr 'b-k' 'a-j')/g"; done
  echo 'description: {name: bomb, description: d}'
  echo 'study: [{name: s, run: {cmd: echo}}]'; } >bomb.yaml
expect_refused "YAML bomb refused" "bomb.yaml" validate bomb.yaml

head -c 20000000 /dev/zero | tr '\0' '#' >huge.yaml
expect_refused "gigantic spec refused" "huge.yaml" validate huge.yaml

sed 's/name: ok/name: ..\/escape/' ok.yaml >escape.yaml
expect_refused "study name leaving OUTPUT_PATH" "escape" run --local escape.yaml
check "nothing written outside" test ! -e ../escape_*

echo 'x; rm -rf ~' >unsafe.csv
expect_refused "shell metacharacters in a sample refused" "shell metacharacters" run --local --samplesfile unsafe.csv ok.yaml
no_workspace ok

printf '1,2\n' >wide.csv
expect_refused "more columns than labels" "columns" run --local --samplesfile wide.csv ok.yaml
no_workspace ok

printf '1\n2,3\n' >ragged.csv
expect_refused "ragged csv names the line" "ragged.csv:2" run --local --samplesfile ragged.csv ok.yaml
no_workspace ok

expect_refused "missing samples file" "missing.csv" run --local --samplesfile missing.csv ok.yaml
# Issue #25: a spec without generate.cmd whose samples file is missing was told "generate.cmd
# ran, exit code 0, but did not create it".
sed 's/samples.csv/absent.csv/' ok.yaml >absent.yaml
expect_refused "missing merlin.samples.file without generate: says the spec cannot make it" \
  "samples file not found: $WORK/absent.csv (the spec has no merlin.samples.generate.cmd to make it: create the file, or give one with --samplesfile)" \
  run --local --no-progress absent.yaml
check "missing merlin.samples.file without generate: no word of a command that ran" \
  bash -c "! grep -q 'generate.cmd ran' err.txt"
no_workspace absent
mkdir notws
expect_refused "status of a directory that is no workspace" "not a merlin workspace" status notws
expect_refused "restart of a directory that is no workspace" "not a merlin workspace" restart notws
expect_refused "bad status format" "--format" status notws --format xml

# Column labels that would set PATH or BASH_ENV in the step's environment are refused before
# anything runs, with or without the metacharacter opt-in: the planted `cat` and the BASH_ENV
# script must never run (issue #9, item 3).
mkdir planted
printf '#!/bin/sh\n: >"%s/ran_cat"\n' "$WORK" >planted/cat
printf ': >"%s/ran_bash_env"\n' "$WORK" >planted/env.sh
chmod +x planted/cat
cat >envlabels.yaml <<'Y'
description: {name: envlabels, description: d}
study:
  - name: s
    run:
      cmd: cat /dev/null; echo $(V)
merlin:
  samples:
    file: $(SPECROOT)/envlabels.csv
    column_labels: [V, PATH, BASH_ENV]
Y
echo "1,$WORK/planted,$WORK/planted/env.sh" >envlabels.csv
expect_refused "column label PATH refused" \
  "envlabels.yaml:9:24: column label 'PATH' (column 2) would set the step's environment variable PATH" \
  run --local --no-progress envlabels.yaml
expect_refused "column label BASH_ENV refused by validate" \
  "envlabels.yaml:9:30: column label 'BASH_ENV' (column 3)" validate envlabels.yaml
sed 's/column_labels: \[V, PATH, BASH_ENV\]/&\n    allow_shell_metacharacters: true/' envlabels.yaml >envlabels_optin.yaml
expect_refused "column label PATH refused with the opt-in too" "column label 'PATH'" \
  run --local --no-progress envlabels_optin.yaml
check "the planted cat never ran" test ! -e ran_cat
check "the BASH_ENV script never ran" test ! -e ran_bash_env
no_workspace envlabels

# Slot counts: refused outside 1..4096 before anything is made (issue #9, item 6: -j 100000
# aborted with std::system_error and left status.live behind).
expect_refused "-j 100000 refused" "-j/--jobs must be between 1 and 4096" run --local -j 100000 ok.yaml
expect_refused "-j 0 refused" "got 0" run --local -j 0 ok.yaml
expect_refused "-j -3 refused" "got -3" run --local --jobs=-3 ok.yaml
expect_refused "--dry -j 100000 refused" "between 1 and 4096" run --dry -j 100000 ok.yaml
no_workspace ok
expect_refused "run-workers --concurrency 100000 refused" "--concurrency must be between 1 and 4096" \
  run-workers --concurrency 100000 ok.yaml
expect_refused "--worker-args --concurrency 100000 refused" "from 1 to 4096, got '100000'" \
  run-workers --worker-args "--concurrency 100000" ok.yaml
mkdir rs && (cd rs && "$MERLIN" run --local --no-progress ../ok.yaml >/dev/null 2>&1)
expect_refused "restart -j 100000 refused" "between 1 and 4096" restart rs/ok_* -j 100000
rm -rf rs
# When the system refuses threads below the limit (here: too little address space for 4000
# thread stacks), the run ends with a message and exit 1, not an abort, and status.live goes.
if [[ -n ${MERLIN_SANITIZED:-} ]]; then
  # ASan and TSan reserve terabytes of address space at start: under ulimit -v they abort
  # before main (tests/sanitize/run.sh sets MERLIN_SANITIZED; docs/sanitizers.md).
  echo "skip thread refusal under ulimit -v: not with the $MERLIN_SANITIZED runtime"
else
set +e
(ulimit -v 800000 && exec timeout 60 "$MERLIN" run --local --no-progress -j 4000 ok.yaml) >out.txt 2>err.txt
rc=$?
set -e
expect_eq "thread refusal exits 1" 1 "$rc"
check "thread refusal says so" grep -q "cannot start 4000 task slots: the system refused a thread" err.txt
check "thread refusal leaves no status.live" test -z "$(find . -name status.live)"
check "thread refusal ran no task" test -z "$(find . -path '*ok_*/s/*' -name '*.out')"
fi
rm -rf ok_*

# A FIFO instead of a file: refused at once, never waited on (issue #9, item 8a: the samples
# FIFO hung forever and left an empty workspace).
mkfifo fifo.csv fifo.yaml
expect_refused "--samplesfile FIFO refused" "fifo.csv' is a FIFO, expected a regular file" \
  run --local --no-progress --samplesfile fifo.csv ok.yaml
no_workspace ok
sed 's/samples.csv/fifo.csv/' ok.yaml >fifo_samples.yaml
expect_refused "merlin.samples.file FIFO refused" "is a FIFO" run --local --no-progress fifo_samples.yaml
no_workspace ok
expect_refused "spec FIFO refused" "fifo.yaml: cannot read the spec: not a regular file" validate fifo.yaml
expect_refused "spec FIFO refused by run" "not a regular file" run --local fifo.yaml

# A value longer than one environment string may be (Linux's MAX_ARG_STRLEN, 131072 bytes with
# "V=" and the NUL): refused before anything runs; before, every task failed with "Argument
# list too long" (issue #9, item 8b). 131069 bytes is the longest V that still runs.
head -c 131070 /dev/zero | tr '\0' a >long.csv; echo >>long.csv
expect_refused "a 131070-byte value of V refused" \
  "column 'V', holds 131070 bytes, more than the 131069 a step can be given" \
  run --local --no-progress --samplesfile long.csv ok.yaml
expect_refused "too long with the metacharacter opt-in too" "(MAX_ARG_STRLEN)" \
  run --local --no-progress --samplesfile long.csv optin_plain.yaml
no_workspace ok
head -c 131069 /dev/zero | tr '\0' a >longest.csv; echo >>longest.csv
mkdir longest
rc=0
(cd longest && "$MERLIN" run --local --no-progress --samplesfile ../longest.csv ../ok.yaml >/dev/null 2>&1) || rc=$?
check "a 131069-byte value of V runs" test $rc = 0
rm -rf longest

# A NUL byte in a sample: refused in full view, even with the opt-in (issue #9, item 8e: the
# message stopped at the NUL). A leading UTF-8 BOM is skipped (item 8f).
printf '1\n2\0003\n' >nul.csv
expect_refused "NUL in a sample shown as \\x00" "column 'V', holds a NUL byte: '2\x003'; no argument" \
  run --local --no-progress --samplesfile nul.csv ok.yaml
expect_refused "NUL in a sample refused with the opt-in" "holds a NUL byte" \
  run --local --no-progress --samplesfile nul.csv optin_plain.yaml
no_workspace ok
printf '\xef\xbb\xbf7\n' >bom.csv
mkdir bom
(cd bom && "$MERLIN" run --local --no-progress --samplesfile ../bom.csv ../ok.yaml >/dev/null 2>&1) || true
check "a leading BOM is not part of the first value" test "$(cat bom/ok_*/s/*.out 2>/dev/null)" = 7
rm -rf bom
printf 'description: {name: "a\\0b", description: d}\nstudy: [{name: s, run: {cmd: echo}}]\n' >nulname.yaml
expect_refused "a NUL in a spec scalar is shown" "study name 'a\x00b'" validate nulname.yaml

# Study names: a 300-byte name failed at mkdir with exit 1 ("File name too long"), and a name
# (or a --vars override of it) could hold $(...), spaces and tabs, which reach shell text
# through $(MERLIN_WORKSPACE) (issue #9, item 9).
long_name=$(printf 'n%.0s' $(seq 300))
sed "s/name: ok/name: $long_name/" ok.yaml >longname.yaml
expect_refused "300-byte study name refused" "it is 300 bytes long, more than 239" run --local --no-progress longname.yaml
cat >varname.yaml <<'Y'
description: {name: $(STUDY), description: d}
env:
  variables:
    STUDY: fine
study:
  - name: s
    run:
      cmd: echo $(MERLIN_WORKSPACE) > ws.txt
Y
expect_refused "--vars study name with \$(...) refused" \
  "study name '\$(STUDY)' expands to 'x\$(touch pwned)', which cannot be a directory name: it contains '\$'" \
  run --local --no-progress --vars 'STUDY=x$(touch pwned)' varname.yaml
expect_refused "--vars study name with a tab refused" "it contains '\\t'" \
  run --local --no-progress --vars "STUDY=a$(printf '\t')b" varname.yaml
check "the name's command never ran" test ! -e pwned -a -z "$(find . -name pwned)"
check "no workspace of a refused name" test -z "$(find . -maxdepth 1 -type d -name 'x*' -o -maxdepth 1 -type d -name 'a*b_*')"

# Sample values with metacharacters run when the spec opts in, and reach the step as env too.
cat >optin.yaml <<'Y'
description: {name: ok, description: d}
study:
  - name: s
    run:
      cmd: |
        echo "$V" > v.txt
        test "$(V)" = "$V"
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [V]
    allow_shell_metacharacters: true
Y
echo 'a;b' >semi.csv
"$MERLIN" run --local --no-progress --samplesfile semi.csv optin.yaml >/dev/null 2>&1
check "opt-in runs with metacharacters" test $? = 0
expect_eq "value exported as \$V" "a;b" "$(cat ok_*/s/v.txt 2>/dev/null)"
# Two parameter values that print the same (01 is 1, as Merlin writes it) would share a directory.
cat >samedir.yaml <<'Y'
description: {name: samedir, description: d}
global.parameters:
  X: {values: [1, 01, "2"], label: X.%%}
study:
  - name: s
    run: {cmd: echo $(X)}
Y
expect_refused "parameter values that print the same are refused" \
  "samedir.yaml:3:3: parameter combinations 1 and 2 give step 's' the same directory 's/X.1'" run --local samedir.yaml
no_workspace samedir

# A failed generate.cmd: its workspace is removed, so the message carries the end of its stderr.
cat >genfail.yaml <<'Y'
description: {name: genfail, description: d}
study:
  - name: s
    run: {cmd: echo $(A)}
merlin:
  samples:
    generate:
      cmd: for i in $(seq 15); do echo "problem $i" >&2; done; exit 3
    file: $(MERLIN_INFO)/samples.csv
    column_labels: [A]
Y
expect_refused "a failed generate.cmd names its exit code" "generate.cmd) failed with exit code 3" run --local genfail.yaml
check "... and shows the last lines of its stderr" grep -qx "  | problem 15" err.txt
check "... ten of them" test "$(grep -c '^  | problem' err.txt)" = 10
check "... and names no file in the removed workspace" bash -c "! grep -q cmd.err err.txt"
no_workspace genfail
finish
