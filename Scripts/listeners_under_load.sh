#!/usr/bin/env bash
# StoreSimKit's listener tests with both cores busy: a race between a control call and a
# listener that has not started iterating shows only when the machine is loaded. Runs the
# listener suites RUNS times (default 2; the race test's 200 rounds each) beside one busy loop
# per core, and fails on the first failure. Uses the debug build `swift build --build-tests` made.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
busy=()
for _ in $(seq "$cores"); do
  (while :; do :; done) &
  busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null || true' EXIT
for run in $(seq "$runs"); do
  log=.build/listeners-under-load-$run.log
  if ! STORESIM_RACE_ROUNDS=200 swift test --skip-build --filter "ListenerRaceTests|ListenerOnItsWayTests|FollowingSequencesTests|RestoreReadsTheQueueTests" >"$log" 2>&1 \
    || ! grep -q 'Test run with .* passed' "$log"; then
    grep -E '✘|error' "$log" | head -40 >&2
    echo "listener tests failed under load in run $run of $runs (log: $log)" >&2
    exit 1
  fi
  echo "run $run of $runs: $(grep -o 'Test run with .* passed after [0-9.]* seconds' "$log")"
done
