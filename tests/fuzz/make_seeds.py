#!/usr/bin/env python3
"""Seeds for the fuzz targets that are made, not checked in (docs/fuzzing.md).

Usage: make_seeds.py ROOT OUT  -- writes OUT/<target>/<name> for every target:
  spec_loader   the specs of specs/, tests/integration/specs/ and examples/ (*.yaml)
  npy_reader    small .npy files of every dtype the reader takes (1-D, 2-D, C and Fortran)
  csv_reader    the repository's .csv sample files and a few quoting cases
  tab_reader    the same rows whitespace-separated
  broker_url    every URL literal in the unit tests
  json_output   per-sample result.json shapes merlin collect reads (objects, nested arrays)
  npy_output    the npy_reader seeds (merlin collect reads the same files as one field)
  csv_output    a header and one row, and the csv_reader seeds
Standard library only: no numpy (the .npy format is a short header before raw bytes).
The checked-in seeds (task messages, app.yaml) are in tests/fuzz/corpus/<target>/.
"""
import hashlib
import os
import re
import struct
import sys


def put(out, target, data, name=None):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy(descr, shape, payload, fortran=False, version=1):
    dims = ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", dims)
    prefix = 10 if version == 1 else 12
    pad = (-(prefix + len(header) + 1)) % 64
    header = header + " " * pad + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode("latin-1") + payload


def npy_seeds(out):
    fmt = {"f8": "d", "f4": "f", "i1": "b", "i2": "h", "i4": "i", "i8": "q",
           "u1": "B", "u2": "H", "u4": "I", "u8": "Q"}
    values = [0, 1, 2, 3, 4, 5]
    for code, c in fmt.items():
        for order in "<>":
            vals = [v * (0.5 if code[0] == "f" else 1) for v in values]
            payload = struct.pack(order + c * len(vals), *[type(1.0)(v) if code[0] == "f" else int(v) for v in vals])
            put(out, "npy_reader", npy(order + code, (3, 2), payload))
            put(out, "npy_reader", npy(order + code, (6,), payload))
    put(out, "npy_reader", npy("<f8", (2, 3), struct.pack("<6d", *range(6)), fortran=True))
    put(out, "npy_reader", npy("<f8", (2, 3), struct.pack("<6d", *range(6)), version=2))
    put(out, "npy_reader", npy("|b1", (4,), bytes([0, 1, 1, 0])))
    put(out, "npy_reader", npy("|S5", (2, 1), b"alice" + b"bob\0\0"))
    put(out, "npy_reader", npy("<U3", (2,), "abc".encode("utf-32-le") + "\u00e9\0\0".encode("utf-32-le")))
    put(out, "npy_reader", npy("<f8", (1, 1), struct.pack("<d", float("nan"))))
    put(out, "npy_reader", npy("<f8", (2, 2), struct.pack("<3d", 1, 2, 3)))  # truncated


def text_seeds(root, out):
    rows = []
    for d, _, files in os.walk(root):
        if "/build" in d or "/." in d:
            continue
        for f in files:
            if f.endswith(".csv"):
                data = open(os.path.join(d, f), "rb").read()[:4096]
                put(out, "csv_reader", data)
                put(out, "tab_reader", data.replace(b",", b"\t"))
                rows.append(data)
    for text in ['1,2\n3,4\n', '"a,b",c\n"x""y",z\n', '\ufeffa,b\r\n\r\nc,d\r\n', ' 1 , 2 \n\n3,4',
                 '"unterminated,1\n', '"a" b,c\n', '1,2\n3\n', ',\n,\n', '1e300,-0.0,nan\n']:
        put(out, "csv_reader", text)
    for text in ['1 2\n3 4\n', '\ta\t b \n c d\n', '1\t2\t3\r\n4 5 6\r\n', '1 2\n3\n', '  \n\n x\n']:
        put(out, "tab_reader", text)


def spec_seeds(root, out):
    for sub in ("specs", "tests/integration/specs", "examples"):
        for d, _, files in os.walk(os.path.join(root, sub)):
            for f in files:
                if f.endswith((".yaml", ".yml")):
                    data = open(os.path.join(d, f), "rb").read()
                    if len(data) <= 65536:
                        put(out, "spec_loader", data)


def url_seeds(root, out):
    literal = re.compile(rb'"((?:redis|rediss|redis\+socket|unix|amqp|amqps|pyamqp|REDIS)://[^"\\]*)"')
    for d, _, files in os.walk(os.path.join(root, "tests/unit")):
        for f in files:
            if f.endswith(".cc"):
                for m in literal.finditer(open(os.path.join(d, f), "rb").read()):
                    put(out, "broker_url", m.group(1))


def output_seeds(out):
    for text in ['{"energy": 1.5, "traj": [1, 2, 3], "flag": true, "none": null}',
                 '{"m": [[1, 2, 3], [4, 5, 6]], "sub": {"a": 7, "b": {"c": [0.5]}}}',
                 '[0.25, 0.5]', '42', '[[[1], [2]], [[3], [4]]]', '{"a": [[1, 2], [3]]}',
                 '{"a": [1, [2]]}', '{"a": "text"}', '{}', '[]', '[[], []]', '{"a": 1e400}',
                 '{"e": -0, "k": 9007199254740993}']:
        put(out, "json_output", text)
    for name in os.listdir(os.path.join(out, "npy_reader")):
        put(out, "npy_output", open(os.path.join(out, "npy_reader", name), "rb").read(), name)
    for text in ['energy,id\n1.5,3\n', 'a, "b" ,c\r\n1,nan,\r\n', 'a\n1\n2\n', 'a,b\n1\n',
                 ',b\n1,2\n', 'x\nnot-a-number\n']:
        put(out, "csv_output", text)
    for name in os.listdir(os.path.join(out, "csv_reader")):
        put(out, "csv_output", open(os.path.join(out, "csv_reader", name), "rb").read(), name)


def main():
    root, out = sys.argv[1], sys.argv[2]
    npy_seeds(out)
    text_seeds(root, out)
    spec_seeds(root, out)
    url_seeds(root, out)
    output_seeds(out)


if __name__ == "__main__":
    main()
