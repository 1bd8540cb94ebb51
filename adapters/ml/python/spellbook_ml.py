"""spellbook collect, translate, stack-npz, learn and predict, as LLNL Merlin's example specs call
them (merlin-spellbook 0.9/0.10; feature_demo runs all five). bin/spellbook (spellbook.py)
dispatches here; make-samples is in spellbook.py itself.

Same options and files as spellbook: `collect` gathers JSON files into one JSON list,
`translate` flattens it into a .npz by a schema file, `stack-npz` stacks .npz files, `learn`
fits scikit-learn's RandomForestRegressor (spellbook's settings: max_depth 2, 100 trees,
random_state 0) and pickles it, `predict` loads that pickle and writes .npy predictions.
numpy is needed (python3-numpy); learn and predict also need scikit-learn (python3-sklearn).
Errors are values here: each command returns an exit code (0 done, 1 a file could not be read
or written or the data does not fit, 2 bad options) after one line on stderr.
"""
import json
import os
import pickle
import shutil
import sys


class Failed(Exception):
    """A message for stderr and the exit code to return."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def parse(args, options, flags=(), positional=False):
    """spellbook's single-dash options (`-name value` or `-name=value`) into a dict of `options`'
    defaults; `flags` take no value. With `positional`, other words are returned in order."""
    out, rest = dict(options), []
    for f in flags:
        out[f] = False
    i = 0
    while i < len(args):
        word = args[i]
        name, eq, value = word.lstrip("-").partition("=")
        if word.startswith("-") and name in flags:
            out[name] = True
        elif word.startswith("-") and name in options:
            if not eq:
                i += 1
                if i == len(args):
                    raise Failed(f"-{name} needs a value", 2)
                value = args[i]
            out[name] = value
        elif positional and not word.startswith("-"):
            rest.append(word)
        else:
            raise Failed(f"unknown option '{word}' (options: "
                         + ", ".join("-" + o for o in [*options, *flags]) + ")", 2)
        i += 1
    return (out, rest) if positional else out


def numpy():
    try:
        import numpy as np
    except ImportError:
        raise Failed("numpy is needed: apt-get install python3-numpy", 2)
    return np


def collect(args):
    o = parse(args, {"instring": "", "outfile": "results.hdf5"})
    paths = [p for p in o["instring"].split("\n") if p.strip()]
    if not paths:
        raise Failed("-instring names no file (a newline-separated list of JSON files)", 2)
    result = []
    for path in paths:
        try:
            with open(path) as f:
                result.append(json.load(f))
        except (OSError, ValueError) as e:
            raise Failed(f"{path}: {e}")
    with open(o["outfile"], "w") as f:
        json.dump(result, f)


def scalar_paths(node, schema, path=""):
    """(path, value) of each leaf of `node` that `schema` names, as spellbook walks them."""
    for child in node:
        if child not in schema:
            continue
        if isinstance(node[child], dict):
            if isinstance(schema[child], dict):
                yield from scalar_paths(node[child], schema[child], path + child + "/")
        elif not isinstance(schema[child], dict):
            yield path + child, node[child]


def translate(args):
    o = parse(args, {"input": "results.json", "output": "results.npz", "schema": "features.json"})
    np = numpy()
    try:
        with open(o["input"]) as f:
            samples = json.load(f)
        with open(o["schema"]) as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        raise Failed(str(e))
    inputs, outputs = {}, {}
    try:
        for s in samples:
            for d, part in ((inputs, "inputs"), (outputs, "outputs")):
                for path, value in scalar_paths(s[part], schema[part]):
                    d.setdefault(path, []).append(value)
    except (KeyError, TypeError) as e:
        raise Failed(f"{o['input']}: a sample or the schema {o['schema']} has no {e}")
    if not inputs:
        raise Failed(f"the schema {o['schema']} selects no input of {o['input']}")
    arrays = {path: np.array(v) for path, v in outputs.items()}
    arrays["X"] = np.vstack([np.array(v) for v in inputs.values()]).T
    np.savez(o["output"], **arrays)


def stack_npz(args):
    o, files = parse(args, {}, flags=("f", "force"), positional=True)
    if len(files) < 2:
        raise Failed("usage: spellbook stack-npz [-f] TARGET SOURCE...", 2)
    target, sources = files[0], files[1:]
    if os.path.isfile(target) and not (o["f"] or o["force"]):
        raise Failed(f"{target} exists: pass -f to write it again")
    if len(sources) == 1:
        shutil.copy(sources[0], target)
        return
    np = numpy()
    stacks = {}
    for s in sources:
        with np.load(s) as data:
            for k in data.files:
                stacks.setdefault(k, []).append(np.atleast_2d(data[k]))
    out = {}
    for k, arrays in stacks.items():
        # Jagged arrays are padded with NaN past their own width, as spellbook does.
        width = max(a.shape[1] for a in arrays)
        out[k] = np.vstack([a if a.shape[1] == width else
                            np.pad(a.astype(float), ((0, 0), (0, width - a.shape[1])),
                                   constant_values=np.nan) for a in arrays])
    np.savez_compressed(target, **out)


def sklearn_forest():
    try:
        from sklearn.ensemble import RandomForestRegressor
    except ImportError:
        raise Failed("learn needs scikit-learn: apt-get install python3-sklearn", 2)
    return RandomForestRegressor


def columns(np, data, names):
    return np.hstack([data[n] for n in names.split(",")])


def learn(args):
    o = parse(args, {"infile": "results.npz", "X": None, "y": None,
                     "outfile": "random_forest_reg.pkl", "regressor": "RandomForestRegressor"})
    if o["regressor"] != "RandomForestRegressor":
        raise Failed(f"-regressor {o['regressor']}: only RandomForestRegressor is here", 2)
    np = numpy()
    forest = sklearn_forest()
    try:
        with np.load(o["infile"]) as data:
            if len(data.files) < 2 and (o["X"] is None or o["y"] is None):
                raise Failed(f"{o['infile']} holds {len(data.files)} array(s): X and y are needed")
            x = columns(np, data, o["X"]) if o["X"] else data["X"] if "X" in data else data[data.files[0]]
            y = columns(np, data, o["y"]) if o["y"] else data["y"] if "y" in data else data[data.files[1]]
    except (OSError, ValueError, KeyError) as e:
        raise Failed(f"{o['infile']}: {e}")
    if x.shape[0] != y.shape[0]:
        raise Failed(f"{o['infile']}: {x.shape[0]} rows of X but {y.shape[0]} of y")
    regressor = forest(max_depth=2, random_state=0, n_estimators=100)
    regressor.fit(x, y)
    with open(o["outfile"], "wb") as f:
        pickle.dump(regressor, f)


def predict(args):
    o = parse(args, {"infile": "new_x.npy", "reg": "random_forest_reg.pkl", "outfile": "new_y.npy"})
    np = numpy()
    sklearn_forest()  # unpickling the regressor imports scikit-learn
    try:
        with open(o["reg"], "rb") as f:
            # The file a learn step of this study wrote, as spellbook reads it: a pickle runs
            # code when loaded, so only a regressor the study made itself belongs here.
            regressor = pickle.load(f)
        x = np.load(o["infile"])
    except (OSError, ValueError, pickle.UnpicklingError) as e:
        raise Failed(str(e))
    with open(o["outfile"], "wb") as f:
        np.save(f, regressor.predict(x))


COMMANDS = {"collect": collect, "translate": translate, "stack-npz": stack_npz,
            "learn": learn, "predict": predict}


def run(command, args):
    """Runs `command` with `args`; returns its exit code."""
    try:
        COMMANDS[command](args)
    except Failed as e:
        sys.stderr.write(f"spellbook {command}: {e}\n")
        return e.code
    except OSError as e:
        sys.stderr.write(f"spellbook {command}: {e}\n")
        return 1
    return 0
