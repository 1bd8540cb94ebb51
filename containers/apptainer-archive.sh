#!/usr/bin/env bash
# Saves the podman image as the docker archive containers/merlin.def bootstraps from, and checks
# what can be checked without Apptainer (it is not packaged for Debian 12): the archive is a
# docker archive of that image, the def file names it, and the def's %environment + %runscript
# and %test, run by /bin/sh inside the same image under podman, work like `merlin`.
#   containers/apptainer-archive.sh [IMAGE] [ARCHIVE]
#   defaults: localhost/merlin:latest, build/containers/merlin-image.tar (under the repository)
# Exit 0 checked, 1 a check failed (the message says which).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
source "$here/podman-env.sh"
image=${1:-${MERLIN_IMAGE:-localhost/merlin:latest}}
archive=${2:-$root/build/containers/merlin-image.tar}
def=$here/merlin.def
die() { echo "apptainer-archive: $*" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
podman image exists "$image" || die "no image $image (containers/build-images.sh makes it)"
podman_probe "$image" || die "podman cannot run $image here: $PODMAN_PROBE_ERROR"
mkdir -p "$(dirname "$archive")"
rm -f "$archive"
podman save --quiet --format docker-archive -o "$archive" "$image"
# (No `| grep -q` under pipefail: grep's early exit would make tar die of SIGPIPE.)
manifest=$(tar -xOf "$archive" manifest.json 2>/dev/null) || die "$archive has no manifest.json (not a docker archive)"
id=$(podman image inspect --format '{{.Id}}' "$image")
[[ $manifest == *"${id:0:12}"* ]] || die "$archive does not hold $image ($id)"
echo "apptainer-archive: $archive ($(du -m "$archive" | cut -f1) MB) holds $image" >&2

# The def file: bootstrap agent and source.
grep -qx 'Bootstrap: docker-archive' "$def" || die "$def does not bootstrap from a docker-archive"
from=$(sed -n 's/^From: *//p' "$def")
[ "$(realpath -m "$root/$from")" = "$(realpath -m "$archive")" ] ||
  echo "apptainer-archive: note: $def's From: ($from) is not $archive; build with that file there" >&2

# A section's body: the lines after %NAME up to the next %section.
section() { awk -v s="%$1" '$1 ~ /^%/ {on = ($1 == s); next} on' "$def"; }
for s in labels environment post runscript test help; do
  [ -n "$(section $s | tr -d '[:space:]')" ] || die "$def has no %$s section"
done
# Apptainer runs %runscript (and %test) with /bin/sh after sourcing %environment.
in_image() {  # in_image SECTION ARGS...: the section as Apptainer would run it, in the image
  local s=$1; shift
  "${PODMAN[@]}" run --rm "${PODMAN_RUN_OPTS[@]}" --entrypoint /bin/sh "$image" \
    -c "$(section environment)
$(section "$s")" merlin-$s "$@"
}
want=$("${PODMAN[@]}" run --rm "${PODMAN_RUN_OPTS[@]}" "$image" --version)
got=$(in_image runscript --version) || die "%runscript --version failed"
[ "$got" = "$want" ] || die "%runscript --version printed '$got', the image's entrypoint '$want'"
in_image test >/dev/null || die "%test failed"
# The runscript passes arguments through unchanged (spaces, quotes) and its exit code.
set +e
in_image runscript run "no such file.yaml" >"$tmp/runscript.err" 2>&1
rc=$?
"${PODMAN[@]}" run --rm "${PODMAN_RUN_OPTS[@]}" "$image" run "no such file.yaml" >"$tmp/entrypoint.err" 2>&1
want_rc=$?
set -e
[ "$rc" = "$want_rc" ] && [ "$rc" != 0 ] ||
  die "%runscript run 'no such file.yaml' exited $rc, the entrypoint $want_rc"
cmp -s "$tmp/runscript.err" "$tmp/entrypoint.err" ||
  die "%runscript passed the argument with a space differently: $(cat "$tmp/runscript.err")"
echo "apptainer-archive: merlin.def's %environment/%runscript/%test behave as the image's entrypoint ($want)" >&2
