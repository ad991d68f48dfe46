#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (as root) and for CI:
#   tools/setup.sh run     install what is missing, build, open the planner on the built-in example
#   tools/setup.sh test    install what is missing, build, run every test (ctest)
#   tools/setup.sh build   install what is missing and build
# Idempotent: packages already installed are not touched, the build is incremental.
set -euo pipefail

mode=${1:-run}
case "$mode" in
  run|test|build) ;;
  *) echo "usage: tools/setup.sh run|test|build" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${TRAINPLAN_BUILD_DIR:-"$root/build"}
jobs=${TRAINPLAN_JOBS:-2}

# Debian packages: toolchain, Qt 6 (Widgets, Charts, Test, platform plugins), QCustomPlot, Eigen; for
# imports yaml-cpp and toml++ (NeMo recipes, torchtitan job files); for
# the tests a comma-decimal locale's sources (locales), clang with libFuzzer (the short fuzz runs) and
# universal-ctags (the function-length check).
# libqt6opengl6-dev is needed by Qt Charts' CMake package but not pulled in by qt6-charts-dev.
packages=(
  cmake g++ make
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-qpa-plugins qt6-svg-dev
  libqcustomplot-dev libeigen3-dev libyaml-cpp-dev libtomlplusplus-dev zlib1g-dev
  fonts-dejavu-core
  locales poppler-utils universal-ctags
  clang-14 libclang-rt-14-dev llvm-14
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "run as root (or install sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  echo "== configuring $build_dir"
  # Optimised without debug information: on the CI's two cores the build is a quarter faster than with -g.
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" -DBUILD_TESTING=ON
fi
echo "== building with -j$jobs"
cmake --build "$build_dir" -j"$jobs"

trainplan="$build_dir/bin/trainplan"
case "$mode" in
  build)
    echo "== built $trainplan"
    ;;
  test)
    cd "$build_dir"
    exec ctest --output-on-failure -j"$jobs"
    ;;
  run)
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
      echo "No display (DISPLAY/WAYLAND_DISPLAY unset): cannot open the planner window here." >&2
      echo "The same estimate, headless (trainplan estimate):" >&2
      exec "$trainplan" estimate "$root/resources/examples/gpt3-175b-tp8-pp8.json" --format table
    fi
    exec "$trainplan"
    ;;
esac
