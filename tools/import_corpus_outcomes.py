#!/usr/bin/env python3
"""The import corpus as one table (issue 38): every real configuration file in tests/data/import/real, imported
alone with only the device given, sorted into what `trainplan import` did with it:

- plan: a plan written from the file (its values are asserted in tests/io/tst_import.cpp's corpus cases);
- asks: refused only for keys no file gives, each named ("no file gives ..."): the user adds them with --set, the
  model's config.json, or --script-args;
- refused: refused at a line of the file or naming a plan key (a model Trainplan does not plan, a setting it
  cannot express), or the whole file (not a format Trainplan imports, or nothing it plans read from it).

A refusal that names neither a line nor a key is listed: a user would not know what to change.

What each file should give once the keys it does not say are added (the plan's parameters, shape and layout, or
the refusal it calls for) is tests/data/import/real_expected.csv, asserted by tst_import corpusPlansAreRight.

Usage: tools/import_corpus_outcomes.py [BUILD_DIR]   (default: build; needs BUILD_DIR/bin/trainplan)
"""

import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "import", "real")


def outcome(trainplan, path, out):
    run = subprocess.run([trainplan, "import", path, "--set", "cluster.device=h100-sxm5-80gb", "-o", out],
                         capture_output=True, text=True, check=False)
    errors = [line for line in run.stderr.splitlines() if line.startswith("error")]
    if run.returncode == 0:
        return "plan", []
    if errors and all("no file gives" in e for e in errors):
        return "asks", []
    whole_file = ("not a format Trainplan imports", "no setting Trainplan plans was read")
    vague = [e for e in errors if "no file gives" not in e and not re.search(r":\d+:", e)
             and not re.search(r"\b(model|training|parallel|cluster)\.[a-z_]+", e)
             and not any(verdict in e for verdict in whole_file)]
    return "refused", vague


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    trainplan = os.path.join(build, "bin", "trainplan")
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(ROOT) for f in names if f != "SOURCES.md")
    totals = collections.Counter()
    by_folder = collections.defaultdict(collections.Counter)
    vague = []
    with tempfile.TemporaryDirectory() as scratch:
        for path in files:
            kind, unnamed = outcome(trainplan, path, os.path.join(scratch, "plan.json"))
            totals[kind] += 1
            by_folder[os.path.relpath(os.path.dirname(path), ROOT)][kind] += 1
            vague += [(os.path.relpath(path, ROOT), e) for e in unnamed]
    print("| folder | files | plan | asks | refused |")
    print("|---|---|---|---|---|")
    for folder, counts in sorted(by_folder.items()):
        print(f"| {folder} | {sum(counts.values())} | {counts['plan']} | {counts['asks']} | {counts['refused']} |")
    print(f"| all | {len(files)} | {totals['plan']} | {totals['asks']} | {totals['refused']} |")
    print(f"\nRefusals naming neither a line nor a key: {len(vague)}")
    for path, error in vague:
        print(f"  {path}: {error[:160]}")


if __name__ == "__main__":
    main()
