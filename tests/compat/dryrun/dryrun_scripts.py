#!/usr/bin/python3
"""The scripts a dry run writes, normalised, and their comparison with real Merlin's.

  dryrun_scripts.py collect WORKSPACE SPEC_DIR OUT.json
      Every *.sh under WORKSPACE (merlin_info/ left out) as {relative path: text}, with the
      workspace path written <ws>, the spec's directory <dir> and the workspace's timestamp
      <timestamp> (they differ from run to run, nothing else may).
  dryrun_scripts.py compare GOLDEN_DIR OURS_DIR [--verbose]
      Per spec (one GOLDEN_DIR/<spec>.json each), whether merlin's scripts are byte for byte
      Merlin's: first as written, then with merlin's rank shim (`.../merlin-rank-env`, which
      `$(LAUNCHER)` ends with: docs/training.md) taken out of the launcher lines, the one
      difference kept on purpose. Prints both counts; exits 1 unless every spec matches once
      the shim is out.
"""
import json
import os
import re
import sys

SHIM = re.compile(r" \S*/merlin-rank-env(?= )")


def collect(ws, spec_dir, out):
    ws, spec_dir = os.path.realpath(ws), os.path.realpath(spec_dir)
    stamp = re.search(r"_(\d{8}-\d{6})$", ws)
    scripts = {}
    for root, dirs, files in os.walk(ws):
        rel_root = os.path.relpath(root, ws)
        if rel_root == "merlin_info" or rel_root.startswith("merlin_info" + os.sep):
            continue
        for f in files:
            if f.endswith(".sh"):
                with open(os.path.join(root, f), errors="surrogateescape") as fh:
                    text = fh.read()
                text = text.replace(ws, "<ws>").replace(spec_dir, "<dir>")
                if stamp:
                    text = text.replace(stamp.group(1), "<timestamp>")
                scripts[os.path.normpath(os.path.join(rel_root, f))] = text
    with open(out, "w") as fh:
        json.dump(scripts, fh, indent=0, sort_keys=True)


def differences(golden, ours, drop_shim):
    if drop_shim:
        ours = {k: SHIM.sub("", v) for k, v in ours.items()}
    missing = sorted(set(golden) - set(ours))
    extra = sorted(set(ours) - set(golden))
    differ = [k for k in sorted(set(golden) & set(ours)) if golden[k] != ours[k]]
    return missing, extra, differ


def compare(golden_dir, ours_dir, verbose):
    specs = sorted(f[:-5] for f in os.listdir(golden_dir) if f.endswith(".json"))
    same_raw = same = 0
    for spec in specs:
        with open(os.path.join(golden_dir, spec + ".json")) as fh:
            golden = json.load(fh)
        path = os.path.join(ours_dir, spec + ".json")
        if not os.path.exists(path):
            print(f"DIFF {spec}: merlin's dry run wrote no workspace")
            continue
        with open(path) as fh:
            ours = json.load(fh)
        raw = differences(golden, ours, False)
        missing, extra, differ = differences(golden, ours, True)
        ok_raw = not any(raw)
        ok = not (missing or extra or differ)
        same_raw += ok_raw
        same += ok
        word = "same" if ok_raw else "same once the rank shim is out," if ok else "DIFF"
        print(f"{word} {spec}: {len(golden)} scripts; only Merlin's {len(missing)}, "
              f"only merlin's {len(extra)}, different {len(differ)}")
        if verbose and not ok:
            for k in missing[:3]:
                print(f"    only Merlin's: {k}")
            for k in extra[:3]:
                print(f"    only merlin's: {k}")
            for k in differ[:2]:
                print(f"    different: {k}\n      Merlin: {golden[k][-240:]!r}\n"
                      f"      merlin: {SHIM.sub('', ours[k])[-240:]!r}")
    print(f"{same_raw} of {len(specs)} specs byte-identical as written; {same} of {len(specs)} "
          f"with the rank shim taken out")
    return 0 if same == len(specs) else 1


def main(argv):
    if len(argv) == 5 and argv[1] == "collect":
        collect(argv[2], argv[3], argv[4])
        return 0
    if len(argv) in (4, 5) and argv[1] == "compare":
        return compare(argv[2], argv[3], argv[4:] == ["--verbose"])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
