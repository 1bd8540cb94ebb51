#!/usr/bin/env python3
"""Gathers every sample's summary.json into one table (the container_cavity example).

usage: combine_outputs.py OUT.csv SUMMARY.json...
Writes one row per run: lid_speed, nu, reynolds, kinetic_energy, enstrophy. Exit 1 naming the
file when one is missing or malformed, so that a run that did not finish is not averaged away.
"""
import json
import sys

COLUMNS = ["lid_speed", "nu", "reynolds", "kinetic_energy", "enstrophy"]


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: combine_outputs.py OUT.csv SUMMARY.json...")
    rows = []
    for path in argv[2:]:
        try:
            with open(path) as f:
                s = json.load(f)
            rows.append([float(s[c]) for c in COLUMNS])
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"combine_outputs: {path}: {e}")
    with open(argv[1], "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for r in rows:
            f.write(",".join(f"{x:.9g}" for x in r) + "\n")
    print(f"combine_outputs: {len(rows)} runs -> {argv[1]}")


if __name__ == "__main__":
    main(sys.argv)
