# Run by `cmake --install`: writes pairhist.pc and pairhist-c.pc for the prefix being installed to
# (set by install(CODE) in install.cmake) and installs them.
set(PAIRHIST_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
foreach(pc pairhist pairhist-c)
  configure_file("${PAIRHIST_PC_TEMPLATES}/${pc}.pc.in" "${PAIRHIST_PC_WORK}/${pc}.pc" @ONLY)
  file(INSTALL "${PAIRHIST_PC_WORK}/${pc}.pc"
    DESTINATION "${CMAKE_INSTALL_PREFIX}/${PAIRHIST_PC_LIBDIR}/pkgconfig")
endforeach()
