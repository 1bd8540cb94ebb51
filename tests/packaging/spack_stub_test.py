"""Checks a Spack recipe for merlin-cpp (containers/spack/package.py) without Spack, which is not
installable here, in two ways:
1. statically (ast): every call in the class body, at its top or inside `with when(...)` /
   `with default_args(...)`, must be one of Spack's package directives, so a misspelt one
   (depends("x")) fails by name and line;
2. by running it against a stand-in `spack.package` that exports exactly those directives, with
   Spack's parameters (an unknown keyword fails, as it does in Spack), and CMakePackage's
   define / define_from_variant; then the class is checked: its name, its source (the release
   tarball, pinned by sha256), its variants, dependencies and what cmake_args passes to CMake.
   It runs twice: as Spack 0.x, whose spack.package exports CMakePackage, and as Spack 1.x, where
   CMakePackage is in spack_repo.builtin.build_systems.cmake instead.
Usage: /usr/bin/python3 tests/packaging/spack_stub_test.py SOURCE_DIR [RECIPE] [--tarball FILE]
       /usr/bin/python3 tests/packaging/spack_stub_test.py SOURCE_DIR [RECIPE] --print-release
  RECIPE defaults to SOURCE_DIR/containers/spack/package.py, the checked-in recipe, whose release
  lines must be placeholders. With --tarball FILE, RECIPE is one rendered for FILE by
  `containers/spack/release-tarball.sh --recipe`: its url must be FILE's and its sha256 FILE's.
  --print-release prints "VERSION SHA256 URL GIT_DESCRIBE" of the recipe's version (no checks).
Exit 0 all passed, 1 a check failed (its FAIL line says which), 2 usage.
"""
import argparse
import ast
import contextlib
import hashlib
import importlib.util
import inspect
import itertools
import os
import pathlib
import re
import sys
import types
import urllib.parse

PACKAGE = "merlin-cpp"  # the directory name in a Spack repository: packages/merlin-cpp/package.py
PLACEHOLDER_SHA256 = "0" * 64
DEPENDENCY_TYPES = {"build", "link", "run", "test"}


def spack_directives():
    """Spack's package directives, as `spack.package` exports them to recipes (Spack 0.23 and
    later, lib/spack/spack/directives.py), with Spack's parameters. The bodies are not Spack's:
    a call is only checked against the parameters and recorded."""

    def build_system(*values, default=None): pass
    def can_splice(target, *, when, match_variants=None): pass
    def conflicts(conflict_spec, when=None, msg=None): pass
    def depends_on(spec, when=None, type=("build", "link"), patches=None): pass
    def extends(spec, when=None, type=("build", "run"), patches=None): pass
    def license(license_identifier, checked_by=None, when=None): pass
    def maintainers(*names): pass
    def patch(url_or_filename, level=1, when=None, working_dir=".", sha256=None, archive_sha256=None): pass
    def provides(*specs, when=None): pass
    def redistribute(source=None, binary=None, when=None): pass
    def requires(*requirement_specs, policy="one_of", when=None, msg=None): pass
    def resource(**kwargs): pass
    def variant(name, default=None, description="", values=None, multi=None, validator=None,
                when=None, sticky=False): pass
    def version(ver, checksum=None, *, preferred=None, deprecated=None, no_cache=None, url=None,
                extension=None, expand=None, fetch_options=None, md5=None, sha1=None, sha224=None,
                sha256=None, sha384=None, sha512=None, git=None, commit=None, tag=None,
                branch=None, get_full_repo=None, submodules=None, submodules_delete=None,
                svn=None, hg=None, cvs=None, revision=None, date=None): pass

    return {f.__name__: f for f in (build_system, can_splice, conflicts, depends_on, extends,
                                    license, maintainers, patch, provides, redistribute, requires,
                                    resource, variant, version)}


DIRECTIVES = spack_directives()
CONTEXTS = ("when", "default_args")  # spack.package's context managers for directives

recorded = []  # (directive, {parameter: value}) in the order the class body calls them
when_stack = []  # the conditions of the enclosing `with when(...)` blocks
defaults_stack = []  # the keywords of the enclosing `with default_args(...)` blocks


def stand_in(signature):
    name = signature.__name__
    params = inspect.signature(signature).parameters

    def directive(*args, **kwargs):
        for defaults in defaults_stack:
            kwargs = {**defaults, **kwargs}
        if when_stack:
            if "when" not in params:  # Spack: version() has no when=, so no `with when`
                raise TypeError("{}() cannot be used inside `with when(...)`".format(name))
            kwargs["when"] = " ".join(when_stack + [kwargs["when"]] if kwargs.get("when") else when_stack)
        try:
            bound = inspect.signature(signature).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("{}(): {}; Spack's is {}{}".format(
                name, e, name, inspect.signature(signature))) from None
        recorded.append((name, dict(bound.arguments)))

    directive.__name__ = name
    return directive


@contextlib.contextmanager
def when(condition):
    when_stack.append(str(condition))
    try:
        yield
    finally:
        when_stack.pop()


@contextlib.contextmanager
def default_args(**kwargs):
    defaults_stack.append(kwargs)
    try:
        yield
    finally:
        defaults_stack.pop()


class FakeSpec:
    def __init__(self, variants, version):
        self.variants = variants
        self.version = version


class CMakePackage:
    """The helpers of Spack's CMakePackage the recipe uses, in Spack's output form."""

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


def install_stand_in(spack_major):
    """Spack 0.x: spack.package exports CMakePackage, and there is no spack_repo. Spack 1.x: the
    build systems are in the builtin package repository, spack_repo.builtin.build_systems."""
    fake = types.ModuleType("spack.package")
    for name, signature in DIRECTIVES.items():
        setattr(fake, name, stand_in(signature))
    fake.when = when
    fake.default_args = default_args
    fake.__all__ = list(DIRECTIVES) + list(CONTEXTS)
    sys.modules["spack"] = types.ModuleType("spack")
    sys.modules["spack.package"] = fake
    repo_modules = ("spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems",
                    "spack_repo.builtin.build_systems.cmake")
    if spack_major == 0:
        fake.CMakePackage = CMakePackage
        fake.__all__.append("CMakePackage")
        for m in repo_modules:
            sys.modules[m] = None  # importing it raises ImportError, as without Spack 1.x
    else:
        for m in repo_modules:
            sys.modules[m] = types.ModuleType(m)
        sys.modules[repo_modules[-1]].CMakePackage = CMakePackage


def load(recipe_path, spack_major):
    """Runs the recipe as that Spack would import it: (module, None) or (None, its error)."""
    recorded.clear()
    install_stand_in(spack_major)
    sys.dont_write_bytecode = True  # no __pycache__ beside the recipe in the source tree
    try:
        spec = importlib.util.spec_from_file_location("recipe_spack{}".format(spack_major), recipe_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module, None
    except Exception as e:  # the recipe's own error, reported as a failed check
        return None, "{}: {}".format(type(e).__name__, e)


def mod_to_class(package):
    """Spack's class name for a package name: merlin-cpp -> MerlinCpp."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-_]", package))


def unknown_calls(body):
    """The calls in a class body (and its with/if blocks) that are not Spack directives."""
    bad = []
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            if not (isinstance(func, ast.Name) and func.id in DIRECTIVES):
                bad.append("{} (line {})".format(ast.unparse(func), stmt.lineno))
        elif isinstance(stmt, ast.With):
            for item in stmt.items:
                c = item.context_expr
                if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in CONTEXTS):
                    bad.append("with {} (line {})".format(ast.unparse(c), stmt.lineno))
            bad += unknown_calls(stmt.body)
        elif isinstance(stmt, ast.If):
            bad += unknown_calls(stmt.body + stmt.orelse)
    return bad


def dep_name(spec):
    return re.match(r"[A-Za-z0-9_-]*", spec).group(0)


fails = 0


def check(what, ok):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


def done():
    print("{} failed".format(fails))
    sys.exit(1 if fails else 0)


def main():
    ap = argparse.ArgumentParser(description="Checks the merlin-cpp Spack recipe without Spack.")
    ap.add_argument("source_dir")
    ap.add_argument("recipe", nargs="?")
    ap.add_argument("--tarball", help="the release tarball the recipe was rendered for")
    ap.add_argument("--print-release", action="store_true")
    args = ap.parse_args()
    src = pathlib.Path(args.source_dir)
    recipe_path = pathlib.Path(args.recipe) if args.recipe else src / "containers/spack/package.py"
    text = recipe_path.read_text()
    cls_name = mod_to_class(PACKAGE)

    # As Spack 1.x first; then as Spack 0.x, whose run the checks below look at.
    module1, error1 = load(recipe_path, 1)
    cls1 = getattr(module1, cls_name, None)
    directives1 = list(recorded)
    module, error = load(recipe_path, 0)
    cls = getattr(module, cls_name, None)
    versions = [b for n, b in recorded if n == "version"]

    def cmake_args(variants, version):
        return cls(FakeSpec(variants, version)).cmake_args()

    def described(args_list):
        found = [a.split("=", 1)[1] for a in args_list if a.startswith("-DMERLIN_GIT_DESCRIBE:")]
        return found[0] if found else None

    if args.print_release:
        if error or cls is None or len(versions) != 1:
            print("{}: cannot load one {} version from it ({})".format(recipe_path, cls_name, error),
                  file=sys.stderr)
            sys.exit(1)
        ver, sha = versions[0]["ver"], versions[0].get("sha256")
        defaults = {b["name"]: b.get("default") for n, b in recorded if n == "variant"}
        print(ver, sha, getattr(cls, "url", None), described(cmake_args(defaults, ver)))
        sys.exit(0)

    # 1. Statically: the directive names, before anything runs.
    tree = ast.parse(text, str(recipe_path))
    check("the recipe does `from spack.package import *`",
          any(isinstance(s, ast.ImportFrom) and s.module == "spack.package"
              and [a.name for a in s.names] == ["*"] for s in tree.body))
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef)]
    check("the recipe defines one class, {} (Spack's class name for package {})".format(cls_name, PACKAGE),
          [c.name for c in classes] == [cls_name])
    bad = [b for c in classes for b in unknown_calls(c.body)]
    check("the class body calls only Spack's directives ({}){}".format(
        ", ".join(DIRECTIVES), "; not Spack's: " + ", ".join(bad) if bad else ""), not bad)
    marked = re.findall(r"^\s*(url = |version\().*# @release-tarball$", text, re.M)
    check("one url and one version line marked '# @release-tarball' (release-tarball.sh writes them)",
          sorted(marked) == ["url = ", "version("])

    # 2. Run against the stand-in.
    check("the recipe runs against the stand-in spack.package (Spack 0.x)" + (": " + error if error else ""),
          error is None)
    check("and as Spack 1.x, with CMakePackage from spack_repo.builtin.build_systems.cmake"
          + (": " + error1 if error1 else ""),
          error1 is None and isinstance(cls1, type) and issubclass(cls1, CMakePackage)
          and directives1 == recorded)
    check("class {} is a CMakePackage".format(cls_name),
          isinstance(cls, type) and issubclass(cls, CMakePackage))
    if error or not (isinstance(cls, type) and issubclass(cls, CMakePackage)):
        done()

    # Source: this project's release tarball, not the Python Merlin's repository.
    sources = {k: v for k, v in vars(cls).items() if k in ("homepage", "url", "git", "list_url")}
    check("no homepage/url/git names github.com/LLNL/merlin (the Python Merlin, Spack's py-merlin)",
          not any("llnl/merlin" in str(v).lower() for v in sources.values()))
    check("no git source: Spack fetches the release tarball", "git" not in sources)
    doc = cls.__doc__ or ""
    check("the docstring states the bin/merlin clash with py-merlin",
          "py-merlin" in doc and "bin/merlin" in doc)
    check("one version", len(versions) == 1)
    if len(versions) != 1:
        done()
    v = versions[0]
    ver, sha, url = v["ver"], v.get("sha256", ""), getattr(cls, "url", "") or ""
    check("version '{}' is a Spack version without '+' (a variant there)".format(ver),
          isinstance(ver, str) and re.fullmatch(r"[0-9][A-Za-z0-9._-]*", ver) is not None)
    check("the version is pinned by sha256 alone (no git/tag/branch/commit, no other hash)",
          set(v) <= {"ver", "sha256", "preferred", "deprecated"} and re.fullmatch(r"[0-9a-f]{64}", sha) is not None)
    url_file = os.path.basename(urllib.parse.urlparse(url).path)
    check("url names the version's tarball merlin-cpp-{}.tar.gz (it is {})".format(ver, url or "unset"),
          url_file == "merlin-cpp-{}.tar.gz".format(ver))
    if args.tarball is None:
        check("the checked-in release lines are placeholders (file:///path/to/..., an all-zero sha256): "
              "a real hash there would be stale at the next commit",
              url.startswith("file:///path/to/") and sha == PLACEHOLDER_SHA256)
    else:
        tarball = pathlib.Path(args.tarball)
        actual = hashlib.sha256(tarball.read_bytes()).hexdigest()
        check("the version's sha256 is the tarball's ({})".format(actual), sha == actual)
        parsed = urllib.parse.urlparse(url)
        check("url is a file:// url of the tarball itself ({})".format(tarball),
              parsed.scheme == "file" and os.path.exists(parsed.path) and os.path.samefile(parsed.path, tarball))
        check("the version is the tarball's ({})".format(tarball.name),
              tarball.name == "merlin-cpp-{}.tar.gz".format(ver))

    variants = {b["name"]: b.get("default") for n, b in recorded if n == "variant"}
    check("variants rabbitmq and hdf5 on, mpi off by default: {}".format(variants),
          variants == {"rabbitmq": True, "hdf5": True, "mpi": False})
    check("every variant has a description",
          all(b.get("description", "").strip() for n, b in recorded if n == "variant"))
    deps = [b for n, b in recorded if n == "depends_on"]
    whens = {dep_name(b["spec"]): b.get("when") for b in deps}
    for d in ("yaml-cpp", "spdlog", "fmt", "hiredis", "cpp-httplib", "cli11", "nlohmann-json", "cmake"):
        check("depends on " + d + " always", d in whens and whens[d] is None)
    for d, var in (("rabbitmq-c", "rabbitmq"), ("hdf5", "hdf5"), ("mpi", "mpi")):
        check("depends on {} when +{}".format(d, var), whens.get(d) == "+" + var)
    check("spdlog with the external fmt (as Debian's)",
          any(dep_name(b["spec"]) == "spdlog" and "+fmt_external" in b["spec"] for b in deps))
    types_used = set()
    for b in deps:
        t = b.get("type", ())
        types_used |= {t} if isinstance(t, str) else set(t)
    check("dependency types are Spack's ({})".format(", ".join(sorted(types_used))),
          types_used <= DEPENDENCY_TYPES)

    # cmake_args for every combination of the three variants.
    cmake_lists = (src / "CMakeLists.txt").read_text()
    for combo in itertools.product([True, False], repeat=3):
        var = dict(zip(("rabbitmq", "hdf5", "mpi"), combo))
        got = cmake_args(var, ver)
        want = ["-DMERLIN_WITH_{}:BOOL={}".format(k.upper(), "ON" if on else "OFF") for k, on in var.items()]
        label = " ".join(("+" if on else "~") + k for k, on in var.items())
        check("cmake_args of {} sets {}".format(label, " ".join(want)), all(w in got for w in want))
    # MERLIN_GIT_DESCRIBE: what `git describe` said of the tarball's commit, for each version form
    # release-tarball.sh makes (cmake/merlin_version.cmake turns it into `merlin --version`).
    for form, want in (("0.1.0", "v0.1.0"), ("0.1.0-3-gabc1234", "v0.1.0-3-gabc1234"),
                       ("0.1.0-gabc1234", "abc1234")):
        got = described(cmake_args({"rabbitmq": True, "hdf5": True, "mpi": False}, form))
        check("version {} passes MERLIN_GIT_DESCRIBE={} (got {})".format(form, want, got), got == want)
    for opt in ("MERLIN_WITH_RABBITMQ", "MERLIN_WITH_HDF5", "MERLIN_WITH_MPI", "MERLIN_WITH_TORCH",
                "MERLIN_BUILD_TESTS"):
        check(opt + " is an option of CMakeLists.txt", re.search(r"option\(" + opt + r"\b", cmake_lists) is not None)
    check("MERLIN_GIT_DESCRIBE is a cache variable of CMakeLists.txt",
          re.search(r"set\(MERLIN_GIT_DESCRIBE\b[^)]*\bCACHE\b", cmake_lists) is not None)
    done()


if __name__ == "__main__":
    main()
