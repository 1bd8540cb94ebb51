#!/usr/bin/env bash
# Builds merlin's container images on this machine and proves the result runs the hello example:
#   1. the Debian 12 base image (containers/make-base-image.sh; reused when present)
#   2. the workers' image from containers/Dockerfile (podman build; tag localhost/merlin:latest)
#   3. the docker archive containers/merlin.def bootstraps from, and its runscript checked in
#      the podman image (containers/apptainer-archive.sh)
#   4. in the image, as its non-root user: `merlin example hello`, `merlin run --local
#      hello.yaml`, and the workspace checked from the host
#
#   containers/build-images.sh [--train] [--no-cache] [--tag TAG] [--jobs N] [--from-deb FILE]
#   env: MERLIN_IMAGE (default localhost/merlin:latest), MERLIN_BASE_IMAGE, JOBS
#   --train      also build merlin-train (libtorch + MPI; much larger and slower)
#   --no-cache   rebuild every layer (the base image and the ccache mount are still reused)
#   --from-deb FILE  take merlin from its .deb (containers/test-deb.sh makes one) instead of
#                compiling the tree: no compiler stage, about a minute (not with --train)
# Needs root, podman, mmdebstrap and (on hybrid-cgroup machines) runc. On our 2-core machine:
# about 30 s when built before, 5-20 minutes the first time (docs/containers.md).
# Exit 0 built and checked, 1 failed, 2 bad arguments.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
source "$here/podman-env.sh"

image=${MERLIN_IMAGE:-localhost/merlin:latest}
base=${MERLIN_BASE_IMAGE:-localhost/merlin-base:bookworm}
jobs=${JOBS:-2}
build_args=()
deb=""
while [ $# -gt 0 ]; do
  case $1 in
    --train) build_args+=(--build-arg WITH_TRAIN=1) ;;
    --no-cache) build_args+=(--no-cache) ;;
    --tag) [ $# -ge 2 ] || { echo "build-images: --tag needs a value" >&2; exit 2; }; image=$2; shift ;;
    --from-deb) [ $# -ge 2 ] && [ -f "$2" ] || { echo "build-images: --from-deb needs an existing .deb file" >&2; exit 2; }
      deb=$(realpath "$2"); shift ;;
    --jobs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "build-images: --jobs needs a positive number" >&2; exit 2; }; jobs=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-images: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case " ${build_args[*]} " in *" WITH_TRAIN=1 "*) [ -z "$deb" ] ||
  { echo "build-images: --train and --from-deb exclude each other (the .deb has no merlin-train)" >&2; exit 2; } ;; esac
die() { echo "build-images: $*" >&2; exit 1; }
stamp() { echo "build-images: [$((SECONDS - t0)) s] $*" >&2; }
t0=$SECONDS

# 1. base
MERLIN_BASE_IMAGE=$base "$here/make-base-image.sh" || die "no base image"
podman_probe "$base" || die "podman cannot run containers here: $PODMAN_PROBE_ERROR"
stamp "base $base ready; podman settings: ${PODMAN[*]:1} ${PODMAN_RUN_OPTS[*]}"

# 2. the image. .git is not in the build context: `git describe` is passed in for the version
# `merlin --version` prints, and recorded as a label.
version=$(git -C "$root" describe --tags --match 'v[0-9]*' --always --dirty 2>/dev/null || echo unknown)
[ "$version" = unknown ] || build_args+=(--build-arg GIT_DESCRIBE="$version")
log=$root/build/containers/podman-build.log
mkdir -p "$(dirname "$log")"
# The .deb goes into the build context at the one place .dockerignore lets through.
payload=$root/build/containers/payload
rm -rf "$payload"
# PAYLOAD is always passed: podman 4.3 decides which stages to build from the --build-arg
# values alone, so the Dockerfile's default would leave the builder stage out.
if [ -z "$deb" ]; then
  build_args+=(--build-arg PAYLOAD=builder)
else
  mkdir -p "$payload"
  cp "$deb" "$payload/"
  build_args+=(--build-arg PAYLOAD=package)
  trap 'rm -rf "$payload"' EXIT
  stamp "merlin from $(basename "$deb"), not compiled"
fi
if ! "${PODMAN[@]}" build "${PODMAN_BUILD_OPTS[@]}" "${PODMAN_RUN_OPTS[@]}" \
    --build-arg BASE_IMAGE="$base" --build-arg JOBS="$jobs" "${build_args[@]}" \
    --label org.opencontainers.image.version="$version" \
    -f "$here/Dockerfile" -t "$image" "$root" >"$log" 2>&1; then
  tail -30 "$log" >&2
  die "podman build failed (log: $log)"
fi
size=$(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f", $1/1e6}')
stamp "image $image built ($size MB; log $log)"

# 3. the Apptainer archive and def file
"$here/apptainer-archive.sh" "$image" "$root/build/containers/merlin-image.tar" || die "Apptainer check failed"
stamp "Apptainer archive saved and merlin.def checked"

# 4. the hello example, as the image's user (uid 1000) in a directory it owns
work=$(mktemp -d /tmp/merlin-image-hello.XXXXXX)
trap 'rm -rf "$work" "$payload"' EXIT
chown 1000:1000 "$work"
run() { "${PODMAN[@]}" run --rm "${PODMAN_RUN_OPTS[@]}" -v "$work:/work" -w "$1" "$image" "${@:2}"; }
run /work example hello >"$work/example.out" 2>&1 || { cat "$work/example.out" >&2; die "merlin example hello failed in the image"; }
[ -f "$work/hello/hello.yaml" ] || die "merlin example hello made no hello/hello.yaml: $(cat "$work/example.out")"
run /work/hello run --local hello.yaml >"$work/run.out" 2>&1 || { cat "$work/run.out" >&2; die "merlin run --local hello.yaml failed in the image"; }
ws=$(find "$work/hello" -maxdepth 1 -type d -name 'hello_*' -print -quit)
[ -n "$ws" ] || die "no hello_* workspace was made: $(cat "$work/run.out")"
outs=$(find "$ws/step_1" -name '*.out' -exec cat {} + | LC_ALL=C sort | tr '\n' '|')
[ "$outs" = "hello, world!|hola, mundo!|" ] || die "step_1's outputs are '$outs'"
grep -rqx 'Hurrah, we did it!' "$ws/step_2" || die "step_2 printed no 'Hurrah, we did it!'"
[ "$(stat -c %u "$ws/step_2")" = 1000 ] || die "the workspace is not owned by uid 1000"
stamp "hello example ran in $image as uid 1000: $(basename "$ws") checked"
echo "$image $size MB"
