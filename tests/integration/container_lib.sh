# Sourced by the integration tests that run podman (after lib.sh). need_containers: skips (77)
# with the reason when MERLIN_TEST_CONTAINERS=0, when not root, without podman or mmdebstrap,
# when the local Debian base image cannot be made or podman cannot run containers here;
# otherwise sets `base` (the base image, made once per machine by containers/make-base-image.sh)
# and the PODMAN arrays of containers/podman-env.sh.
need_containers() {
  if [ "${MERLIN_TEST_CONTAINERS:-1}" = 0 ]; then
    echo "SKIP: MERLIN_TEST_CONTAINERS=0 (unset it to run the container tests)"
    exit 77
  fi
  [ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mmdebstrap, podman with the system store)"; exit 77; }
  local tool
  for tool in podman mmdebstrap; do
    command -v $tool >/dev/null || { echo "SKIP: $tool not found (apt-get install $tool runc)"; exit 77; }
  done
  source "$SRC/containers/podman-env.sh"
  base=${MERLIN_BASE_IMAGE:-localhost/merlin-base:bookworm}
  if ! MERLIN_BASE_IMAGE=$base "$SRC/containers/make-base-image.sh" >base.log 2>&1; then
    echo "SKIP: cannot make the base image here:"; tail -5 base.log; exit 77
  fi
  if ! podman_probe "$base"; then
    echo "SKIP: podman cannot run containers here: $PODMAN_PROBE_ERROR"; exit 77
  fi
}
