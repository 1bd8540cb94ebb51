#!/usr/bin/env bash
# On a terminal the progress line is redrawn in place ("\r"); a log line written meanwhile
# must not land on the end of it: it is cleared first ("\r\033[K"), and the run's last line
# does not leave an empty line behind. Runs under script(1) for a pseudo-terminal.
source "$(dirname "$0")/lib.sh"
ulimit -f 10000
command -v script >/dev/null || { echo "SKIP: script(1) (util-linux) is needed for a terminal"; exit 77; }
cat >p.yaml <<'Y'
description: {name: pl, description: a log line in the middle of a progress line}
global.parameters:
  X: {values: [1, 2, 3, 4, 5, 6, 7, 8], label: X.%%}
study:
  - name: s
    run: {cmd: 'sleep 0.4; [ $(X) != 1 ] || exit 1'}
Y
# -j1 runs the newest first, so X.1 (the failure, a warning) ends the run, after progress lines.
rc=0
timeout 120 script -qec "'$MERLIN' run --local -j1 p.yaml" /dev/null >tty.out 2>&1 || rc=$?
expect_eq "the run ends with its one failure (exit 1)" 1 "$rc"
/usr/bin/python3 - tty.out <<'PY' >verdict.txt
import re, sys
text = open(sys.argv[1], "rb").read().decode(errors="replace")
progress = len(re.findall(r"\r\d+/8 tasks", text))
warn = text.find("warning")
before = text[:warn]
line_start = before.rfind("\n")
# What was written on the terminal's line before the warning's timestamp.
on_line = before[line_start + 1:].split("\r")[-1]
print(f"progress={progress} cleared={on_line.startswith(chr(27) + '[K')} line={on_line[:40]!r}")
PY
cat verdict.txt
check "progress lines were drawn" grep -q "progress=[1-9]" verdict.txt
check "the warning starts on a cleared line, not after the progress text" grep -q "cleared=True" verdict.txt
check "no empty line between the progress and the table" bash -c "! grep -q \$'^\\r\$' tty.out"
finish
