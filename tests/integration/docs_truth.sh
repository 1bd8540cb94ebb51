#!/usr/bin/env bash
# The docs name what the build has (issue #31 §1): docs_truth.py finds no `merlin CMD --flag`,
# command or example on README.md and docs/*.md that this build lacks, and the user guide lists
# every command of `merlin --help`. Then, on a copy of the docs with planted mistakes, it names
# each one by page and line and exits 1: the checker can fail.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
CHECK="$SRC/tests/integration/docs_truth.py"

python3 "$CHECK" "$MERLIN" "$SRC" >real.out 2>real.err
expect_eq "the real docs: exit 0" 0 $?
check "the real docs: no problem" grep -q "; 0 problems$" real.out
check "the real docs: more than 200 command lines were checked" \
  awk '/command lines on/ { exit !($1 > 200) }' real.out
cat real.out real.err | head -20

mkdir -p planted/docs
cp "$SRC/README.md" planted/
cp "$SRC"/docs/*.md planted/docs/
cat >>planted/docs/cli.md <<'MD'

Planted: `merlin rnu spec.yaml`, then

```
merlin run --lcoal spec.yaml
merlin example no_such_example
$ merlin server config --no-such-flag 1
```
MD
grep -v '`merlin verify WORKSPACE`' "$SRC/docs/user-guide.md" >planted/docs/user-guide.md
lines=$(wc -l <planted/docs/cli.md)
python3 "$CHECK" "$MERLIN" planted >planted.out 2>planted.err
expect_eq "planted mistakes: exit 1" 1 $?
check "an unknown command, with its page and line" \
  grep -q "^docs/cli.md:$((lines - 6)): \`merlin rnu\`: no such command" planted.out
check "an unknown flag" grep -q "^docs/cli.md:$((lines - 3)): \`merlin run --lcoal\`: not in its --help" planted.out
check "an unknown example" grep -q "^docs/cli.md:$((lines - 2)): \`merlin example no_such_example\`: no such example" planted.out
check "a subcommand's unknown flag" \
  grep -q "\`merlin server config --no-such-flag\`: not in its --help" planted.out
check "a command missing from the user guide" \
  grep -q "^docs/user-guide.md: \`merlin verify\` (in \`merlin --help\`) is not in the guide" planted.out
expect_eq "nothing else is reported" 5 "$(grep -c '^docs/' planted.out)"
cat planted.out
finish
