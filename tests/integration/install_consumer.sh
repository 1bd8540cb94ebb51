#!/usr/bin/env bash
# The installed merlin (issue #15): `cmake --install` of this build into a temp prefix, moved
# elsewhere afterwards (relocatable), then — with the source and build trees hidden under an
# empty tmpfs when this machine allows a private mount namespace — a consumer project
# (tests/packaging/consumer) finds the package with find_package(merlin), links merlin::core,
# runs merlin::merlin as a build step, and prints a spec's steps; and the installed merlin
# copies the hello example from its own share/ and runs it with --local.
source "$(dirname "$0")/lib.sh"
BUILD=$(dirname "$MERLIN")
for tool in cmake c++; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
[ -f "$BUILD/cmake_install.cmake" ] || { echo "SKIP: $BUILD is not a CMake build tree"; exit 77; }

cmake --install "$BUILD" --prefix "$WORK/first" >install.log 2>&1
expect_eq "cmake --install into a temp prefix succeeds" 0 $?
mv "$WORK/first" "$WORK/prefix"  # nothing may point back at the first prefix
P=$WORK/prefix
check "merlin, merlin-guard and merlin-rank-env are installed side by side" \
  test -x "$P/bin/merlin" -a -x "$P/bin/merlin-guard" -a -x "$P/bin/merlin-rank-env"
check "the hello example is under share/merlin/examples" test -f "$P/share/merlin/examples/hello/hello.yaml"
check "spellbook is in bin/, its other commands' module in share/merlin/python" \
  test -x "$P/bin/spellbook" -a -f "$P/share/merlin/python/spellbook_ml.py"
printf '{"a": 1}' >one.json
check "the installed spellbook finds that module (collect runs)" \
  bash -c "'$P/bin/spellbook' collect -instring one.json -outfile all.json && grep -qF '[{\"a\": 1}]' all.json"
check "LICENSE and CHANGELOG are in the doc dir" test -f "$P/share/doc/merlin/LICENSE" -a -f "$P/share/doc/merlin/CHANGELOG.md"
check "the bash completion is installed" test -f "$P/share/bash-completion/completions/merlin"
if [ -f "$BUILD/share/man/man1/merlin.1" ]; then  # built unless -DMERLIN_MAN_PAGES=OFF
  check "the man pages are installed, gzipped" \
    test -f "$P/share/man/man1/merlin.1.gz" -a -f "$P/share/man/man1/merlin-run.1.gz"
  check "merlin-guard, merlin-rank-env and spellbook have pages" test -f "$P/share/man/man1/merlin-guard.1.gz" \
    -a -f "$P/share/man/man1/merlin-rank-env.1.gz" -a -f "$P/share/man/man1/spellbook.1.gz"
  check "no page is installed uncompressed" bash -c "! ls '$P'/share/man/man1/*.1 2>/dev/null | grep -q ."
fi
pc=$(find "$P" -name merlin.pc | head -1)
check "merlin.pc is installed in the library's pkgconfig dir" test -n "$pc"
check "the library's headers are installed" test -f "$P/include/merlin/core/spec/spec_loader.h"
config=$(find "$P" -name merlinConfig.cmake | head -1)
check "merlinConfig.cmake and its version file are installed" \
  test -n "$config" -a -f "$(dirname "$config")/merlinConfigVersion.cmake"
check "the CMake package, headers and examples do not name the build tree" \
  bash -c "! grep -rlF '$BUILD' '$(dirname "$config")' '$P/include' '$P/share/merlin'"

cp -r "$SRC/tests/packaging/consumer" "$WORK/consumer"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# Everything below runs in a script, inside a private mount namespace that hides $SRC (and the
# build tree under it) when unshare allows it, else as it is (and says so).
cat >inside.sh <<INSIDE
set -u
cd "$WORK"
cmake -S consumer -B consumer-build ${generator[*]} -DCMAKE_PREFIX_PATH="$P" >consumer-configure.log 2>&1 || echo "configure failed" >>errors
cmake --build consumer-build >consumer-build.log 2>&1 || echo "build failed" >>errors
consumer-build/list_steps consumer/two_steps.yaml >steps.txt 2>steps.err || echo "list_steps failed" >>errors
# The same program built without CMake: pkg-config's flags only.
if command -v pkg-config >/dev/null; then
  PKG_CONFIG_PATH="\$(dirname "$pc")" c++ -std=c++17 -o pc_list_steps consumer/list_steps.cc consumer/step_count.cc \
    \$(PKG_CONFIG_PATH="\$(dirname "$pc")" pkg-config --cflags --libs merlin) >pc-build.log 2>&1 || echo "pkg-config build failed" >>errors
  ./pc_list_steps consumer/two_steps.yaml >pc-steps.txt 2>pc-steps.err || echo "pkg-config list_steps failed" >>errors
fi
mkdir -p run && cd run
"$P/bin/merlin" example hello >example.out 2>example.err || echo "example failed" >>../errors
PATH="$P/bin:\$PATH" merlin run --local --no-progress hello/hello.yaml >run.out 2>run.err || echo "run failed" >>../errors
PATH="$P/bin:\$PATH" merlin status hello/hello.yaml --format csv >status.csv 2>status.err || echo "status failed" >>../errors
test -d "$SRC/examples" && echo "source visible" >../visible || true
INSIDE
hidden=no
if unshare --mount --propagation private true 2>/dev/null; then
  hidden=yes
  unshare --mount --propagation private bash -c "mount -t tmpfs none '$SRC' && bash '$WORK/inside.sh'"
elif unshare --user --map-root-user --mount true 2>/dev/null; then
  hidden=yes
  unshare --user --map-root-user --mount bash -c "mount -t tmpfs none '$SRC' && bash '$WORK/inside.sh'"
else
  echo "note: no private mount namespace here; the source tree stays visible"
  bash inside.sh
fi
if [ "$hidden" = yes ]; then
  check "the source tree was hidden while the installed merlin ran" test ! -e visible
fi
expect_eq "configure, build, list_steps, example, run and status all succeeded" "" "$(cat errors 2>/dev/null)"
for log in consumer-configure.log consumer-build.log steps.err pc-build.log pc-steps.err run/example.err run/run.err; do
  [ -s errors ] && [ -f "$log" ] && { echo "--- $log"; tail -15 "$log"; }
done
check "the consumer found merlin in the moved prefix" grep -qF "$P" consumer-build/CMakeCache.txt
check "merlin::merlin validated the spec as a build step" test -f consumer-build/validated.txt
expect_eq "the consumer printed the spec's study and steps" \
  "study consumer_demo
step make_data
step use_data
steps 2 (through a shared library)" "$(tail -n +2 steps.txt)"
if command -v pkg-config >/dev/null; then
  expect_eq "built with pkg-config's flags alone, it prints the same" "$(cat steps.txt)" "$(cat pc-steps.txt)"
else
  echo "note: no pkg-config here: merlin.pc is not tried (apt-get install pkg-config)"
fi
expect_eq "the consumer links the build's version" "merlin $("$MERLIN" --version | awk '{print $2}')" \
  "$(head -1 steps.txt)"
check "the installed merlin copied hello from its own prefix" test -f run/hello/hello.yaml
# status --format csv: step,instances,total,done,failed,...: every step done, none failed.
check "hello ran to the end: every step's tasks done, none failed" awk -F, \
  'NR > 1 { n++; if ($3 != $4 || $5 != 0) bad = 1 } END { exit bad || n != 2 }' run/status.csv
check "step_2 ran in Python after both greetings" \
  grep -rqs "Hurrah, we did it!" run/hello_*/step_2
finish
