# The doc dirs of the Debian packages (cmake/merlin_install.cmake with -DMERLIN_DEBIAN_LAYOUT=ON):
# for each of merlin (cli) and merlin-dev (dev), /usr/share/doc/<package>/ holds the licence in
# Debian's machine-readable copyright format (containers/debian/copyright), changelog.Debian.gz
# (one entry naming the build's version, made at build time when that version is known) and,
# for merlin, changelog.gz (CHANGELOG.md) and README.md. merlin's lintian overrides
# (containers/debian/*.lintian-overrides) go where lintian reads them. Every .gz is
# `gzip -9n`: no name or time inside.
find_program(GZIP_EXECUTABLE gzip REQUIRED)
set(MERLIN_DEB_DOCS ${PROJECT_BINARY_DIR}/debian)
set(MERLIN_DEB_DOCS_GEN ${PROJECT_SOURCE_DIR}/cmake/merlin_debian_docs_gen.cmake)
add_custom_command(
  OUTPUT ${MERLIN_DEB_DOCS}/changelog.gz ${MERLIN_DEB_DOCS}/changelog.Debian.gz
  COMMAND ${CMAKE_COMMAND} -DGZIP=${GZIP_EXECUTABLE} -DCHANGELOG=${PROJECT_SOURCE_DIR}/CHANGELOG.md
          -DVERSION_FILE=${PROJECT_BINARY_DIR}/generated/merlin_version.txt
          "-DMAINTAINER=${MERLIN_MAINTAINER}" -DOUT=${MERLIN_DEB_DOCS} -P ${MERLIN_DEB_DOCS_GEN}
  DEPENDS merlin ${PROJECT_SOURCE_DIR}/CHANGELOG.md ${MERLIN_DEB_DOCS_GEN}
  COMMENT "Debian doc files: changelog.gz, changelog.Debian.gz"
  VERBATIM)
add_custom_target(merlin_debian_docs ALL
                  DEPENDS ${MERLIN_DEB_DOCS}/changelog.gz ${MERLIN_DEB_DOCS}/changelog.Debian.gz)
set(deb_doc ${CMAKE_INSTALL_DATADIR}/doc)
install(FILES ${PROJECT_SOURCE_DIR}/containers/debian/copyright ${PROJECT_SOURCE_DIR}/README.md
              ${MERLIN_DEB_DOCS}/changelog.gz ${MERLIN_DEB_DOCS}/changelog.Debian.gz
        DESTINATION ${deb_doc}/merlin COMPONENT cli)
install(FILES ${PROJECT_SOURCE_DIR}/containers/debian/copyright ${MERLIN_DEB_DOCS}/changelog.Debian.gz
        DESTINATION ${deb_doc}/merlin-dev COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/containers/debian/merlin.lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME merlin COMPONENT cli)
install(FILES ${PROJECT_SOURCE_DIR}/containers/debian/merlin-dev.lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME merlin-dev COMPONENT dev)
