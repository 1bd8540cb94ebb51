"""Seeds Python's and numpy's random generators at start-up, so a spec's `generate` command
draws the same samples for real Merlin and for merlin (the dry-run comparison needs both to
render the same values)."""
import random

random.seed(0)
try:
    import numpy

    numpy.random.seed(0)
except ImportError:
    pass
