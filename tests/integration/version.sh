#!/usr/bin/env bash
# The version baked in at build time (cmake/merlin_version.cmake): `merlin --version` and
# `merlin info` name it; built from a git checkout, it carries the commit it was built from
# (so rebuild after committing before running this test by hand).
source "$(dirname "$0")/lib.sh"

v=$("$MERLIN" --version)
check "--version has the form merlin X.Y.Z[+N.gHASH|+gHASH][.dirty] ($v)" \
  grep -Eq '^merlin [0-9]+\.[0-9]+\.[0-9]+(\+([0-9]+\.)?g[0-9a-f]+)?(\.dirty|\+dirty)? ' <<<"$v"
number=$(awk '{ print $2 }' <<<"$v")
check "merlin info names the same version" grep -qF "merlin $number" <("$MERLIN" info 2>/dev/null)
if command -v git >/dev/null && git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
  tag=$(git -C "$SRC" describe --tags --match 'v[0-9]*' --exact-match 2>/dev/null || true)
  if [ -n "$tag" ]; then
    check "on tag $tag the version is its number" grep -q "^${tag#v}" <<<"$number"
  else
    head=$(git -C "$SRC" rev-parse --short HEAD)
    check "built from a checkout, the version carries its commit ($head)" grep -q "g$head" <<<"$number"
  fi
else
  echo "note: $SRC is not a git checkout: the version is the project's alone"
fi
finish
