#!/usr/bin/env bash
# The Spack recipe containers/spack/package.py without Spack (not installable here):
# 1. the checked-in recipe compiles, and tests/packaging/spack_stub_test.py checks it: only
#    Spack's directive names (statically, and by running it against a stand-in spack.package),
#    class MerlinCpp, variants (mpi off), dependencies, cmake_args, placeholder release lines;
# 2. containers/spack/release-tarball.sh makes the tarball from HEAD's committed tree (git
#    archive) and renders the recipe for it: its sha256 is sha256sum's, its url names the file,
#    and `merlin --version` of a build from it matches a git build of HEAD;
# 3. the tag forms of the version (X.Y.Z, X.Y.Z-N-gHASH), in a clone with a tag of its own;
# 4. planted faults the checker must reject: a misspelt directive, mpi on by default, an unknown
#    keyword, a wrong Spack 1.x import, the Python Merlin's homepage, a wrong sha256; and
#    release-tarball.sh refuses a recipe without the marked release lines.
# Everything is written under the test's temp dir.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3  # Debian's (the python3 on PATH may be another one)
[ -x "$PY" ] || { echo "SKIP: no $PY (apt-get install python3)"; exit 77; }
git -C "$SRC" rev-parse --verify --quiet HEAD >/dev/null ||
  { echo "SKIP: $SRC is not a git checkout (the release tarball is a git archive)"; exit 77; }
STUB=$SRC/tests/packaging/spack_stub_test.py
RECIPE=$SRC/containers/spack/package.py

# stub OUT ARGS...: the stub checker on ARGS, its output in OUT; its exit status in RC.
stub() { local out=$1; shift; RC=0; "$PY" "$STUB" "$SRC" "$@" >"$out" 2>&1 || RC=$?; }
# has_fail FILE TEXT: FILE has a FAIL line containing TEXT.
has_fail() { awk -v t="$2" 'index($0, "FAIL ") == 1 && index($0, t) { f = 1 } END { exit !f }' "$1"; }
# release SCRIPT REV NAME: SCRIPT (a release-tarball.sh) --recipe, into $WORK/NAME; sets TB (the
# tarball), SHA (printed) and RV RSHA RURL RDESC (the rendered recipe's version, sha256, url and
# MERLIN_GIT_DESCRIBE). Returns the script's exit status.
release() {
  local rc=0
  "$1" --recipe "$WORK/$3/package.py" "$2" "$WORK/$3" >"$WORK/$3.out" 2>"$WORK/$3.err" || rc=$?
  [ $rc = 0 ] || { cat "$WORK/$3.err"; return $rc; }
  read -r SHA TB <"$WORK/$3.out"
  "$PY" "$STUB" "$SRC" "$WORK/$3/package.py" --print-release >"$WORK/$3.release" || return 1
  read -r RV RSHA RURL RDESC <"$WORK/$3.release"
}
# version_of DESCRIBED: what cmake/merlin_version.cmake makes `merlin --version` of a build
# without .git given -DMERLIN_GIT_DESCRIBE=DESCRIBED (as the recipe's cmake_args pass it).
BASE=$(git -C "$SRC" show HEAD:CMakeLists.txt | sed -n -E 's/^project\(merlin VERSION ([0-9.]+).*/\1/p')
version_of() {
  cmake -DSRC="$WORK/nogit" -DOUT="$WORK/nogit/merlin_version.cc" -DBASE="$BASE" -DDESCRIBED="$1" \
    -P "$SRC/cmake/merlin_version.cmake" >/dev/null && cat "$WORK/nogit/merlin_version.txt"
}

# 1. The checked-in recipe.
check "package.py compiles" "$PY" -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile='$WORK/p.pyc', doraise=True)" "$RECIPE"
stub checked-in.out
cat checked-in.out
expect_eq "the stub checks of the checked-in recipe pass" 0 $RC

# 2. The tarball of HEAD and the recipe rendered for it.
rc=0; release "$SRC/containers/spack/release-tarball.sh" HEAD dist || rc=$?
expect_eq "release-tarball.sh --recipe HEAD exits 0" 0 $rc
[ $rc = 0 ] || { finish; exit; }
name=$(basename "$TB" .tar.gz)
version=${name#merlin-cpp-}
echo "     made $TB ($(du -k "$TB" | cut -f1) kB)"
actual=$(sha256sum "$TB" | cut -d' ' -f1)
expect_eq "the printed sha256 is sha256sum's" "$actual" "$SHA"
short=$(git -C "$SRC" rev-parse --short HEAD)
if tag=$(git -C "$SRC" describe --tags --match 'v[0-9]*' --exact-match HEAD 2>/dev/null); then
  expect_eq "the version is HEAD's tag" "${tag#v}" "$version"
else
  check "the version $version names HEAD's commit ($short)" test "${version%-g"$short"}" != "$version"
fi
tar -tzf "$TB" >listing
git -C "$SRC" -c core.quotePath=false ls-tree -r --name-only HEAD | sed "s|^|$name/|" | LC_ALL=C sort >want.files
grep -v '/$' listing | LC_ALL=C sort >got.files || true
check "every path in it is under $name/" awk -v p="$name/" 'index($0, p) != 1 { bad = 1 } END { exit bad }' listing
check "it holds exactly HEAD's committed files ($(wc -l <want.files))" cmp -s want.files got.files
"$SRC/containers/spack/release-tarball.sh" HEAD "$WORK/again" >again.out 2>/dev/null
expect_eq "made again from HEAD, it is byte-identical" "$SHA" "$(cut -d' ' -f1 again.out)"

check "the rendered package.py compiles" "$PY" -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile='$WORK/r.pyc', doraise=True)" "$WORK/dist/package.py"
expect_eq "the rendered recipe's sha256 is sha256sum of the tarball" "$actual" "$RSHA"
expect_eq "its url names that file" "file://$TB" "$RURL"
expect_eq "its version is the tarball's" "$version" "$RV"
diff "$RECIPE" "$WORK/dist/package.py" >render.diff || true
expect_eq "rendering changed the two marked lines only" 2 "$(grep -c '^> .*# @release-tarball$' render.diff || true)"
stub rendered.out "$WORK/dist/package.py" --tarball "$TB"
grep -vxF -f checked-in.out rendered.out || true  # (the lines the checked-in run did not print)
expect_eq "the stub checks of the rendered recipe pass, against the tarball" 0 $RC
if command -v cmake >/dev/null; then
  # The git build runs the same script on the checkout (git describe --dirty).
  cmake -DSRC="$SRC" -DOUT="$WORK/git/merlin_version.cc" -DBASE="$BASE" -P "$SRC/cmake/merlin_version.cmake" >/dev/null
  git_version=$(cat "$WORK/git/merlin_version.txt")
  git_version=${git_version%[.+]dirty}  # the checkout's uncommitted changes, not in the tarball
  expect_eq "merlin --version of a Spack build is a git build's of HEAD ($git_version)" "$git_version" "$(version_of "$RDESC")"
else
  echo "     (no cmake: merlin --version of a Spack build not checked)"
fi

HEAD_TB=$TB HEAD_SHA=$RSHA HEAD_RECIPE=$WORK/dist/package.py

# 3. The tag forms, in a clone (objects shared, no checkout) with a tag v$BASE on HEAD and a
#    commit after it; the clone gets this checkout's script and recipe.
git clone --quiet --shared --no-checkout "$SRC" "$WORK/clone"
mkdir -p "$WORK/clone/containers/spack"
cp "$SRC/containers/spack/release-tarball.sh" "$RECIPE" "$WORK/clone/containers/spack/"
git -C "$WORK/clone" tag "v$BASE" HEAD
next=$(git -C "$WORK/clone" -c user.name=test -c user.email=test@localhost commit-tree -p HEAD -m next "HEAD^{tree}")
nshort=$(git -C "$WORK/clone" rev-parse --short "$next")
# REV, the version it gets, and `merlin --version` of a build from its tarball (the forms
# cmake/merlin_version.cmake documents for a git build).
for form in "v$BASE tagged $BASE $BASE" "$next after $BASE-1-g$nshort $BASE+1.g$nshort"; do
  read -r rev dir want want_version <<<"$form"
  rc=0; RV=""; release "$WORK/clone/containers/spack/release-tarball.sh" "$rev" "$dir" || rc=$?
  expect_eq "$dir: the tarball is merlin-cpp-$want.tar.gz, the recipe's version $want" \
    "0 merlin-cpp-$want.tar.gz $want" "$rc $(basename "$TB") $RV"
  if command -v cmake >/dev/null; then
    expect_eq "$dir: merlin --version of its build is $want_version" "$want_version" "$(version_of "$RDESC")"
  fi
done
sed -i 's/  # @release-tarball$//' "$WORK/clone/containers/spack/package.py"
rc=0; "$WORK/clone/containers/spack/release-tarball.sh" --recipe "$WORK/unmarked.py" HEAD "$WORK/unmarked" >/dev/null 2>unmarked.err || rc=$?
check "a recipe without the marked lines is refused: $(tail -n1 unmarked.err)" test $rc = 1 -a ! -e "$WORK/unmarked.py"

# 4. Planted faults: the checker must reject each, for its reason.
# plant NAME FROM SED-EXPR WANT [STUB ARGS...]: FROM edited by SED-EXPR into NAME.py must fail a
# check whose line contains WANT.
plant() {
  local n=$1 from=$2 expr=$3 want=$4
  shift 4
  sed "$expr" "$from" >"$n.py"
  if cmp -s "$from" "$n.py"; then fail "planted $n: the edit '$expr' changed nothing"; return; fi
  stub "$n.out" "$WORK/$n.py" "$@"
  if [ $RC = 1 ] && has_fail "$n.out" "$want"; then
    pass "planted $n is rejected: $(awk -v t="$want" 'index($0, "FAIL ") == 1 && index($0, t) { print substr($0, 6); exit }' "$n.out")"
  else
    fail "planted $n is not rejected for '$want' (exit $RC)"; cat "$n.out"
  fi
}
plant misspelt "$RECIPE" 's/depends_on("hiredis")/depends("hiredis")/' "not Spack's: depends (line"
check "  and running it fails too" has_fail misspelt.out "NameError: name 'depends' is not defined"
plant mpi-on "$RECIPE" 's/variant("mpi", default=False/variant("mpi", default=True/' "mpi off by default"
plant unknown-keyword "$RECIPE" 's/variant("hdf5", default=True/variant("hdf5", defualt=True/' "unexpected keyword argument 'defualt'"
plant spack1-import "$RECIPE" 's/build_systems\.cmake import/build_system.cmake import/' "and as Spack 1.x"
plant python-merlin "$RECIPE" 's|^    license("MIT")|    homepage = "https://github.com/LLNL/merlin"\n&|' "names github.com/LLNL/merlin"
wrong=${HEAD_SHA:0:63}$([ "${HEAD_SHA:63}" = 0 ] && echo 1 || echo 0)  # the last digit changed
plant wrong-sha256 "$HEAD_RECIPE" "s/$HEAD_SHA/$wrong/" "sha256 is the tarball's" --tarball "$HEAD_TB"
finish
