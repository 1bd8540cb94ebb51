#!/usr/bin/env python3
"""The dependency rule of docs/architecture.md, checked on the includes.

The table under "## Folders and dependency rule" names each folder (first column, in
backticks) and the folders it may use (backticked paths in the third column). A folder may
include its own files and those of the folders it may use, nothing else of the project. A row
may name files instead of a folder (several, in backticks): those files may use what their
row lists besides what their folder may. Every folder that holds sources must have a row. Prints one line per include that breaks the rule
(`file:line: includes X (folder F may use: ...)`) and nothing when the tree keeps it.
"""
import os
import re
import sys

TOPS = ("merlin", "workers", "adapters")


def rows(doc_path):
    text = open(doc_path, encoding="utf-8").read()
    start = text.index("## Folders and dependency rule")
    table = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        names = [n.rstrip("/") for n in re.findall(r"`([^`]+)`", cells[0])]
        may_use = [p.rstrip("/") for p in re.findall(r"`([^`]+)`", cells[-1])
                   if p.split("/")[0] in TOPS]
        for name in names:
            table[name] = may_use
    return table


def owner(path, folders):
    best = None
    for f in folders:
        if (path == f or path.startswith(f + "/")) and (best is None or len(f) > len(best)):
            best = f
    return best


def main(src, doc_path):
    table = rows(doc_path)
    folders = [f for f in table if not f.endswith((".cc", ".h"))]
    problems = []
    for row in table:
        if owner(row, folders) is None:
            problems.append(f"{doc_path}: the row `{row}` is inside no folder of the table")
    include = re.compile(r'^\s*#\s*include\s+"((?:%s)/[^"]+)"' % "|".join(TOPS))
    for top in TOPS:
        for d, _, files in os.walk(os.path.join(src, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".cc")):
                    continue
                path = os.path.relpath(os.path.join(d, f), src)
                home = owner(path, folders)
                if home is None:
                    problems.append(f"{path}: its folder has no row in {doc_path}'s table")
                    continue
                allowed = set(table[home]) | set(table.get(path, [])) | {home}
                with open(os.path.join(src, path), encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = include.match(line)
                        if not m:
                            continue
                        target = owner(m.group(1), folders)
                        if target is not None and target not in allowed:
                            problems.append(f"{path}:{n}: includes {m.group(1)} "
                                            f"({home} may use: {', '.join(sorted(allowed - {home})) or 'no other folder'})")
    print("\n".join(problems))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
