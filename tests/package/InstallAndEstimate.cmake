# The Debian package as a user installs it (issue 41): cpack builds it from this build, dpkg-deb unpacks it
# into a scratch root, and the program from there estimates a bundled example exactly as the build's own
# program does. Run by ctest (package_installs_and_estimates) with -DCPACK, -DBUILD_DIR, -DSOURCE_DIR and
# -DSCRATCH.

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}")
run("cpack" ${CPACK} -G DEB -B "${SCRATCH}/package" --config "${BUILD_DIR}/CPackConfig.cmake")
file(GLOB debs "${SCRATCH}/package/trainplan_*_*.deb")
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one trainplan .deb in ${SCRATCH}/package, found ${count}: ${debs}")
endif()

# What the package says of itself: its name and the libraries and platform plugins it needs.
run("dpkg-deb -f" dpkg-deb -f "${debs}" Package Depends)
foreach(needed "Package: trainplan" "libqt6widgets6" "libqt6charts6" "libqcustomplot2.1-qt6" "qt6-qpa-plugins")
  string(FIND "${output}" "${needed}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the package's control fields lack '${needed}':\n${output}")
  endif()
endforeach()

set(root "${SCRATCH}/root")
run("dpkg-deb -x" dpkg-deb -x "${debs}" "${root}")
foreach(file usr/bin/trainplan usr/share/applications/trainplan.desktop
             usr/share/icons/hicolor/scalable/apps/trainplan.svg usr/share/trainplan/examples/llama2-7b-one-dgx-h100.json
             usr/share/doc/trainplan/README.md usr/share/doc/trainplan/PLAN_FORMAT.md)
  if(NOT EXISTS "${root}/${file}")
    message(FATAL_ERROR "the package does not install /${file}")
  endif()
endforeach()
file(STRINGS "${root}/usr/share/applications/trainplan.desktop" exec REGEX "^Exec=")
if(NOT exec STREQUAL "Exec=trainplan %f")
  message(FATAL_ERROR "the desktop entry starts '${exec}', not the installed program with a file")
endif()

# The installed program on the installed example, against the build's program on the source's example.
run("the installed trainplan" "${root}/usr/bin/trainplan" estimate "${root}/usr/share/trainplan/examples/llama2-7b-one-dgx-h100.json")
set(installed "${output}")
run("the built trainplan" "${BUILD_DIR}/bin/trainplan" estimate "${SOURCE_DIR}/resources/examples/llama2-7b-one-dgx-h100.json")
if(NOT installed STREQUAL output)
  message(FATAL_ERROR "the installed program's estimate differs from the build's")
endif()
# Llama 2 7B: 6,738,415,616 parameters (meta-llama/Llama-2-7b-hf, the sum of its checkpoint's tensors).
string(JSON parameters GET "${installed}" model parameters)
if(NOT parameters EQUAL 6738415616)
  message(FATAL_ERROR "the installed program counts ${parameters} parameters for Llama 2 7B, not 6738415616")
endif()
string(JSON fits GET "${installed}" memory fits)
message(STATUS "installed from ${debs}: Llama 2 7B, ${parameters} parameters, fits: ${fits}")
