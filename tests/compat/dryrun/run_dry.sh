#!/usr/bin/env bash
# Dry-runs every Merlin 1.13 example spec of tests/compat/merlin-1.13/workflows with one
# `merlin` and writes each spec's scripts, normalised, to OUT/<spec>.json.
#
# usage: run_dry.sh OUT MERLIN_COMMAND...
#   MERLIN_COMMAND is ours (path/to/merlin) or real Merlin's (/usr/bin/python3 -m merlin.main).
# Both sides see the same stand-ins (stubs/): PyPI's `names` and `Faker`, spellbook's
# make-samples and `flux version` are not in Debian, and numpy is seeded at start-up, so the
# spec's `generate` commands draw the same samples for both.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(realpath -m "$1"); shift
mkdir -p "$OUT"
# The four specs Merlin's own `merlin example` fills in (their variables are empty on purpose).
SKIP=" my_hello openfoam_wf openfoam_wf_no_docker openfoam_wf_singularity "
export PATH="$HERE/stubs/bin:/usr/bin:/bin" PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$HERE/stubs/py"
for spec in "$HERE"/../merlin-1.13/workflows/*/*.yaml; do
  name=$(basename "$spec" .yaml)
  case "$SKIP" in *" $name "*) continue ;; esac
  work=$(mktemp -d)
  cp -r "$(dirname "$spec")"/. "$work"/
  vars=()
  # hpc_demo and iterative_demo ask for a virtualenv's python in PYTHON.
  grep -q '^ *PYTHON:' "$spec" && vars=(--vars PYTHON=python3)
  (cd "$work" && HOME="$work/.home" timeout 300 "$@" run --local --dry "$name.yaml" "${vars[@]}" \
    >"$work/.log" 2>&1)
  rc=$?
  info=$(find "$work" -maxdepth 6 -type d -name merlin_info | head -1)
  if [ "$rc" != 0 ] || [ -z "$info" ]; then
    echo "$name: the dry run failed (exit $rc):"; tail -5 "$work/.log" | sed 's/^/    /'
  else
    /usr/bin/python3 "$HERE/dryrun_scripts.py" collect "$(dirname "$info")" "$work" "$OUT/$name.json"
  fi
  rm -rf "$work"
done
