# `cmake --install build --prefix P`: the command, the task library (libpairhist, with
# libpairhist_host: the pinnable frame columns' hooks) and the C kernel library (libpairhist_c) with
# SONAMEs, the public headers, a CMake package (pairhist::pairhist,
# pairhist::c), pkg-config files, the shipped perfmodels and the man page.
include(CMakePackageConfigHelpers)

set(PAIRHIST_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/pairhist")

install(TARGETS pairhist pairhist_c pairhist_host EXPORT pairhistTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS pairhist_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/pairhist DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT pairhistTargets NAMESPACE pairhist:: DESTINATION ${PAIRHIST_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/pairhistConfig.cmake.in
  ${CMAKE_BINARY_DIR}/pairhistConfig.cmake INSTALL_DESTINATION ${PAIRHIST_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/pairhistConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/pairhistConfig.cmake ${CMAKE_BINARY_DIR}/pairhistConfigVersion.cmake
  DESTINATION ${PAIRHIST_CMAKE_DIR})

# pkg-config: ${prefix} is the install prefix given at install time (cmake --install --prefix),
# so the files are written by a script run during the installation.
install(CODE "
  set(PAIRHIST_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(PAIRHIST_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PAIRHIST_PC_VERSION \"${PROJECT_VERSION}\")
  set(PAIRHIST_PC_TEMPLATES \"${CMAKE_CURRENT_LIST_DIR}\")
  set(PAIRHIST_PC_WORK \"${CMAKE_BINARY_DIR}/pkgconfig\")
  set(STARPU_MODULE_NAME \"${STARPU_MODULE_NAME}\")
  set(STARPU_PCFILEDIR \"${STARPU_PCFILEDIR}\")
  include(\"${CMAKE_CURRENT_LIST_DIR}/install_pkgconfig.cmake\")")

install(DIRECTORY ${CMAKE_SOURCE_DIR}/perfmodels/ DESTINATION ${CMAKE_INSTALL_DATADIR}/pairhist/perfmodels)
# The samples `pairhist synth --case W1` replicates and the README's commands read.
install(FILES ${CMAKE_SOURCE_DIR}/data/spce_water.xtc ${CMAKE_SOURCE_DIR}/data/spce_water.gro
  ${CMAKE_SOURCE_DIR}/data/nacl_dodecahedron.xtc ${CMAKE_SOURCE_DIR}/data/nacl_dodecahedron.gro
  DESTINATION ${CMAKE_INSTALL_DATADIR}/pairhist/data)

# The man page, made by help2man from `pairhist --help` and every subcommand's --help.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(PAIRHIST_MAN ${CMAKE_BINARY_DIR}/man/pairhist.1)
  add_custom_command(OUTPUT ${PAIRHIST_MAN}
    COMMAND ${CMAKE_COMMAND} -DPAIRHIST=$<TARGET_FILE:pairhist_cli> -DHELP2MAN=${HELP2MAN}
      -DOUTPUT=${PAIRHIST_MAN} -P ${CMAKE_CURRENT_LIST_DIR}/make_man_page.cmake
    DEPENDS pairhist_cli ${CMAKE_CURRENT_LIST_DIR}/make_man_page.cmake
    COMMENT "Man page pairhist.1 (help2man)")
  add_custom_target(pairhist_man ALL DEPENDS ${PAIRHIST_MAN})
  install(FILES ${PAIRHIST_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page (apt-get install help2man)")
endif()
