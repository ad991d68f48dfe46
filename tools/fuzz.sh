#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and runs each on its seed corpus.
#   bash tools/fuzz.sh SECONDS           bounded run per target (CI: a short one)
#   bash tools/fuzz.sh runs:N            N executions per target (the long local runs)
# A crash leaves its input in build-fuzz/findings/<target>/ and fails the script.
set -euo pipefail
limit=${1:-20}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${TRAINPLAN_FUZZ_DIR:-"$root/build-fuzz"}
clang=$(command -v clang++-14 || command -v clang++ || true)
[ -n "$clang" ] || { echo "tools/fuzz.sh: clang++ not found (tools/setup.sh installs clang-14)" >&2; exit 1; }
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  # -O1 with line tables only: what AddressSanitizer recommends, symbolized stacks, and a quick build.
  cmake -S "$root" -B "$build_dir" -DCMAKE_CXX_COMPILER="$clang" -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1 -gline-tables-only" \
    -DBUILD_TESTING=OFF -DTRAINPLAN_FUZZ=ON >/dev/null
fi
# TRAINPLAN_FUZZ_TARGETS="trace measurements" runs only those.
read -r -a targets <<< "${TRAINPLAN_FUZZ_TARGETS:-plan devices models trace measurements import_hf import_megatron import_nemo import_torchtitan import_deepspeed import_llmfoundry}"
cmake --build "$build_dir" -j"${TRAINPLAN_JOBS:-2}" --target "${targets[@]/#/fuzz_}" >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
status=0
# Seeds: the loaders' own corpus; the importers start from the real-shaped configurations of the import
# tests and the expansion, alias and nesting bombs of issue 39, the trace reader from the hand-made traces.
seeds_of() {
  case "$1" in
    import_*) echo "$root/tests/data/import $root/tests/fuzz/corpus/import-bombs" ;;
    trace) echo "$root/tests/data/traces" ;;
    *) echo "$root/tests/fuzz/corpus/$1" ;;
  esac
}
# One target's run; its report goes to its log, its exit status says whether it found something.
run_target() {
  local target=$1 corpus="$build_dir/corpus/$1" findings="$build_dir/findings/$1" bound
  mkdir -p "$corpus" "$findings"
  if [[ "$limit" == runs:* ]]; then bound="-runs=${limit#runs:}"; else bound="-max_total_time=$limit"; fi
  "$build_dir/tests/fuzz/fuzz_$target" "$bound" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$corpus" $(seeds_of "$target") 2>"$build_dir/fuzz_$target.log"
}
# The targets run TRAINPLAN_JOBS at a time (each is single-threaded).
jobs=${TRAINPLAN_JOBS:-2}
declare -A pids=()
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$target" &
  pids[$target]=$!
done
for target in "${targets[@]}"; do
  echo "== fuzz_$target"
  if ! wait "${pids[$target]}"; then
    status=1
    tail -30 "$build_dir/fuzz_$target.log" >&2
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR" "$build_dir/fuzz_$target.log" || true
done
exit $status
