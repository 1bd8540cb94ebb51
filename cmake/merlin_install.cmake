# What `cmake --install` puts where (GNUInstallDirs; docs/install.md has the layout), and the
# exported package a consumer finds with `find_package(merlin)`:
#   merlin::core    the spec/study library (merlin_core: load and validate specs, expand
#                   studies, sample hierarchies), static, with its headers
#   merlin::merlin  the merlin executable, for add_custom_command(COMMAND merlin::merlin ...)
# Two components, which the .deb splits into two packages (cmake/merlin_cpack.cmake):
#   cli  the programs, their man pages and completion, examples, Python helpers and docs
#   dev  merlin::core (static library, headers), the CMake package and merlin.pc
# Included from CMakeLists.txt after the targets are defined.
include(CMakePackageConfigHelpers)

# Programs. merlin-guard must sit beside merlin: the workers find it through /proc/self/exe's
# directory (workers/guarded_spawn.h).
install(TARGETS merlin EXPORT merlinTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT cli)
install(TARGETS merlin-guard RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(TARGETS merlin-rank-env RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/adapters/ml/python/spellbook.py
        DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME spellbook COMPONENT cli)
if(TARGET merlin-train)
  install(TARGETS merlin-train RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
endif()

# The library and the headers of its folders (docs/architecture.md: merlin_core's rows).
set_target_properties(merlin_core PROPERTIES EXPORT_NAME core)
install(TARGETS merlin_core EXPORT merlinTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(dir util spec samples sampling data study workspace plan broker batch ml report server)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/merlin/core/${dir}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/merlin/core/${dir} COMPONENT dev
          FILES_MATCHING PATTERN "*.h")
endforeach()

set(MERLIN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/merlin)
install(EXPORT merlinTargets NAMESPACE merlin:: FILE merlinTargets.cmake
        DESTINATION ${MERLIN_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/merlinConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/merlinConfig.cmake
                              INSTALL_DESTINATION ${MERLIN_CMAKE_DIR})
# 0.x: a minor release may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/merlinConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/merlinConfig.cmake ${PROJECT_BINARY_DIR}/merlinConfigVersion.cmake
        DESTINATION ${MERLIN_CMAKE_DIR} COMPONENT dev)

# merlin.pc for builds without CMake: `pkg-config --cflags --libs merlin`. The library is
# static, so its dependencies are in Requires (not .private): a plain --libs links. The prefix
# is found from the file's own place, so a moved prefix still works.
file(RELATIVE_PATH MERLIN_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" MERLIN_PC_TO_PREFIX "${MERLIN_PC_TO_PREFIX}")
file(RELATIVE_PATH MERLIN_PC_LIBDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH MERLIN_PC_INCLUDEDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_INCLUDEDIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/merlin.pc.in ${PROJECT_BINARY_DIR}/merlin.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/merlin.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)

# Examples (found relative to the installed merlin: merlin/cli/example_dirs.h), the docs.
# Their scripts keep their modes (a run_*.sh is executable, as in the tree).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/merlin/examples
        COMPONENT cli USE_SOURCE_PERMISSIONS)
install(FILES ${PROJECT_SOURCE_DIR}/adapters/ml/python/merlin_dataset.py
              ${PROJECT_SOURCE_DIR}/adapters/ml/python/spellbook_ml.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/merlin/python COMPONENT cli)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli
        FILES_MATCHING PATTERN "*.md")
# A Debian package's doc dir (-DMERLIN_DEBIAN_LAYOUT=ON, as containers/test-deb.sh builds it):
# the licence in Debian's copyright format, changelog.gz (CHANGELOG.md) and changelog.Debian.gz,
# and the lintian overrides of the statically linked helpers. Elsewhere LICENSE and CHANGELOG.md.
option(MERLIN_DEBIAN_LAYOUT "Install the doc dir as a Debian package has it" OFF)
if(MERLIN_DEBIAN_LAYOUT)
  include(${PROJECT_SOURCE_DIR}/cmake/merlin_debian_docs.cmake)
else()
  install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
                ${PROJECT_SOURCE_DIR}/CHANGELOG.md
          DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli)
endif()

# The man pages (${CMAKE_INSTALL_MANDIR}/man1) and the bash completion
# (${CMAKE_INSTALL_DATADIR}/bash-completion/completions) are installed by cmake/merlin_docs.cmake.
