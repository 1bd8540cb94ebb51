#!/usr/bin/python3
"""spellbook make-samples, as LLNL Merlin's example specs call it (merlin-spellbook 0.9).

Merlin's examples draw their samples with `spellbook make-samples` (13 calls in its example
specs). This command takes the same options and writes the same kind of .npy file, so those
specs run unchanged. Only numpy is needed (Debian's python3-numpy); `truncnorm` also wants
python3-scipy. collect, translate, stack-npz, learn and predict are in spellbook_ml.py (beside
this file in the source tree, in python/ beside it in the build tree, share/merlin/python
installed); merlin's own tools for the same jobs are `merlin collect` and `merlin-train`
(docs/merlin-compatibility.md).

Exit codes: 0 written; 1 a file could not be read or written; 2 bad options (the message
names the option).
"""
import os
import ast
import re
import statistics
import sys

USAGE = """usage: spellbook collect|translate|stack-npz|learn|predict [OPTIONS]
       (as merlin-spellbook's; docs/merlin-compatibility.md)
usage: spellbook make-samples [-n N] [-dims D] [-sample_type TYPE] [-seed S]
         [-scale "[(lo,hi[,log]),...]"] [-scale_factor F] [-round "[False|round|floor|ceil,...]"]
         [-repeat "[R[,SEED_COLUMN]]"] [-x0 FILE.npy] [-x1 FILE.npy] [-n_line N] [--hard-bounds]
         [-mean "[m,...]"] [-std "[s,...]"] [-lower_std L] [-upper_std U] [-outfile FILE.npy]

TYPE: random (default), normal, truncnorm, grid, lhs, lhd (Latin hypercube mapped through a
normal of mean 0.5 and sd 0.125), star (axial points), ccf (face-centred composite design).
Points are in [0, 1)^D, then scaled per column by -scale (linear, or log10 with ",log"),
multiplied by -scale_factor, rounded, repeated; -x0 centres them on each point of a file
(added as a sample), -x1 adds -n_line points on the line from x0 to x1; --hard-bounds clips
to the scale. As spellbook does, the samples are printed and saved to -outfile
(default samples.npy)."""

OPTIONS = {  # name: (type, default)
    "seed": (int, None), "n": (int, 100), "dims": (int, 2), "sample_type": (str, "random"),
    "scale": (str, None), "scale_factor": (float, 1.0), "outfile": (str, "samples.npy"),
    "x0": (str, None), "x1": (str, None), "n_line": (int, 100), "round": (str, None),
    "repeat": (str, None), "mean": (str, None), "std": (str, None),
    "lower_std": (float, -2.0), "upper_std": (float, 2.0),
}


class BadOption(Exception):
    pass


def parse(argv):
    """click's single-dash long options: `-n 5`, `-outfile=f.npy`, `--hard-bounds`."""
    opts = {k: d for k, (_, d) in OPTIONS.items()}
    opts["hard_bounds"] = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--hard-bounds", "-hard-bounds"):
            opts["hard_bounds"] = True
            i += 1
            continue
        if arg in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        if not arg.startswith("-"):
            raise BadOption(f"unexpected argument '{arg}'")
        name, eq, value = arg.lstrip("-").partition("=")
        if name not in OPTIONS:
            raise BadOption(f"no such option: {arg.partition('=')[0]}")
        if not eq:
            if i + 1 >= len(argv):
                raise BadOption(f"option -{name} requires a value")
            i += 1
            value = argv[i]
        kind = OPTIONS[name][0]
        try:
            opts[name] = kind(value)
        except ValueError:
            raise BadOption(f"-{name}: '{value}' is not a valid {kind.__name__}")
        i += 1
    if opts["n"] < 1 or opts["dims"] < 1:
        raise BadOption("-n and -dims must be at least 1")
    return opts


def per_dim(text, dims, what):
    values = [float(v) for v in text.strip("[]").replace(" ", "").split(",") if v]
    if len(values) == 1:
        values *= dims
    if len(values) != dims:
        raise BadOption(f"-{what} needs 1 or {dims} values, got {len(values)}")
    return values


def latin_hypercube(np, rng, n, dims):
    # One point in each of n equal intervals per column, the intervals shuffled per column.
    cut = (np.arange(n)[:, None] + rng.random((n, dims))) / n
    for d in range(dims):
        cut[:, d] = cut[rng.permutation(n), d]
    return cut


def unit_points(np, o):
    n, dims, kind = o["n"], o["dims"], o["sample_type"]
    rng = np.random.default_rng(o["seed"])
    if kind == "random":
        return np.random.random((n, dims))
    if kind in ("normal", "truncnorm"):
        mean = per_dim(o["mean"], dims, "mean") if o["mean"] else [0.0] * dims
        std = per_dim(o["std"], dims, "std") if o["std"] else [1.0] * dims
        if kind == "normal":
            return rng.normal(loc=mean, scale=std, size=(n, dims))
        try:
            from scipy.stats import truncnorm
        except ImportError:
            raise BadOption("-sample_type truncnorm needs python3-scipy")
        return np.stack([truncnorm(o["lower_std"], o["upper_std"], loc=mean[d], scale=std[d])
                         .rvs(n, random_state=o["seed"]) for d in range(dims)], axis=1)
    if kind == "grid":
        side = int(pow(n, 1 / float(dims)))
        axes = np.meshgrid(*[np.linspace(0, 1.0, side) for _ in range(dims)])
        return np.stack([a.flatten() for a in axes], axis=1)
    if kind == "lhs":
        return latin_hypercube(np, rng, n, dims)
    if kind == "lhd":
        gauss = statistics.NormalDist(0.5, 0.125)
        return np.vectorize(gauss.inv_cdf)(latin_hypercube(np, rng, n, dims))
    if kind == "star":
        axial = np.vstack([s * np.eye(dims)[d] for d in range(dims) for s in (-1, 1)])
        return 0.5 * (axial + 1.0)
    if kind == "ccf":
        corners = np.array(np.meshgrid(*[[-1.0, 1.0]] * dims)).reshape(dims, -1).T
        axial = np.vstack([s * np.eye(dims)[d] for d in range(dims) for s in (-1, 1)])
        design = np.unique(np.vstack([corners, axial, np.zeros((1, dims))]), axis=0)
        return 0.5 * (design + 1.0)
    raise BadOption(f"-sample_type: '{kind}' is not one of random, normal, truncnorm, grid, "
                    "lhs, lhd, star, ccf")


def parse_scale(text, dims):
    try:
        # spellbook wants the type quoted ('log'); a bare log or linear is taken as well.
        raw = ast.literal_eval(re.sub(r"(?<![\"'\w])(log|linear)(?![\"'\w])", r"'\1'", text))
    except (ValueError, SyntaxError):
        raise BadOption(f"-scale: '{text}' is not a list like \"[(0,1),(1,100,'log')]\"")
    rows = [list(r) for r in (raw if isinstance(raw[0], (list, tuple)) else [raw])]
    if len(rows) != dims:
        raise BadOption(f"-scale has {len(rows)} ranges for {dims} dimensions")
    return rows


def scale(np, x, rows):
    out = np.array(x, dtype=float)
    for d, row in enumerate(rows):
        lo, hi = float(row[0]), float(row[1])
        log = len(row) > 2 and row[2] == "log"
        if log:
            lo, hi = np.log10(lo), np.log10(hi)
        out[:, d] = (hi - lo) * out[:, d] + lo
        if log:
            out[:, d] = 10.0 ** out[:, d]
    return out


def make_samples(np, o):
    np.random.seed(o["seed"])
    x = unit_points(np, o)
    rows = parse_scale(o["scale"], o["dims"]) if o["scale"] else None
    if rows:
        x = scale(np, x, rows)
    x = o["scale_factor"] * x
    if o["round"]:
        how = o["round"].strip("[]").replace(" ", "").split(",")
        if len(how) != o["dims"]:
            raise BadOption("-round needs one entry per dimension")
        x = x.astype("object")
        for d, h in enumerate(how):
            if h.lower() not in ("false", "round", "floor", "ceil"):
                raise BadOption(f"-round: '{h}' is not False, round, floor or ceil")
            if h.lower() != "false":
                x[:, d] = getattr(np, h.lower())(x[:, d].astype(float)).astype(int)
    if o["repeat"]:
        rep = [int(r) for r in o["repeat"].strip("[]").replace(" ", "").split(",")]
        x = np.repeat(x, rep[0], axis=0)
        if len(rep) == 2:
            seeds = np.round(np.random.rand(o["n"]) * 10**6).astype(int).tolist() * rep[0]
            x[:, rep[1]] = np.array(seeds)
    if o["x0"]:
        x0 = np.atleast_2d(np.load(o["x0"]))
        if rows:
            centre = np.mean(o["scale_factor"] * np.array([r[:2] for r in rows], float), axis=1)
        else:
            centre = o["scale_factor"] * 0.5
        parts = []
        for p in x0:
            part = x + p - centre
            if o["sample_type"] in ("lhs", "lhd"):
                part[0] = p
            else:
                part = np.insert(part, 0, p, axis=0)
            if o["x1"]:
                x1 = np.load(o["x1"])
                t = np.linspace(0, 1, o["n_line"] + 1, endpoint=False)[1:]
                part = np.vstack((part, p + np.outer(t, x1 - p)))
            parts.append(part)
        x = np.vstack(parts)
    if o["hard_bounds"]:
        for d in range(x.shape[1]):
            lo, hi = (float(rows[d][0]), float(rows[d][1])) if rows else (0.0, 1.0)
            x[:, d] = np.clip(x[:, d], lo, hi)
    return x


ML_COMMANDS = ("collect", "translate", "stack-npz", "learn", "predict")


def spellbook_ml():
    """The module of the other commands, from where this script is."""
    here = os.path.dirname(os.path.realpath(__file__))
    for d in (here, os.path.join(here, "python"),
              os.path.join(here, "..", "share", "merlin", "python")):
        if os.path.isfile(os.path.join(d, "spellbook_ml.py")):
            sys.path.insert(0, d)
            import spellbook_ml
            return spellbook_ml
    return None


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(USAGE)
        return 0 if len(argv) >= 2 else 2
    if argv[1] in ML_COMMANDS:
        ml = spellbook_ml()
        if ml is None:
            sys.stderr.write(f"spellbook {argv[1]}: spellbook_ml.py is not beside {argv[0]} "
                             "(python/ or ../share/merlin/python): the installation is broken\n")
            return 2
        return ml.run(argv[1], argv[2:])
    if argv[1] != "make-samples":
        sys.stderr.write(f"spellbook: '{argv[1]}' is not here: make-samples, "
                         + ", ".join(ML_COMMANDS) + " are (merlin's own collect and trainer are "
                         "`merlin collect` and `merlin-train`)\n")
        return 2
    try:
        import numpy as np
    except ImportError:
        sys.stderr.write("spellbook make-samples needs numpy: apt-get install python3-numpy\n")
        return 2
    try:
        opts = parse(argv[2:])
        x = make_samples(np, opts)
    except (BadOption, OSError) as e:
        sys.stderr.write(f"spellbook make-samples: {e}\n")
        return 2
    print(x)
    try:
        with open(opts["outfile"], "wb") as f:  # the name as given (np.save would add .npy)
            np.save(f, x)
    except OSError as e:
        sys.stderr.write(f"spellbook make-samples: -outfile: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
