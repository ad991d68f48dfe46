# Installing Trainplan as desktop software (issue 41): `cmake --install build --prefix /usr` puts the
# program, its desktop entry and icon, the example plans and the documents where a Linux desktop and its
# users find them (the desktop entry specification's share/applications, the icon theme's hicolor), and
# `cpack -G DEB` in the build directory makes a Debian package of the same files. tests/package checks
# the package by installing it into a scratch root and estimating a bundled example from there.

include(GNUInstallDirs)

install(FILES ${PROJECT_SOURCE_DIR}/resources/trainplan.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/trainplan.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
# The gallery's plans are compiled into the program; these copies are for opening, editing and scripts.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/trainplan/examples
        FILES_MATCHING PATTERN "*.json")
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/PLAN_FORMAT.md ${PROJECT_SOURCE_DIR}/docs/CALIBRATION.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/trainplan) # Debian: the package's own (lower-case) name

set(CPACK_PACKAGE_NAME trainplan)
set(CPACK_PACKAGE_VENDOR "Trainplan")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY trainplan)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Trainplan developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Will a deep-learning training plan fit, how fast will it run, what limits it?\n\
Trainplan estimates the memory, step time and bottlenecks of a training plan (cluster, model, precision,\n\
recomputation, data/tensor/pipeline/expert parallelism, ZeRO/FSDP) with the formula and source of every\n\
number, searches the layouts of a cluster, and writes PNG/PDF reports. The same engine runs headless:\n\
trainplan estimate|search|report.")
# The libraries the program links (ldd on Debian 12) and the Qt platform plugins its window needs; written
# out rather than found by dpkg-shlibdeps, which a machine without dpkg-dev does not have.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libqt6core6 (>= 6.4), libqt6gui6 (>= 6.4), libqt6widgets6 (>= 6.4), libqt6printsupport6 (>= 6.4), \
libqt6svg6 (>= 6.4), libqt6charts6 (>= 6.4), libqt6opengl6 (>= 6.4), libqt6openglwidgets6 (>= 6.4), \
libqt6dbus6 (>= 6.4), qt6-qpa-plugins (>= 6.4), libqcustomplot2.1-qt6, libyaml-cpp0.7, libtomlplusplus3, zlib1g")
include(CPack)
