#!/usr/bin/env python3
"""A toy simulation: one sample's inputs in, one JSON record out.

    python3 simulate.py -outfile OUT.json X0 X1 X2

The "physics" is a fixed quadratic response, so a quadratic surrogate can learn it exactly
and the demo can check its predictions against fresh runs of this same function.
"""
import argparse
import json


def response(x0, x1, x2):
    """The simulated quantity for inputs (x0, x1) at setting x2."""
    return 1.0 + 2.0 * x0 - x2 * x1 * x1 + 0.5 * x0 * x1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-outfile", required=True)
    parser.add_argument("x0", type=float)
    parser.add_argument("x1", type=float)
    parser.add_argument("x2", type=float)
    args = parser.parse_args()
    record = {
        "inputs": {"X0": args.x0, "X1": args.x1, "X2": args.x2},
        "outputs": {"y": response(args.x0, args.x1, args.x2)},
    }
    with open(args.outfile, "w") as f:
        json.dump(record, f)
    print(f"y({args.x0}, {args.x1}; X2={args.x2}) = {record['outputs']['y']}")


if __name__ == "__main__":
    main()
