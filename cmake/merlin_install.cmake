# What `cmake --install` puts where (GNUInstallDirs; docs/install.md has the layout), and the
# exported package a consumer finds with `find_package(merlin)`:
#   merlin::core    the spec/study library (merlin_core: load and validate specs, expand
#                   studies, sample hierarchies), static, with its headers
#   merlin::merlin  the merlin executable, for add_custom_command(COMMAND merlin::merlin ...)
# Included from CMakeLists.txt after the targets are defined.
include(CMakePackageConfigHelpers)

# Programs. merlin-guard must sit beside merlin: the workers find it through /proc/self/exe's
# directory (workers/guarded_spawn.h).
install(TARGETS merlin EXPORT merlinTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS merlin-guard RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS merlin-rank-env RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/adapters/ml/python/spellbook.py
        DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME spellbook)
if(TARGET merlin-train)
  install(TARGETS merlin-train RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The library and the headers of its folders (docs/architecture.md: merlin_core's rows).
set_target_properties(merlin_core PROPERTIES EXPORT_NAME core)
install(TARGETS merlin_core EXPORT merlinTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(dir util spec samples sampling data study workspace plan broker batch ml report server)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/merlin/core/${dir}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/merlin/core/${dir}
          FILES_MATCHING PATTERN "*.h")
endforeach()

set(MERLIN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/merlin)
install(EXPORT merlinTargets NAMESPACE merlin:: FILE merlinTargets.cmake
        DESTINATION ${MERLIN_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/merlinConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/merlinConfig.cmake
                              INSTALL_DESTINATION ${MERLIN_CMAKE_DIR})
# 0.x: a minor release may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/merlinConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/merlinConfig.cmake ${PROJECT_BINARY_DIR}/merlinConfigVersion.cmake
        DESTINATION ${MERLIN_CMAKE_DIR})

# Examples (found relative to the installed merlin: merlin/cli/example_dirs.h), the docs.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/merlin/examples)
install(FILES ${PROJECT_SOURCE_DIR}/adapters/ml/python/merlin_dataset.py
              ${PROJECT_SOURCE_DIR}/adapters/ml/python/spellbook_ml.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/merlin/python)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
              ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The man pages (${CMAKE_INSTALL_MANDIR}/man1) and the bash completion
# (${CMAKE_INSTALL_DATADIR}/bash-completion/completions) are installed by cmake/merlin_docs.cmake.
