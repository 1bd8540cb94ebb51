"""Checks containers/spack/package.py without Spack (not installable here): a stand-in
`spack.package` module records the directives, then the recipe's class is checked for its
variants, its dependencies and how cmake_args maps the variants onto the CMake options.
Usage: /usr/bin/python3 tests/packaging/spack_stub_test.py SOURCE_DIR  (exit 0: all passed)
"""
import importlib.util
import itertools
import pathlib
import re
import sys
import types

recorded = []  # (directive, args, kwargs), in the order the class body calls them


def directive(name):
    def record(*args, **kwargs):
        recorded.append((name, args, kwargs))
    return record


class FakeSpec:
    def __init__(self, variants):
        self.variants = variants


class CMakePackage:
    """The two helpers of Spack's CMakePackage the recipe uses, in Spack's output form."""

    run_tests = False

    def __init__(self, spec):
        self.spec = spec

    @staticmethod
    def define(name, value):
        if isinstance(value, bool):
            return "-D{}:BOOL={}".format(name, "ON" if value else "OFF")
        return "-D{}:STRING={}".format(name, value)

    def define_from_variant(self, name, variant):
        if variant not in self.spec.variants:  # Spack fails on a variant the package lacks
            raise KeyError("no variant " + variant)
        return self.define(name, self.spec.variants[variant])


fake = types.ModuleType("spack.package")
for d in ("version", "variant", "depends_on", "license", "maintainers", "conflicts", "patch"):
    setattr(fake, d, directive(d))
fake.CMakePackage = CMakePackage
fake.__all__ = [n for n in dir(fake) if not n.startswith("_")]
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = fake

src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
spec = importlib.util.spec_from_file_location("merlin_recipe", src / "containers/spack/package.py")
recipe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(recipe)

fails = 0


def check(what, ok):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


check("the recipe defines class Merlin, a CMakePackage",
      issubclass(getattr(recipe, "Merlin", object), CMakePackage))
variants = {a[0]: k.get("default") for n, a, k in recorded if n == "variant"}
check("variants rabbitmq, hdf5, mpi, each on by default (as the CMake options)",
      variants == {"rabbitmq": True, "hdf5": True, "mpi": True})
deps = {a[0].split("@")[0].split()[0]: k.get("when") for n, a, k in recorded if n == "depends_on"}
for d in ("yaml-cpp", "spdlog", "fmt", "hiredis", "cpp-httplib", "cli11", "nlohmann-json", "cmake"):
    check("depends on " + d + " always", d in deps and deps[d] is None)
for d, v in (("rabbitmq-c", "rabbitmq"), ("hdf5", "hdf5"), ("mpi", "mpi")):
    check("depends on {} when +{}".format(d, v), deps.get(d) == "+" + v)
check("spdlog with the external fmt (as Debian's)",
      any(n == "depends_on" and a[0].startswith("spdlog") and "+fmt_external" in a[0]
          for n, a, k in recorded))
tags = [k.get("tag") for n, a, k in recorded if n == "version" and "tag" in k]
check("versions are git tags vX.Y.Z", tags and all(re.fullmatch(r"v\d+\.\d+\.\d+", t) for t in tags))

# cmake_args for every combination of the three variants.
cmake_lists = (src / "CMakeLists.txt").read_text()
for combo in itertools.product([True, False], repeat=3):
    v = dict(zip(("rabbitmq", "hdf5", "mpi"), combo))
    args = recipe.Merlin(FakeSpec(v)).cmake_args()
    want = ["-DMERLIN_WITH_{}:BOOL={}".format(k.upper(), "ON" if on else "OFF") for k, on in v.items()]
    label = " ".join(("+" if on else "~") + k for k, on in v.items())
    check("cmake_args of {} sets {}".format(label, " ".join(want)), all(w in args for w in want))
for opt in ("MERLIN_WITH_RABBITMQ", "MERLIN_WITH_HDF5", "MERLIN_WITH_MPI", "MERLIN_WITH_TORCH",
            "MERLIN_BUILD_TESTS"):
    check(opt + " is an option of CMakeLists.txt", re.search(r"option\(" + opt + r"\b", cmake_lists) is not None)

print("{} failed".format(fails))
sys.exit(1 if fails else 0)
