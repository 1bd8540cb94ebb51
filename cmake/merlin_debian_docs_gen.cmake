# Run at build time by cmake/merlin_debian_docs.cmake (cmake -P):
#   -DGZIP=<gzip> -DCHANGELOG=<CHANGELOG.md> -DVERSION_FILE=<merlin_version.txt>
#   -DMAINTAINER=<name <address>> -DOUT=<dir>
# writes OUT/changelog.gz and OUT/changelog.Debian.gz, whose one entry names the package
# version as cmake/merlin_cpack_version.cmake.in derives it from the same file.
cmake_minimum_required(VERSION 3.20)
file(READ ${VERSION_FILE} version)
string(STRIP "${version}" version)
string(REGEX REPLACE "[^A-Za-z0-9.+~]" "." version "${version}")
# RFC 5322 date; SOURCE_DATE_EPOCH's when set (reproducible packages), else now.
string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(MAKE_DIRECTORY ${OUT})
file(WRITE ${OUT}/changelog.Debian
     "merlin (${version}-1) unstable; urgency=medium\n\n"
     "  * Built from merlin's own source tree; its changes are in changelog.gz.\n\n"
     " -- ${MAINTAINER}  ${date}\n")
foreach(pair "${CHANGELOG};changelog" "${OUT}/changelog.Debian;changelog.Debian")
  list(GET pair 0 in)
  list(GET pair 1 name)
  execute_process(COMMAND ${GZIP} -9nc ${in} OUTPUT_FILE ${OUT}/${name}.gz.tmp RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip ${in}: exit ${rc}")
  endif()
  file(RENAME ${OUT}/${name}.gz.tmp ${OUT}/${name}.gz)
endforeach()
