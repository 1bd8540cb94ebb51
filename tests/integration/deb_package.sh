#!/usr/bin/env bash
# The Debian package on a fresh Debian 12 (docs/install.md): containers/test-deb.sh makes a
# build into <build dir>/deb, packs it with cpack, installs the .deb with apt-get into a
# fresh minbase root made by mmdebstrap (cached once per machine), and runs the hello example
# there. Runs by default: minutes the first time on a machine (the build, unless ccache has
# the suite's objects; the root), about a minute after. Skips (77) with the reason when MERLIN_TEST_PACKAGES=0 or when the
# script cannot try here (not root, no mmdebstrap, Debian's archive unreachable).
source "$(dirname "$0")/lib.sh"
if [ "${MERLIN_TEST_PACKAGES:-1}" = 0 ]; then
  echo "SKIP: MERLIN_TEST_PACKAGES=0 (unset it to build and install the .deb)"
  exit 77
fi
set +e
bash "$SRC/containers/test-deb.sh" "$(dirname "$MERLIN")/deb" >deb.out 2>deb.err
rc=$?
set -e
cat deb.out
if [ $rc = 77 ]; then
  echo "SKIP: $(grep '^SKIP' deb.err | tail -1)"
  exit 77
fi
[ $rc = 0 ] || tail -40 deb.err
expect_eq "test-deb.sh: exit 0 (the .deb installed on a fresh Debian 12 and ran hello)" 0 "$rc"
grep -h '^test-deb: times' deb.err || true
finish
