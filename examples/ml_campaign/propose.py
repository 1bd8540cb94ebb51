#!/usr/bin/python3
"""Rung 1 of the search: every combination of two learning rates, two widths and two batch
sizes, one CSV row each: ID,LR,WIDTH,BATCH,EPOCHS (no header).

    propose.py EPOCHS > trials.csv
"""
import itertools
import sys

epochs = int(sys.argv[1])
grid = itertools.product([1e-3, 5e-3], [16, 64], [16, 64])  # LR, WIDTH (both layers), BATCH
for i, (lr, width, batch) in enumerate(grid, start=1):
    print(f"{i},{lr:g},{width},{batch},{epochs}")
