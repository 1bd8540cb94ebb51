# shellcheck shell=bash disable=SC2034
# Sourced by the container scripts: the podman/buildah settings this machine needs, decided by
# probing rather than by editing /etc/containers, so a fresh machine (or a laptop, where none of
# this is needed) works unchanged. Defines:
#   PODMAN=(podman --runtime ... --cgroup-manager ...)  global options first
#   PODMAN_RUN_OPTS=(--ulimit ...)                      for `podman run`
#   PODMAN_BUILD_OPTS=(--isolation chroot --network host ...)  for `podman build`
#   podman_probe IMAGE   sets the arrays above to the first combination that runs IMAGE
#
# What the sandbox we develop in needs (root in a VM-like container, cgroup v1 + a cgroup2 mount
# with a controller on it = "hybrid"), and why each setting:
#   --cgroup-manager=cgroupfs  no systemd is running, so the default (systemd) cannot be used
#   --runtime runc             crun 1.8 refuses hybrid cgroups ("drop all controllers from
#                              cgroupv2"); runc accepts them (apt-get install runc)
#   --ulimit nofile=N:N --ulimit nproc=M:M
#                              podman asks for limits above our hard limits and we lack
#                              CAP_SYS_RESOURCE ("setrlimit RLIMIT_NOFILE: Operation not
#                              permitted"), so ask for what we have
#   --isolation chroot --network host (build)
#                              RUN steps need no OCI runtime or cgroups, and reach the Debian
#                              archive through the host's network

PODMAN=(podman)
PODMAN_RUN_OPTS=()
PODMAN_BUILD_OPTS=(--isolation chroot --network host)

# podman_try IMAGE: whether `podman run` works with the current arrays
podman_try() {
  "${PODMAN[@]}" run --rm "${PODMAN_RUN_OPTS[@]}" --entrypoint /bin/true "$1" >/dev/null 2>&1
}

# Limits we can grant: our hard ones, nproc capped (podman's own process may hold a lower
# limit than the shell's, and a larger nproc than its own is refused).
podman_limits() {
  local nf np
  nf=$(ulimit -Hn); [ "$nf" = unlimited ] && nf=1048576
  np=$(ulimit -Hu); [ "$np" = unlimited ] && np=32768
  [ "$np" -gt 32768 ] && np=32768
  PODMAN_RUN_OPTS=(--ulimit "nofile=$nf:$nf" --ulimit "nproc=$np:$np")
}

podman_probe() {
  local image=$1 mgr=() rt
  command -v podman >/dev/null || { PODMAN_PROBE_ERROR="podman is not installed"; return 1; }
  PODMAN=(podman); PODMAN_RUN_OPTS=()
  podman_try "$image" && return 0
  # No systemd as PID 1: cgroupfs.
  [ -d /run/systemd/system ] || mgr=(--cgroup-manager=cgroupfs)
  for rt in "" crun runc; do
    if [ -n "$rt" ]; then command -v "$rt" >/dev/null || continue; fi
    PODMAN=(podman "${mgr[@]}" ${rt:+--runtime "$rt"})
    PODMAN_RUN_OPTS=(); podman_try "$image" && return 0
    podman_limits; podman_try "$image" && return 0
  done
  PODMAN=(podman "${mgr[@]}"); podman_limits
  PODMAN_PROBE_ERROR=$("${PODMAN[@]}" run --rm "${PODMAN_RUN_OPTS[@]}" --entrypoint /bin/true "$image" 2>&1 | tail -1)
  command -v runc >/dev/null || PODMAN_PROBE_ERROR+=" (runc is not installed; with hybrid cgroups crun cannot run containers: apt-get install runc)"
  return 1
}
