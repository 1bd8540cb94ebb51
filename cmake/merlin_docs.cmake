# The man pages and the bash completion script, made at build time from the built merlin itself
# (cmake/merlin_docs_gen.cmake), so they list exactly the commands and options it parses.
# Included from CMakeLists.txt after the merlin target; docs/cli.md says how to enable them.
include(GNUInstallDirs)
set(MERLIN_DOCS_OUT ${PROJECT_BINARY_DIR}/share)
set(MERLIN_DOCS_GEN ${PROJECT_SOURCE_DIR}/cmake/merlin_docs_gen.cmake)

# build/share/bash-completion/completions/merlin: `merlin completion bash`.
set(MERLIN_COMPLETION ${MERLIN_DOCS_OUT}/bash-completion/completions/merlin)
add_custom_command(
  OUTPUT ${MERLIN_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -DMODE=completion -DMERLIN=$<TARGET_FILE:merlin>
          -DOUT=${MERLIN_COMPLETION} -P ${MERLIN_DOCS_GEN}
  DEPENDS merlin ${MERLIN_DOCS_GEN}
  COMMENT "bash completion: merlin completion bash"
  VERBATIM)
add_custom_target(merlin_completion ALL DEPENDS ${MERLIN_COMPLETION})
install(FILES ${MERLIN_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# build/share/man/man1/merlin.1 and merlin-COMMAND.1: help2man on each command's --help.
find_program(HELP2MAN_EXECUTABLE help2man)
if(HELP2MAN_EXECUTABLE)
  set(MERLIN_MAN_DIR ${MERLIN_DOCS_OUT}/man/man1)
  add_custom_command(
    OUTPUT ${MERLIN_MAN_DIR}/merlin.1
    COMMAND ${CMAKE_COMMAND} -DMODE=man -DMERLIN=$<TARGET_FILE:merlin>
            -DHELP2MAN=${HELP2MAN_EXECUTABLE} -DSRC=${PROJECT_SOURCE_DIR} -DOUT=${MERLIN_MAN_DIR}
            -P ${MERLIN_DOCS_GEN}
    DEPENDS merlin ${MERLIN_DOCS_GEN} ${PROJECT_SOURCE_DIR}/docs/man/merlin.h2m
            ${PROJECT_SOURCE_DIR}/docs/man/merlin-command.h2m
    COMMENT "man pages: help2man on merlin's --help"
    VERBATIM)
  add_custom_target(merlin_man ALL DEPENDS ${MERLIN_MAN_DIR}/merlin.1)
  install(DIRECTORY ${MERLIN_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          FILES_MATCHING PATTERN "*.1")
  set(MERLIN_MAN_STATUS "on (${HELP2MAN_EXECUTABLE})")
else()
  set(MERLIN_MAN_STATUS "off")
  message(STATUS "help2man not found: the man pages are not built (apt-get install help2man); "
                 "the bash completion is")
endif()
