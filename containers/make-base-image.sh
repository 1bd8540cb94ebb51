#!/usr/bin/env bash
# Makes the Debian 12 (bookworm) base image of containers/Dockerfile locally, without any
# registry: mmdebstrap writes a minbase root filesystem as a tar, `podman import` turns it into
# an image. Idempotent: an existing image is reused (--force makes it again).
#
#   containers/make-base-image.sh [--force] [--tag TAG]
#   env: MERLIN_BASE_IMAGE (default localhost/merlin-base:bookworm)
#        MERLIN_DEBIAN_MIRROR (default http://deb.debian.org/debian)
#        MERLIN_DEBIAN_SECURITY (default http://deb.debian.org/debian-security)
#
# Needs root (mmdebstrap's root mode), mmdebstrap and podman (apt-get install mmdebstrap podman
# runc). About 1 minute with a nearby archive; the image is 127 MB.
# Exit codes: 0 made or reused, 1 failed, 2 bad arguments.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/podman-env.sh"

tag=${MERLIN_BASE_IMAGE:-localhost/merlin-base:bookworm}
mirror=${MERLIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${MERLIN_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
force=0
while [ $# -gt 0 ]; do
  case $1 in
    --force) force=1 ;;
    --tag) [ $# -ge 2 ] || { echo "make-base-image: --tag needs a value" >&2; exit 2; }; tag=$2; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make-base-image: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

for tool in mmdebstrap podman; do
  command -v $tool >/dev/null || { echo "make-base-image: $tool not found (apt-get install $tool)" >&2; exit 1; }
done

if [ $force = 0 ] && podman image exists "$tag"; then
  echo "make-base-image: $tag exists, reused" >&2
  exit 0
fi

tmp=$(mktemp -d /tmp/merlin-base.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
echo "make-base-image: mmdebstrap bookworm (minbase) from $mirror" >&2
# No documentation, manual pages or translations (copyright files stay): a smaller image.
# The lists and the package cache are left empty; `apt-get update` first in derived images.
if ! mmdebstrap --variant=minbase --format=tar \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --aptopt='APT::Install-Recommends "false"' \
    bookworm "$tmp/rootfs.tar" \
    "deb $mirror bookworm main" \
    "deb $mirror bookworm-updates main" \
    "deb $security bookworm-security main" >"$tmp/mmdebstrap.log" 2>&1; then
  tail -20 "$tmp/mmdebstrap.log" >&2
  echo "make-base-image: mmdebstrap failed" >&2
  exit 1
fi
podman import \
  --change 'CMD ["/bin/bash"]' \
  --change 'ENV LANG=C.UTF-8' \
  --quiet --message "merlin base: Debian 12 minbase by mmdebstrap" \
  "$tmp/rootfs.tar" "$tag" >/dev/null
# The first image made here is the one that tells us the runtime settings work.
if ! podman_probe "$tag"; then
  echo "make-base-image: $tag was made but podman cannot run it here: $PODMAN_PROBE_ERROR" >&2
  exit 1
fi
echo "make-base-image: $tag made in $((SECONDS - start)) s ($(podman image inspect --format '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1/1e6}'))" >&2
