#!/usr/bin/env bash
# A row of docs/reliability.md's nothing-is-lost table on its own: scenario runs are linear in
# their length. Runs a 25,000-line and a 100,000-line scenario (buys, then `expect`) and fails
# when the long one takes more than 6 times the CPU time of the short one (plus 1 s).
# CI runs it with the release build, once that is built (users run release builds; the debug
# build took 50 s of CPU for the long scenario, most of it unoptimised code, not the shape).
# Usage: Scripts/scenario_linear.sh [STORESIM]
set -euo pipefail
. "$(dirname "$0")/lib.sh" "$@"
cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
cp "$ROOT/Configurations/AppleSample.storekit" c.storekit
scenario() { python3 -c 'import sys; n = int(sys.argv[1]); print("init c.storekit --start 2026-01-01T00:00:00Z\n" + "buy consumable.fuel.octane87\n" * n + f"expect transactions {n}")' "$1" > "s$1.storesim"; }
scenario 25000; scenario 100000
small=$(cpu_ms run s25000.storesim) || fail "25,000-line scenario"
large=$(cpu_ms run s100000.storesim) || fail "100,000-line scenario"
[ "$large" -lt $((small * 6 + 1000)) ] || fail "scenario time not linear: 25k lines $small ms, 100k lines $large ms of CPU"
echo "row: scenarios are linear: 25,000 lines $small ms, 100,000 lines $large ms of CPU"
