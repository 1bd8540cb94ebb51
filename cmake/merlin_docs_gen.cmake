# Run at build time by cmake/merlin_docs.cmake (cmake -P): makes the bash completion script or
# the man pages from the built program itself, so both follow its commands and options.
#   -DMODE=completion -DMERLIN=<merlin> -DOUT=<file>
#   -DMODE=man -DMERLIN=<merlin> -DHELP2MAN=<help2man> -DSRC=<source dir> -DOUT=<dir>
#   -DMODE=gzip -DGZIP=<gzip> -DIN_A=<dir> -DIN_B=<dir> -DOUT=<dir>: every *.1 of both as OUT/*.1.gz
#     (gzip -9n: no name or time inside, so the same page gives the same bytes), merlin.1.gz last
# The man pages: merlin.1 from `merlin --help` (with docs/man/merlin.h2m), and merlin-CMD.1 for
# every command `merlin completion commands` lists (`merlin config create` -> merlin-config-create.1),
# from `merlin CMD --help` (help2man's --help-option; --version-string since a command has no
# --version of its own).
cmake_minimum_required(VERSION 3.20)

function(run_or_fail)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "completion")
  run_or_fail(${MERLIN} completion bash)
  file(WRITE ${OUT}.tmp "${out}")
  file(RENAME ${OUT}.tmp ${OUT})
  return()
endif()

if(MODE STREQUAL "gzip")
  file(MAKE_DIRECTORY ${OUT})
  file(GLOB old ${OUT}/*.1.gz)
  if(old)
    file(REMOVE ${old})
  endif()
  file(GLOB pages ${IN_A}/*.1 ${IN_B}/*.1)
  list(FILTER pages EXCLUDE REGEX "/merlin\\.1$")
  list(APPEND pages ${IN_A}/merlin.1)  # the stamp the build checks: written last
  foreach(page IN LISTS pages)
    get_filename_component(name ${page} NAME)
    execute_process(COMMAND ${GZIP} -9nc ${page} OUTPUT_FILE ${OUT}/${name}.gz.tmp
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "gzip ${page}: exit ${rc}")
    endif()
    file(RENAME ${OUT}/${name}.gz.tmp ${OUT}/${name}.gz)
  endforeach()
  return()
endif()

if(NOT MODE STREQUAL "man")
  message(FATAL_ERROR "MODE must be completion, man or gzip, not '${MODE}'")
endif()

# help2man's sections for the "Positionals:" and "Subcommands:" of CLI11's help, a command's
# name in bold with its page, and the SYNOPSIS's command words in roman (help2man italicises
# what follows the program name).
function(polish page words)
  file(READ ${page} text)
  string(REPLACE ".SS \"Positionals:\"" ".SH ARGUMENTS" text "${text}")
  string(REPLACE ".SS \"Subcommands:\"" ".SH COMMANDS" text "${text}")
  if(NOT words STREQUAL "")
    string(REPLACE "-" "\\-" esc "${words}")
    string(REPLACE ".B merlin\n\\fI\\,${words} \\/\\fR" ".B merlin ${esc}\n" text "${text}")
  endif()
  # In COMMANDS: ".TP\nrun\-workers\n" -> ".TP\n.BR run\-workers \" (merlin\-[words-]run\-workers(1))\"\n"
  string(FIND "${text}" ".SH COMMANDS" at)
  if(at GREATER -1)
    string(SUBSTRING "${text}" 0 ${at} head)
    string(SUBSTRING "${text}" ${at} -1 tail)
    set(prefix "merlin\\-")
    if(NOT words STREQUAL "")
      string(REPLACE " " "\\-" p "${esc}")
      set(prefix "merlin\\-${p}\\-")
    endif()
    string(REPLACE "\\" "\\\\" prefix "${prefix}")  # a literal backslash in a replacement
    string(REGEX REPLACE "\n\\.TP\n([a-z][a-z\\\\-]*)\n" "\n.TP\n.BR \"\\1\" \" (${prefix}\\1(1))\"\n"
           tail "${tail}")
    set(text "${head}${tail}")
  endif()
  file(WRITE ${page} "${text}")
endfunction()

run_or_fail(${MERLIN} --version)
string(REGEX MATCH "^merlin ([^ \n]+)" _ "${out}")
set(version "${CMAKE_MATCH_1}")
run_or_fail(${MERLIN} completion commands)
string(REPLACE "\n" ";" lines "${out}")

file(MAKE_DIRECTORY ${OUT})
file(GLOB old ${OUT}/*.1)
if(old)
  file(REMOVE ${old})  # a command gone from the program loses its page
endif()

set(see_also "")
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REPLACE "\t" ";" fields "${line}")
  list(GET fields 0 words)
  list(GET fields 1 summary)
  string(REPLACE " " "-" page_name "merlin-${words}")
  file(WRITE ${OUT}/${page_name}.h2m
       "[SEE ALSO]\n.BR merlin (1)\n")
  run_or_fail(${HELP2MAN} --no-info --section=1 "--name=${summary}"
              "--help-option=${words} --help" "--version-string=${page_name} ${version}"
              --include=${SRC}/docs/man/merlin-command.h2m --include=${OUT}/${page_name}.h2m
              --output=${OUT}/${page_name}.1 ${MERLIN})
  polish(${OUT}/${page_name}.1 "${words}")
  file(REMOVE ${OUT}/${page_name}.h2m)
  string(REPLACE "-" "\\-" esc "${page_name}")
  string(APPEND see_also ".BR ${esc} (1),\n")
endforeach()

# merlin.1 last: the stamp the build checks.
file(WRITE ${OUT}/merlin-pages.h2m "[SEE ALSO]\n${see_also}.BR bash (1).\n.PP\n")
run_or_fail(${HELP2MAN} --no-info --section=1
            "--name=ensemble workflows for simulation campaigns (LLNL Merlin specs)"
            "--version-string=merlin ${version}" --include=${OUT}/merlin-pages.h2m
            --include=${SRC}/docs/man/merlin.h2m --output=${OUT}/merlin.1 ${MERLIN})
polish(${OUT}/merlin.1 "")
file(REMOVE ${OUT}/merlin-pages.h2m)
