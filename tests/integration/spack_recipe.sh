#!/usr/bin/env bash
# containers/spack/package.py without Spack: it compiles (py_compile), and a stand-in
# spack.package module (tests/packaging/spack_stub_test.py) checks its variants rabbitmq/hdf5/mpi,
# its dependencies and that cmake_args maps each variant onto MERLIN_WITH_* for all 8 combinations.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "SKIP: no python3"; exit 77; }
check "package.py compiles" "$PY" -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile='$WORK/p.pyc', doraise=True)" "$SRC/containers/spack/package.py"
"$PY" "$SRC/tests/packaging/spack_stub_test.py" "$SRC" >stub.out 2>&1
rc=$?
cat stub.out
expect_eq "the stub-import checks of the recipe pass" 0 $rc
finish
