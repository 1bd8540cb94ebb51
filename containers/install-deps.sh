#!/usr/bin/env bash
# Installs what merlin needs to build and test, from Debian 12 packages. Idempotent: only
# missing packages are installed. Run as root (or with sudo). Used by the README commands, by
# .ci/run and by the container recipes.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config
  ccache  # CMakeLists.txt uses it when present: integration.deb_package's build then reuses the suite's objects
  libyaml-cpp-dev libspdlog-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev
  libhiredis-dev redis-server
  librabbitmq-dev rabbitmq-server
  slurm-wlm munge openmpi-bin libopenmpi-dev
  time python3 python3-yaml
  python3-jsonschema  # integration.json_output validates JSON output against docs/schema/
  python3-sklearn  # spellbook learn/predict (Merlin's feature_demo); optional: without it they say so
  python3-tabulate  # integration.merlin_suite: LLNL Merlin's own integration harness prints with it
  libhdf5-dev nlohmann-json3-dev python3-h5py python3-numpy
  liblz4-dev zlib1g-dev  # merlin collect encodes whole HDF5 chunks itself (--compression gzip, lz4)
  libdeflate-dev  # deflates those chunks about twice as fast as zlib; optional: zlib otherwise
  hdf5-filter-plugin  # the LZ4 filter h5py reads `merlin collect --compression lz4` files with (collect_types.sh); optional: its lz4 check skips without it
  libboost-dev  # boost/random/detail/sobol_table.hpp: merlin sample's Sobol direction numbers (header only)
  python3-scipy  # tests/bench/qmc_bench.py compares merlin sample with scipy.stats.qmc; optional: the bench skips without it
  libtorch-dev  # merlin-train (docs/training.md); optional: without it merlin-train is not built
  python3-optuna python3-redis  # examples/ml_campaign/optuna_search.yaml (Optuna's JournalRedisStorage); optional: its test skips without them
  python3-torch  # examples/pytorch_campaign, tests/integration/torch_ddp.sh; optional: their tests skip without it
  python3-matplotlib  # the error-vs-samples plot of tests/bench/active_learning_bench.py; optional: the example and its test do not need it
  libcpp-httplib-dev curl  # merlin monitor --web (docs/web-status.md) and its test
  chromium  # renders the status page in tests/integration/web_monitor.sh; optional: it skips without it
  help2man groff-base man-db  # the man pages (cmake/merlin_docs.cmake); integration.man_completion renders them
  podman mmdebstrap runc  # containers/build-images.sh (docs/containers.md); runc: crun refuses hybrid cgroups
  lintian  # containers/test-deb.sh checks both .debs with it (integration.deb_package)
  libssl-dev openssl  # rediss:// (Redis over TLS) and the test CA the TLS test makes
  clang-15 libfuzzer-15-dev  # the libFuzzer targets (tests/fuzz)
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present" >&2
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing ${missing[*]}; run as root (sudo $0)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Keep package scripts from starting daemons (no systemd here).
guard=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && guard=1
fi
rc=0
{ apt-get -q -o DPkg::Lock::Timeout=600 update &&
  apt-get -q -y -o DPkg::Lock::Timeout=600 install --no-install-recommends "${missing[@]}"; } \
  >/tmp/merlin-install-deps.log 2>&1 || rc=$?
[ $guard = 1 ] && rm -f /usr/sbin/policy-rc.d
if [ $rc != 0 ]; then
  tail -30 /tmp/merlin-install-deps.log >&2
  echo "install-deps: apt-get failed (rc=$rc), full log in /tmp/merlin-install-deps.log" >&2
  exit 1
fi
echo "install-deps: done" >&2
