#!/bin/bash
# Writes N rows of "name,number" (no header row: Merlin reads every line as a sample).
set -eu
n=${1:?usage: make_samples.sh N OUT.csv}
out=${2:?usage: make_samples.sh N OUT.csv}
names=(Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy)
: > "$out"
for ((i = 0; i < n; i++)); do
  printf '%s%d,%d\n' "${names[i % 10]}" "$i" "$((i * 7 % 100))" >> "$out"
done
