#!/usr/bin/env python3
"""Docs that name what the build has (issue #31 §1). Usage: docs_truth.py MERLIN ROOT.

Every command line `merlin CMD [SUB] ARGS` in a code span or fenced block of ROOT/README.md and
ROOT/docs/*.md is checked: CMD answers `--help`, each `-flag`/`--flag` among ARGS is in that
command's (or subcommand's) --help, and `merlin example NAME` names an example of `merlin
example list`. The reverse: every command `merlin --help` lists is in the user guide
(docs/user-guide.md). Prints one line per problem (page:line), then the counts; exit 1 if any.
"""
import glob
import os
import re
import subprocess
import sys

merlin, root = sys.argv[1], sys.argv[2]
helps = {}
def help_of(words):
    key = tuple(words)
    if key not in helps:
        r = subprocess.run([merlin, *words, "--help"], capture_output=True, text=True)
        # An unknown word before --help gets the parent's help: the Usage line tells.
        usage = re.search(r"^Usage: (.*)$", r.stdout, re.M)
        named = usage and (" ".join(["merlin", *words]) + " ") in usage.group(1) + " "
        helps[key] = r.stdout if r.returncode == 0 and named else None
    return helps[key]

top = help_of([])
commands = re.findall(r"^  ([a-z][a-z-]+)\s", top.split("Subcommands:")[1], re.M)
def subcommands(cmd):
    h = help_of([cmd]) or ""
    return re.findall(r"^  ([a-z][a-z-]+)\s", h.split("Subcommands:")[1], re.M) if "Subcommands:" in h else []
subs = {c: subcommands(c) for c in commands}
examples = set(re.findall(r"^\s*([A-Za-z0-9_.-]+)", subprocess.run([merlin, "example", "list"], capture_output=True, text=True).stdout, re.M))

problems = []
checked = 0
pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
for page in pages:
    text = open(page).read()
    rel = os.path.relpath(page, root)
    # spans: inline code and lines of fenced blocks
    spans = []
    in_block = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            spans.append((n, line))
        else:
            spans += [(n, s) for s in re.findall(r"`([^`]+)`", line)]
    lines = text.split("\n")
    for n, s in spans:
        if "\u2192" in lines[n - 1]:  # a completion shown as `merlin ru` -> `run run-workers`
            continue
        # A command line: `merlin` first in the span or after `$ `, `;`, `&&`, `|`, `(` or
        # VAR=value assignments; not the word in prose such as "a merlin workspace".
        for m in re.finditer(r"(?:^|[;&|(]\s*|\$ )(?:[A-Z_][A-Z0-9_]*=\S* )*merlin ([a-z][a-z-]*)((?: [^;&|)#]*)?)", s.strip()):
            checked += 1
            cmd, rest = m.group(1), m.group(2).split()
            if help_of([cmd]) is None:
                problems.append(f"{rel}:{n}: `merlin {cmd}`: no such command ({s.strip()[:80]})")
                continue
            words = [cmd]
            if subs.get(cmd) and rest and rest[0] in subs[cmd]:
                words.append(rest.pop(0))
            h = help_of(words) or ""
            for tok in rest:
                f = re.match(r"^(--?[A-Za-z][A-Za-z0-9-]*)", tok)
                if f and not re.search(r"(^|[\s,(])" + re.escape(f.group(1)) + r"([\s,=)]|$)", h, re.M):
                    problems.append(f"{rel}:{n}: `merlin {' '.join(words)} {f.group(1)}`: not in its --help")
            if words == ["example"] and rest and not rest[0].startswith("-") and rest[0] not in ("list",) and re.match(r"^[a-z0-9_]+$", rest[0]) and rest[0] not in examples:
                problems.append(f"{rel}:{n}: `merlin example {rest[0]}`: no such example")
guide = open(os.path.join(root, "docs", "user-guide.md")).read()
for c in commands:
    if not re.search(r"`merlin " + re.escape(c) + r"[ `]", guide):
        problems.append(f"docs/user-guide.md: `merlin {c}` (in `merlin --help`) is not in the guide")
for p in problems:
    print(p)
print(f"{checked} command lines on {len(pages)} pages checked against {len(helps)} --help texts; "
      f"{len(problems)} problems")
sys.exit(1 if problems else 0)
