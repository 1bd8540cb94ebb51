"""A stand-in for PyPI's `names` (not packaged by Debian): deterministic first names, so a
spec's generated samples are the same for real Merlin and for merlin."""
_FIRST = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "John"]
_n = 0


def get_first_name(gender=None):
    global _n
    _n += 1
    return _FIRST[(_n - 1) % len(_FIRST)]


def get_last_name():
    return "Hopper"


def get_full_name(gender=None):
    return get_first_name() + " " + get_last_name()

import os as _os

# make_samples.py in Merlin's hello example reads this file's first column.
FILES = {"first:female": _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "first_female.txt")}
