#pragma once
#include <QString>
// A deliberate violation: proves CheckCoreHasNoQt.cmake can fail.
