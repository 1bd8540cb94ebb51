#!/usr/bin/env bash
# Rewrites golden/ from real Merlin 1.13's dry runs of its own example specs.
#
# usage: regenerate.sh MERLIN_SRC MAESTRO_SRC
#   MERLIN_SRC: a checkout of LLNL/merlin at tag 1.13.0; MAESTRO_SRC: LLNL/maestrowf at v1.1.9.
#   Needs Debian's python3-celery python3-tabulate python3-coloredlogs python3-parse
#   python3-dill python3-filelock python3-jsonschema python3-rich python3-redis python3-numpy.
# Merlin's sources go first on PYTHONPATH, so its own `merlin` package is used, not the stand-in.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
MERLIN_SRC=$(realpath "$1")
MAESTRO_SRC=$(realpath "$2")
rm -rf "$HERE/golden"
PYTHONPATH="$MERLIN_SRC:$MAESTRO_SRC" "$HERE/run_dry.sh" "$HERE/golden" \
  /usr/bin/python3 -m merlin.main
ls "$HERE/golden" | wc -l
