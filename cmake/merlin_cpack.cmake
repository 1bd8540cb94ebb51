# `cpack -G DEB` (docs/install.md): a merlin_<version>-1_<arch>.deb installing under /usr,
# stripped, its library dependencies found by dpkg-shlibdeps. The version is the build's
# (`git describe`, cmake/merlin_version.cmake), read when cpack runs (merlin_cpack_version.cmake),
# so a package never carries a stale configure-time version.
# containers/test-deb.sh builds one and installs it on a fresh Debian 12.
set(CPACK_PACKAGE_NAME merlin)
set(CPACK_PACKAGE_VENDOR "merlin C++ developers")
set(CPACK_PACKAGE_CONTACT "merlin C++ developers <maintainers@users.noreply.a-seed-4b4a4a47.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HPC ensemble workflows from Merlin/Maestro study specs")
set(CPACK_PACKAGE_DESCRIPTION
    "merlin runs LLNL Merlin and Maestro study specs (YAML) as task graphs: locally with
'merlin run --local', or distributed through a Redis or RabbitMQ broker to workers on
batch-system allocations (Slurm, Flux, LSF, PBS). It expands studies of millions of samples
without holding a task per sample, and gathers their outputs into HDF5 datasets.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})  # replaced at cpack time by the build's version
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)

set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CPACK_PACKAGE_CONTACT})
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/LLNL/merlin")
# Shared libraries (yaml-cpp, spdlog, fmt, hiredis, rabbitmq-c, hdf5, ...) by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Run-time tools: steps run through bash; python3 runs the examples' Python steps; a Redis
# is the default broker (merlin server, run-workers); the rest are site choices (spellbook
# wants numpy, and scikit-learn for learn/predict).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "bash")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "redis-server, python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "rabbitmq-server, slurm-client, openmpi-bin, python3-numpy, python3-sklearn")

configure_file(${PROJECT_SOURCE_DIR}/cmake/merlin_cpack_version.cmake.in
               ${PROJECT_BINARY_DIR}/merlin_cpack_version.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/merlin_cpack_version.cmake)
include(CPack)
