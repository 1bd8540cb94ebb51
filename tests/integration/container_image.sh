#!/usr/bin/env bash
# The workers' container image (docs/containers.md): containers/build-images.sh makes the local
# Debian 12 base, builds containers/Dockerfile, saves and checks the Apptainer archive, and runs
# the hello example inside; then the image's properties (non-root uid 1000, entrypoint merlin,
# no compilers, size), a step of two MPI ranks, and a distributed smoke: a redis-server on the host's loopback, `merlin
# run` on the host, `merlin run-workers` in the container (--network host, the workspace
# mounted at the same path).
# Runs by default: with the base image and the build's ccache mount kept by podman, a rebuild
# takes about 30 s (the first build on a machine takes minutes: docs/containers.md has the
# figures). Skips (77) with the reason when MERLIN_TEST_CONTAINERS=0, when not root, when the
# base image cannot be made (no mmdebstrap, no archive) or podman cannot run containers here.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/container_lib.sh"
need_containers
image=localhost/merlin:test-${WORK##*.}  # one tag per run: concurrent runs do not untag each other
CLEANUP+=("podman rmi -f $image")
# Every rebuild after a source change leaves the previous build's images untagged (hundreds of
# MB each): prune this project's (by label) when done; the layers a warm rebuild reuses stay.
CLEANUP+=("podman image prune -f --filter label=io.merlin.image")

# --- build and the hello example in the image --------------------------------------------
# When integration.deb_package (which ctest runs first) has just made the .deb of this build,
# the image takes merlin from it instead of compiling the tree a second time (a build
# of 6 CPU-minutes, and the compilers' apt layer). MERLIN_TEST_IMAGE_FROM_SOURCE=1 compiles.
from=()
deb=$(ls -t "$(dirname "$MERLIN")"/deb/merlin_*.deb 2>/dev/null | head -1 || true)
if [ "${MERLIN_TEST_IMAGE_FROM_SOURCE:-0}" != 1 ] && [ -n "$deb" ] && [ "$deb" -nt "$MERLIN" ]; then
  from=(--from-deb "$deb")
  echo "     merlin from $deb (MERLIN_TEST_IMAGE_FROM_SOURCE=1 compiles the tree instead)"
else
  echo "     merlin compiled from the tree (no .deb newer than $MERLIN)"
fi
t=$SECONDS
set +e
MERLIN_BASE_IMAGE=$base bash "$SRC/containers/build-images.sh" --tag $image "${from[@]}" >build.out 2>build.err
rc=$?
set -e
expect_eq "build-images.sh: exit 0" 0 "$rc"
[ $rc = 0 ] || tail -30 build.err
echo "     build-images.sh took $((SECONDS - t)) s"
check "hello ran inside as uid 1000" grep -q "hello example ran in $image as uid 1000" build.err
check "merlin.def's runscript checked in the image" grep -q "behave as the image's entrypoint" build.err
check "the Apptainer archive is a docker archive" tar -tf "$SRC/build/containers/merlin-image.tar" manifest.json

# --- the image's properties ----------------------------------------------------------------
in_image() { "${PODMAN[@]}" run --rm "${PODMAN_RUN_OPTS[@]}" "$@"; }
expect_eq "runs as merlin (uid 1000)" "1000 merlin /home/merlin" \
  "$(in_image --entrypoint /bin/sh $image -c 'echo $(id -u) $(id -un) $PWD')"
expect_eq "entrypoint is merlin" '[merlin]' "$(podman image inspect --format '{{.Config.Entrypoint}}' $image)"
expect_eq "merlin --version in the image is this tree's (git describe passed in)" \
  "$("$MERLIN" --version)" "$(in_image $image --version)"
check "merlin-guard is installed beside merlin" in_image --entrypoint /bin/sh $image -c 'test -x "$(dirname "$(command -v merlin)")/merlin-guard"'
check "no compiler or cmake in the runtime image" \
  in_image --entrypoint /bin/sh $image -c '! command -v c++ && ! command -v cmake && ! test -d /src'
size=$(podman image inspect --format '{{.Size}}' $image)
echo "     image size $((size / 1000000)) MB"
check "image under 400 MB ($((size / 1000000)) MB)" test "$size" -lt 400000000

# --- distributed smoke: broker on the host, workers in the container -------------------------
start_redis
chmod 755 "$WORK"   # the container's uid 1000 reaches the mounted workspace
"$MERLIN" example hello >/dev/null
cd hello
"$MERLIN" run hello.yaml >queue.out 2>&1
check "queued on the host" grep -q "3 tasks" queue.out
chown -R 1000:1000 "$WORK/hello"  # the workers' user owns the shared workspace
set +e
in_image --network host -e MERLIN_BROKER_URL="$MERLIN_BROKER_URL" -v "$WORK:$WORK" -w "$WORK/hello" \
  $image run-workers hello.yaml --exit-when-done >workers.out 2>&1
rc=$?
set -e
expect_eq "run-workers in the container: exit 0" 0 "$rc"
check "the container's worker ran the 3 tasks" grep -q "executed=3 succeeded=3 failed=0" workers.out
ws=$(find . -maxdepth 1 -type d -name 'hello_*' -print -quit)
expect_eq "step_1 outputs" "hello, world!|hola, mundo!|" \
  "$(find "$ws/step_1" -name '*.out' -exec cat {} + | LC_ALL=C sort | tr '\n' '|')"
check "step_2 ran python3 in the image" grep -qx 'Hurrah, we did it!' "$ws/step_2/step_2.out"
"$MERLIN" status hello.yaml >status.out
check "host status: step_2 done" grep -qE '^step_2 +1 +1 +1 +0 ' status.out

# A step of two ranks runs in the image: $(LAUNCHER) is Open MPI's mpirun there, then
# merlin-rank-env, which gives each rank RANK and WORLD_SIZE.
mkdir -p "$WORK/mpi"
cat >"$WORK/mpi/mpi.yaml" <<'Y'
description: {name: mpi_in_image, description: a step of two ranks}
study:
  - name: ranks
    run:
      cmd: $(LAUNCHER) sh -c 'echo "rank $RANK of $WORLD_SIZE"'
      procs: 2
Y
chown -R 1000:1000 "$WORK/mpi"
set +e
in_image -v "$WORK:$WORK" -w "$WORK/mpi" $image run --local --no-progress mpi.yaml >mpi.out 2>&1
rc=$?
set -e
expect_eq "a step with procs: 2 in the image: exit 0" 0 "$rc"
expect_eq "both ranks ran, each knowing its rank" "rank 0 of 2|rank 1 of 2|" \
  "$(cat "$WORK"/mpi/mpi_in_image_*/ranks/ranks.out 2>/dev/null | LC_ALL=C sort | tr '\n' '|')"
[ "$rc" = 0 ] || { cat mpi.out; cat "$WORK"/mpi/mpi_in_image_*/ranks/ranks.err 2>/dev/null | head -20; }

# The Slurm form in docs/containers.md: workers whose batch type is slurm, in a container
# started per node, run with --here; without it the container has no sbatch and says so.
sed -E 's/^  name: hello$/  name: hello_slurm/' hello.yaml >hello_slurm.yaml
printf 'batch:\n  type: slurm\n' >>hello_slurm.yaml
"$MERLIN" run hello_slurm.yaml >queue2.out 2>&1
chown -R 1000:1000 "$WORK/hello"
in_image --network host -e MERLIN_BROKER_URL -v "$WORK:$WORK" -w "$WORK/hello" \
  $image run-workers hello_slurm.yaml --here --exit-when-done --drain-margin 0 >here.out 2>&1 || true
check "slurm-batch workers run in the container with --here" grep -q "executed=3 succeeded=3 failed=0" here.out
set +e
in_image --network host -e MERLIN_BROKER_URL -v "$WORK:$WORK" -w "$WORK/hello" \
  $image run-workers hello_slurm.yaml --exit-when-done >nohere.out 2>&1
rc=$?
set -e
expect_eq "without --here: exit 1" 1 "$rc"
check "without --here: says sbatch is not there" grep -q "sbatch: not found" nohere.out

# Bad input: a broker that is not there gives one clear line and exit 1 from inside too.
closed=$((REDIS_PORT + 1))
set +e
in_image --network host -e MERLIN_BROKER_URL=redis://127.0.0.1:$closed/0 -v "$WORK:$WORK" -w "$WORK/hello" \
  $image run-workers hello.yaml --exit-when-done >down.out 2>&1
rc=$?
set -e
expect_eq "broker down: exit 1" 1 "$rc"
check "broker down: names the address" grep -q "redis 127.0.0.1:$closed: connection refused" down.out
finish
