#!/usr/bin/env bash
# Builds merlin's two .debs (-O2, stripped, Debian's doc files: `cpack -G DEB`), checks them
# with lintian (no error or warning), and proves them on a fresh Debian 12: a minbase root made
# by mmdebstrap from Debian's archive (cached, made once per machine, in
# ${XDG_CACHE_HOME:-~/.cache}/merlin/), copied afresh for each run, both packages installed with
# `apt-get install ./merlin_*.deb ./merlin-dev_*.deb` inside it (dependencies from the archive),
# then `merlin example hello && merlin run --local hello/hello.yaml` run there and the workspace
# checked. docs/install.md has the packages' contents.
#
# Usage: containers/test-deb.sh [BUILD_DIR]   (default: ./build-deb; run as root: chroot)
# Environment: MERLIN_DEBIAN_MIRROR (default http://deb.debian.org/debian),
#   MERLIN_DEB_CMAKE_ARGS (more -D options for the package's build; merlin-train is left out
#   by default: libtorch would make the package pull gigabytes), KEEP_ROOT=1 keeps the root.
# Exit: 0 the package installed and ran hello; 1 it did not; 77 this machine cannot try
# (no root, no mmdebstrap/dpkg-shlibdeps, Debian's archive unreachable), with the reason.
# Time: about 70 s to make the cached root once, the build (minutes from scratch,
# seconds with ccache), and about 1 min to install the package's dependencies and run hello.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-deb}")
mirror=${MERLIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/merlin
base=$cache/debian12-minbase.tar
skip() { echo "SKIP: $*" >&2; exit 77; }
say() { echo "test-deb: $*" >&2; }
t0=$(date +%s)

[ "$(id -u)" = 0 ] || skip "needs root (chroot into the Debian root); run as root"
for tool in cmake cpack dpkg-deb dpkg-shlibdeps mmdebstrap unshare tar; do
  command -v $tool >/dev/null || skip "$tool not found (apt-get install cmake dpkg-dev mmdebstrap util-linux)"
done
command -v lintian >/dev/null || { echo "test-deb: lintian not found (apt-get install lintian): the packages are checked with it" >&2; exit 1; }
host=$(sed -E 's|^[a-z]+://([^/:]+).*|\1|' <<<"$mirror")
timeout 10 bash -c "exec 3<>/dev/tcp/$host/80" 2>/dev/null ||
  skip "Debian's archive ($mirror) is not reachable from here"

# 1. The package, installing under /usr and stripped by cpack. Compiled with the test suite's
# flags (tests/run_all.sh: -O2 -DNDEBUG, the level of Debian's own dpkg-buildflags), so that
# with ccache the suite's build serves its objects: 137 of 137 objects of one library came from
# the cache in a second, where compiling them took 3 min 17 s.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
say "building the package in $build"
mkdir -p "$build"
# shellcheck disable=SC2086
flags="-O2 -DNDEBUG"
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_INSTALL_PREFIX=/usr \
  -DMERLIN_DEBIAN_LAYOUT=ON -DMERLIN_BUILD_TESTS=OFF -DMERLIN_WITH_TORCH=OFF "${launcher[@]}" ${MERLIN_DEB_CMAKE_ARGS:-} >"$build/test-deb.configure.log" 2>&1 ||
  { tail -20 "$build/test-deb.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$build/test-deb.build.log" 2>&1 || { tail -30 "$build/test-deb.build.log"; exit 1; }
rm -f "$build"/merlin_*.deb "$build"/merlin-dev_*.deb
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { tail -30 "$build/cpack.log"; exit 1; }
deb=$(ls "$build"/merlin_*.deb)
dev=$(ls "$build"/merlin-dev_*.deb)
t_pkg=$(date +%s)
say "built $(basename "$deb") and $(basename "$dev") in $((t_pkg - t0)) s"
dpkg-deb -f "$deb" Package Version Depends Recommends >&2
dpkg-deb -f "$dev" Package Version Depends >&2
lintian_rc=0
lintian --fail-on error,warning --tag-display-limit 0 "$deb" "$dev" >"$build/lintian.log" 2>&1 || lintian_rc=$?
grep -v "running with root privileges" "$build/lintian.log" >&2 || true
t_lint=$(date +%s)

# 2. The cached minbase root, made once per machine.
if [ ! -f "$base" ]; then
  mkdir -p "$cache"
  say "making the Debian 12 minbase root (once per machine) in $base"
  mmdebstrap --variant=minbase --quiet bookworm "$base.tmp.tar" "$mirror" ||
    { rm -f "$base.tmp.tar"; echo "test-deb: mmdebstrap failed" >&2; exit 1; }
  mv "$base.tmp.tar" "$base"
fi
t_base=$(date +%s)

# 3. A fresh root from it; the package installed and hello run inside.
rootfs=$(mktemp -d /tmp/merlin-deb-root.XXXXXX)
cleanup() {
  if [ "${KEEP_ROOT:-0}" = 1 ]; then say "kept $rootfs"; else rm -rf "$rootfs"; fi
}
trap cleanup EXIT
tar -xf "$base" -C "$rootfs"
cp "$deb" "$dev" "$rootfs/tmp/"
cp /etc/resolv.conf "$rootfs/etc/resolv.conf" 2>/dev/null || true
# No daemons started by package scripts (redis-server is recommended): there is no init here.
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod 755 "$rootfs/usr/sbin/policy-rc.d"
cat >"$rootfs/tmp/inside.sh" <<INSIDE
set -eu
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
apt-get -q update >/tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }
apt-get -q -y install /tmp/$(basename "$deb") /tmp/$(basename "$dev") >>/tmp/apt.log 2>&1 || { tail -30 /tmp/apt.log; exit 1; }
echo "installed: \$(dpkg-query -W -f='\${Package} \${Version} ' merlin merlin-dev)"
merlin --version
test -x /usr/bin/merlin-guard
mkdir -p /tmp/t && cd /tmp/t
merlin example hello
merlin run --local --no-progress hello/hello.yaml
merlin status hello/hello.yaml --format csv
INSIDE
say "installing $(basename "$deb") into a fresh Debian 12 root and running hello"
rc=0
unshare --mount --pid --fork --propagation private bash -c "
  mount -t proc proc '$rootfs/proc' && mount --rbind /dev '$rootfs/dev' &&
  exec chroot '$rootfs' /bin/bash /tmp/inside.sh" >"$rootfs/../$(basename "$rootfs").log" 2>&1 || rc=$?
log=$rootfs/../$(basename "$rootfs").log
cat "$log" >&2
rm -f "$log"
t_run=$(date +%s)

# 4. The checks.
fails=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi; }
check "lintian finds no error or warning in either package (rc=$lintian_rc)" '[ $lintian_rc = 0 ]'
check "the packages installed and hello ran inside (rc=$rc)" '[ $rc = 0 ]'
check "merlin, merlin-guard and merlin-rank-env are in /usr/bin" '[ -x "$rootfs/usr/bin/merlin" ] && [ -x "$rootfs/usr/bin/merlin-guard" ] && [ -x "$rootfs/usr/bin/merlin-rank-env" ]'
check "the examples are in /usr/share/merlin/examples" '[ -f "$rootfs/usr/share/merlin/examples/hello/hello.yaml" ]'
check "the man pages are gzipped, merlin-guard and spellbook have theirs" \
  '[ -f "$rootfs/usr/share/man/man1/merlin.1.gz" ] && [ -f "$rootfs/usr/share/man/man1/merlin-guard.1.gz" ] && [ -f "$rootfs/usr/share/man/man1/spellbook.1.gz" ] && ! ls "$rootfs"/usr/share/man/man1/*.1 >/dev/null 2>&1'
check "Debian doc files: copyright (machine-readable), changelog.gz, changelog.Debian.gz" \
  'head -1 "$rootfs/usr/share/doc/merlin/copyright" | grep -q copyright-format && [ -f "$rootfs/usr/share/doc/merlin/changelog.gz" ] && [ -f "$rootfs/usr/share/doc/merlin-dev/changelog.Debian.gz" ]'
# The listings are read whole first: grep -q closing a pipe early would kill dpkg-deb (pipefail).
deb_files=$(dpkg-deb -c "$deb")
dev_files=$(dpkg-deb -c "$dev")
check "merlin has no headers or library; merlin-dev has them, the CMake package and merlin.pc" \
  '! grep -q "usr/include/" <<<"$deb_files" && grep -q "usr/include/merlin/core/spec/spec_loader.h" <<<"$dev_files" && grep -q "libmerlin_core.a" <<<"$dev_files" && grep -q "cmake/merlin/merlinConfig.cmake" <<<"$dev_files" && grep -q "pkgconfig/merlin.pc" <<<"$dev_files"'
check "merlin-dev needs merlin of its own version" \
  'dpkg-deb -f "$dev" Depends | grep -qF "merlin (= $(dpkg-deb -f "$deb" Version))"'
check "no Homepage of another project" '! dpkg-deb -f "$deb" Homepage | grep -q .'
check "the binaries are stripped (no .symtab)" \
  '! readelf -S "$rootfs/usr/bin/merlin" | grep -q "\.symtab" && ! readelf -S "$rootfs/usr/bin/merlin-guard" | grep -q "\.symtab"'
check "the package depends on its shared libraries (dpkg-shlibdeps)" \
  'dpkg-deb -f "$deb" Depends | grep -q libyaml-cpp && dpkg-deb -f "$deb" Depends | grep -q libhiredis'
ws=$(ls -d "$rootfs"/tmp/t/hello_* 2>/dev/null | head -1)
check "hello's workspace has both greetings" \
  '[ -n "$ws" ] && [ "$(cat "$ws"/step_1/*/step_1*.out 2>/dev/null | sort | tr "\n" " ")" = "hello, world! hola, mundo! " ]'
check "hello's Python step ran after them" 'grep -qs "Hurrah, we did it!" "$ws"/step_2/*.out'
say "times: package $((t_pkg - t0)) s, lintian $((t_lint - t_pkg)) s, base root $((t_base - t_lint)) s, install + hello $((t_run - t_base)) s, total $((t_run - t0)) s"
[ $fails = 0 ] && echo "test-deb: ok" || { echo "test-deb: $fails check(s) failed"; KEEP_ROOT=1; exit 1; }
