# The sources the style checks read (CheckFunctionLength, CheckLineLength): every C++ file of the layers,
# relative to SOURCE_DIR, in `sources`; fails when there are none.
file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}"
     "${SOURCE_DIR}/app/*.cpp" "${SOURCE_DIR}/app/*.h" "${SOURCE_DIR}/core/*.cpp" "${SOURCE_DIR}/core/*.h"
     "${SOURCE_DIR}/io/*.cpp" "${SOURCE_DIR}/io/*.h" "${SOURCE_DIR}/ui/*.cpp" "${SOURCE_DIR}/ui/*.h"
     "${SOURCE_DIR}/learn/*.cpp" "${SOURCE_DIR}/learn/*.h" "${SOURCE_DIR}/charts/*.cpp" "${SOURCE_DIR}/charts/*.h")
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no sources found under ${SOURCE_DIR}")
endif()
