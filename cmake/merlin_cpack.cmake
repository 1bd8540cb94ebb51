# `cpack -G DEB` (docs/install.md): two packages installing under /usr, stripped, their library
# dependencies found by dpkg-shlibdeps:
#   merlin_<version>-1_<arch>.deb      the programs, man pages, completion, examples, docs (cli)
#   merlin-dev_<version>-1_<arch>.deb  merlin::core's static library and headers, the CMake
#                                      package and merlin.pc (dev); it needs merlin of the same
#                                      version (the CMake package names the merlin program)
# The version is the build's (`git describe`, cmake/merlin_version.cmake), read when cpack runs
# (merlin_cpack_version.cmake), so a package never carries a stale configure-time version.
# containers/test-deb.sh builds them (-DMERLIN_DEBIAN_LAYOUT=ON: Debian's doc files), checks
# them with lintian and installs merlin on a fresh Debian 12.
set(CPACK_PACKAGE_NAME merlin)
set(CPACK_PACKAGE_VENDOR "merlin C++ developers")
set(CPACK_PACKAGE_CONTACT "${MERLIN_MAINTAINER}")
# Each package's description: its summary line, then the long text (lines of at most 80
# characters: Debian wraps nothing). No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it
# before both, and the two summaries differ.
set(MERLIN_SUMMARY "HPC ensemble workflows from Merlin/Maestro study specs")
set(CPACK_DEBIAN_CLI_DESCRIPTION
    "${MERLIN_SUMMARY}
merlin runs LLNL Merlin and Maestro study specs (YAML) as task graphs:
locally with 'merlin run --local', or distributed through a Redis or RabbitMQ
broker to workers on batch-system allocations (Slurm, Flux, LSF, PBS). It
expands studies of millions of samples without holding a task per sample, and
gathers their outputs into HDF5 datasets.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})  # replaced at cpack time by the build's version
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_COMPONENTS_GROUPING IGNORE)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME merlin)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME merlin-dev)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${CPACK_PACKAGE_CONTACT})
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# No Homepage field: this project has no public page yet (LLNL's is the Python Merlin's).
# Shared libraries (yaml-cpp, spdlog, fmt, hiredis, rabbitmq-c, hdf5, ...) by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Run-time tools: steps run through bash (essential: no Depends needed); python3 runs the
# examples' Python steps; a Redis is the default broker (merlin server, run-workers); the rest
# are site choices (spellbook wants numpy, and scikit-learn for learn/predict).
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "redis-server, python3")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS
    "rabbitmq-server, slurm-client, openmpi-bin, python3-numpy, python3-sklearn")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "${MERLIN_SUMMARY} (development files)
merlin::core, merlin's spec and study library: load and validate Merlin and
Maestro study specs, expand studies and their sample hierarchies. A static
library with its headers, found by CMake's find_package(merlin) or by
'pkg-config merlin'.")
# The headers include fmt's; the static library needs yaml-cpp, spdlog and fmt to link. The
# exact version of merlin is set when cpack runs (merlin_cpack_version.cmake).
set(MERLIN_DEV_DEPENDS "libfmt-dev, libyaml-cpp-dev, libspdlog-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${MERLIN_DEV_DEPENDS}")

configure_file(${PROJECT_SOURCE_DIR}/cmake/merlin_cpack_version.cmake.in
               ${PROJECT_BINARY_DIR}/merlin_cpack_version.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/merlin_cpack_version.cmake)
include(CPack)
