#!/usr/bin/env bash
# Guard for behaviour-preserving changes: record what the CLI prints for the example plan, 50 seeded
# random valid plans (every key varied), 10 invalid ones (their messages) and three searches, then
# compare a later build against the record.
#   tools/refactor-guard.sh record DIR [BINARY]    choose the plans, write them and the outputs to DIR
#   tools/refactor-guard.sh compare DIR [BINARY]   run the same plans again and diff (exit 1 on a difference)
# Timing fields of the search output (seconds, configs_per_second, threads) are dropped before comparing.
set -euo pipefail
mode=${1:?record|compare}
dir=${2:?output directory}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath "${3:-"$root/build/bin/trainplan"}")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$work/out"
mkdir -p "$out"

strip_timing() {
  python3 -c 'import json,sys
d=json.load(sys.stdin)
for k in ("seconds","configs_per_second","threads"): d.pop(k,None)
json.dump(d,sys.stdout,indent=1,sort_keys=True)'
}

case "$mode" in
  record)
    plans="$work/plans"
    mkdir -p "$plans" "$work/candidates"
    cp "$root/resources/examples/gpt3-175b-tp8-pp8.json" "$plans/example.json"
    python3 "$root/tools/refactor-guard/genplans.py" "$work/candidates" 400 20261130
    valid=0 invalid=0
    for candidate in "$work/candidates"/*.json; do
      if "$bin" estimate "$candidate" >/dev/null 2>&1; then
        ((valid < 50)) && cp "$candidate" "$plans/valid-$(printf %02d $valid).json" && valid=$((valid + 1))
      else
        ((invalid < 10)) && cp "$candidate" "$plans/invalid-$(printf %02d $invalid).json" && invalid=$((invalid + 1))
      fi
    done
    echo "chose $valid valid and $invalid invalid plans"
    ;;
  compare) plans="$dir/plans" ;;
  *) echo "usage: tools/refactor-guard.sh record|compare DIR [BINARY]" >&2; exit 2 ;;
esac

cd "$plans"
for plan in *.json; do
  name=${plan%.json}
  set +e
  "$bin" estimate "$plan" > "$out/$name.estimate.json" 2> "$out/$name.estimate.err"
  echo "exit $?" >> "$out/$name.estimate.err"
  "$bin" estimate "$plan" --format table > "$out/$name.table.txt" 2>/dev/null
  "$bin" estimate "$plan" --timeline > "$out/$name.timeline.json" 2>/dev/null
  set -e
done
for name in example valid-03 valid-07; do
  "$bin" search "$name.json" --top 20 --threads 2 | strip_timing > "$out/$name.search.json" || true
  # The report's text without its date line.
  if "$bin" report "$name.json" -o "$work/report.pdf" >/dev/null 2>&1; then
    pdftotext -layout "$work/report.pdf" - | grep -vE '[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}' | tr -s ' ' | sed 's/^ //' | grep -v '^$' > "$out/$name.report.txt"
  fi
done
cd - >/dev/null

if [ "$mode" = record ]; then
  rm -rf "$dir"; mkdir -p "$dir"
  cp -r "$out" "$dir/outputs"; cp -r "$plans" "$dir/plans"
  echo "recorded $(ls "$dir/outputs" | wc -l) outputs in $dir"
elif diff -r "$dir/outputs" "$out" > "$work/diff.txt"; then
  echo "identical: $(ls "$out" | wc -l) outputs"
else
  head -80 "$work/diff.txt"
  echo "DIFFERENT: $(grep -c '^diff\|^Only' "$work/diff.txt" || true) files differ"
  exit 1
fi
