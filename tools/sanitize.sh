#!/usr/bin/env bash
# Builds the whole suite with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and runs every
# test under it (benchmarks excluded: they only measure). Not part of the default CI path (slower build).
#   bash tools/sanitize.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${TRAINPLAN_SANITIZE_DIR:-"$root/build-asan"}
bash "$root/tools/setup.sh" build >/dev/null # installs what is missing
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON -DTRAINPLAN_SANITIZE=ON -DTRAINPLAN_UNITY=OFF
fi
cmake --build "$build_dir" -j"${TRAINPLAN_JOBS:-2}"
cd "$build_dir"
# Leak checking stays on; halt on the first error of either sanitizer.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec ctest --output-on-failure -j"${TRAINPLAN_JOBS:-2}" -LE bench
