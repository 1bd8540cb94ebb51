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
install(FILES ${MERLIN_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        COMPONENT cli)

# The man pages, installed gzipped: build/share/man/man1/merlin.1 and merlin-COMMAND.1 by
# help2man on each command's --help; build/share/man/extra/ the other programs' pages, written by
# hand (docs/man/*.1.in); build/share/man/gz/man1/ all of them gzipped, as installed. A build
# without help2man stops here unless it asks for no pages (-DMERLIN_MAN_PAGES=OFF).
option(MERLIN_MAN_PAGES "Build and install the man pages (needs help2man)" ON)
if(MERLIN_MAN_PAGES)
  find_program(HELP2MAN_EXECUTABLE help2man)
  find_program(GZIP_EXECUTABLE gzip)
  if(NOT HELP2MAN_EXECUTABLE OR NOT GZIP_EXECUTABLE)
    message(FATAL_ERROR "help2man and gzip make the man pages and were not both found: "
                        "apt-get install help2man gzip, or configure with -DMERLIN_MAN_PAGES=OFF "
                        "to build without man pages")
  endif()
  set(MERLIN_MAN_DIR ${MERLIN_DOCS_OUT}/man/man1)
  set(MERLIN_MAN_EXTRA ${MERLIN_DOCS_OUT}/man/extra)
  set(MERLIN_MAN_GZ ${MERLIN_DOCS_OUT}/man/gz/man1)
  add_custom_command(
    OUTPUT ${MERLIN_MAN_DIR}/merlin.1
    COMMAND ${CMAKE_COMMAND} -DMODE=man -DMERLIN=$<TARGET_FILE:merlin>
            -DHELP2MAN=${HELP2MAN_EXECUTABLE} -DSRC=${PROJECT_SOURCE_DIR} -DOUT=${MERLIN_MAN_DIR}
            -P ${MERLIN_DOCS_GEN}
    DEPENDS merlin ${MERLIN_DOCS_GEN} ${PROJECT_SOURCE_DIR}/docs/man/merlin.h2m
            ${PROJECT_SOURCE_DIR}/docs/man/merlin-command.h2m
    COMMENT "man pages: help2man on merlin's --help"
    VERBATIM)
  # The month of the pages: SOURCE_DATE_EPOCH's when set (reproducible packages), else today's.
  string(TIMESTAMP MERLIN_MAN_DATE "%B %Y" UTC)
  set(extra_pages merlin-guard merlin-rank-env spellbook)
  if(TARGET merlin-train)
    list(APPEND extra_pages merlin-train)
  endif()
  set(extra_files "")
  foreach(page IN LISTS extra_pages)
    configure_file(${PROJECT_SOURCE_DIR}/docs/man/${page}.1.in ${MERLIN_MAN_EXTRA}/${page}.1 @ONLY)
    list(APPEND extra_files ${MERLIN_MAN_EXTRA}/${page}.1)
  endforeach()
  file(GLOB stale ${MERLIN_MAN_EXTRA}/*.1)  # a program no longer built loses its page
  list(REMOVE_ITEM stale ${extra_files})
  if(stale)
    file(REMOVE ${stale})
  endif()
  add_custom_command(
    OUTPUT ${MERLIN_MAN_GZ}/merlin.1.gz
    COMMAND ${CMAKE_COMMAND} -DMODE=gzip -DGZIP=${GZIP_EXECUTABLE}
            -DIN_A=${MERLIN_MAN_DIR} -DIN_B=${MERLIN_MAN_EXTRA}
            -DOUT=${MERLIN_MAN_GZ} -P ${MERLIN_DOCS_GEN}
    DEPENDS ${MERLIN_MAN_DIR}/merlin.1 ${extra_files} ${MERLIN_DOCS_GEN}
    COMMENT "man pages: gzip -9n"
    VERBATIM)
  add_custom_target(merlin_man ALL DEPENDS ${MERLIN_MAN_GZ}/merlin.1.gz)
  install(DIRECTORY ${MERLIN_MAN_GZ}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli
          FILES_MATCHING PATTERN "*.1.gz")
  set(MERLIN_MAN_STATUS "on (${HELP2MAN_EXECUTABLE})")
else()
  set(MERLIN_MAN_STATUS "off (-DMERLIN_MAN_PAGES=OFF)")
endif()
