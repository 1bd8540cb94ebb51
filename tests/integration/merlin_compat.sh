#!/usr/bin/env bash
# Merlin habits that must work unchanged (issue #10): a Python step through
# `shell: /usr/bin/env python3`, Maestro's `depends: [name*]` funnel, an undefined $(TOKEN) left
# for the shell, `~` and `$VAR` in OUTPUT_PATH, and step scripts byte-identical to Maestro's.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks

cat >compat.yaml <<'Y'
description:
  name: compat
  description: Merlin's habits
env:
  variables:
    OUTPUT_PATH: $COMPAT_ROOT/studies
global.parameters:
  GREET:
    values: ["hello", "hola"]
    label: GREET.%%
study:
  - name: step_1
    run:
      cmd: |
        echo "$(GREET), world!"
        ITER=7; echo "iter $(ITER)"
  - name: step_2
    run:
      cmd: print("Hurrah, we did it!")
      depends: [step_1*]
      shell: /usr/bin/env python3
Y
export COMPAT_ROOT=$WORK/root
"$MERLIN" validate compat.yaml >v.out 2>v.err
expect_eq "validate: valid, the undefined \$(ITER) only warned" 0 $?
check "validate: the warning names the token's place" grep -q "^compat.yaml:16:28: warning: unknown token '\$(ITER)'" v.err
"$MERLIN" validate --strict compat.yaml >/dev/null 2>&1
expect_eq "validate --strict: the undefined token is an error" 2 $?

"$MERLIN" run --local --no-progress compat.yaml >run.out 2>run.err
expect_eq "run --local exits 0" 0 $?
ws=$(ls -d "$WORK"/root/studies/compat_* 2>/dev/null)
check "\$COMPAT_ROOT in OUTPUT_PATH was expanded" test -d "$ws"
expect_eq "the Python step ran with /usr/bin/env python3" "Hurrah, we did it!" "$(cat "$ws/step_2/step_2.out")"
expect_eq "step_1* is a funnel: step_2 ran once, at the step's top" "MERLIN_FINISHED step_2.err step_2.out step_2.sh" \
  "$(cd "$ws/step_2" && ls | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "the shell saw \$(ITER) as command substitution (ITER: not found, then 'iter ')" "hello, world!
iter " "$(cat "$ws/step_1/GREET.hello/step_1_GREET.hello.out")"
printf '#!/bin/bash\n\necho "hola, world!"\nITER=7; echo "iter $(ITER)"\n\n' >expected.sh
check "the step script is byte-identical to Maestro's (header, blank line, command, newline)" \
  cmp expected.sh "$ws/step_1/GREET.hola/step_1_GREET.hola.sh"

HOME=$WORK/home "$MERLIN" run --local --no-progress compat.yaml --vars 'OUTPUT_PATH=~/tilde' >/dev/null 2>&1
expect_eq "~ in OUTPUT_PATH is \$HOME" 1 "$(ls -d "$WORK"/home/tilde/compat_* 2>/dev/null | wc -l)"

# Parameter values are written as Merlin writes them: PyYAML's YAML 1.1 typing, then Python's
# str(). Compared with PyYAML itself when it is installed.
VALUES='[0.5, .75, 1.10, 1., 1.0e+3, 0.00001, 1.0e+16, 123456789012345678.0, 1_000.5, 1.0e-400,
  .inf, -.inf, .NaN, 42, +7, 010, 0x1F, -0b101, 190:20:30, 1:30.5, 99999999999999999999, yes, Off,
  "0.50", "yes", 1e3, -.5, 08, 2001-12-14, abc]'
cat >values.yaml <<Y
description:
  name: values
  description: parameter values as Merlin writes them
env:
  variables:
    OUTPUT_PATH: $WORK/values
    SCALE: .25
global.parameters:
  X:
    values: $VALUES
    label: X.%%
study:
  - name: show
    run:
      cmd: echo "\$(X) \$(SCALE)"
Y
"$MERLIN" run --local --no-progress values.yaml >values.out 2>values.err
expect_eq "a study over 30 kinds of parameter value runs" 0 $?
ours=$(cat "$WORK"/values/values_*/show/*/show_*.out 2>/dev/null | LC_ALL=C sort)
expect_eq "a few values as Merlin writes them" "0.5 0.75 1.1 1.0 1000.0 8 31 -5 True False 0.50 yes 1e3 -.5 08" \
  "$(for v in 0.5 0.75 1.1 1.0 1000.0 8 31 -5 True False 0.50 yes 1e3 -.5 08; do
       grep -qx -- "$v 0.25" <<<"$ours" && printf '%s ' "$v"; done | sed 's/ $//')"
if python3 -c 'import yaml' 2>/dev/null; then
  theirs=$(python3 -c '
import sys, yaml
for v in yaml.load(sys.argv[1], yaml.FullLoader): print(str(v), str(yaml.load(".25", yaml.FullLoader)))
' "$VALUES" | LC_ALL=C sort)
  expect_eq "every value and the variable print as PyYAML + str() print them" "$theirs" "$ours"
  expect_eq "the label directories follow the same rule" \
    "$(sed 's/ .*//; s/^/X./' <<<"$theirs" | LC_ALL=C sort)" \
    "$(cd "$WORK"/values/values_*/show && ls | LC_ALL=C sort)"
else
  echo "SKIP (PyYAML comparison): python3-yaml is not installed (apt-get install python3-yaml)"
fi

# The command line as Merlin users type it.
"$MERLIN" >bare.out 2>bare.err
expect_eq "bare merlin: exit 1, as Merlin" 1 $?
check "bare merlin: the help on stdout" grep -q "^Subcommands:" bare.out
check "-v names the Merlin release it follows" bash -c "'$MERLIN' -v | grep -q 'LLNL Merlin 1.13'"
"$MERLIN" -lvl DEBUG validate compat.yaml >/dev/null 2>&1
expect_eq "-lvl DEBUG is Merlin's log level flag" 0 $?
"$MERLIN" --level WARNING validate compat.yaml >/dev/null 2>&1
expect_eq "--level WARNING (upper case) works" 0 $?
finish
