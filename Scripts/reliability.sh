#!/usr/bin/env bash
# Crash safety and concurrency, ROUNDS rounds each (default 100):
#  - SIGKILL a mutating call at a random instant; the session must load and hold the state
#    before or after the call (never a torn file, never a lost earlier update);
#  - 8 parallel buys on one session leave exactly 8 new transactions;
#  - a call on another session is not blocked while this session's lock is held.
# Usage: Scripts/reliability.sh [STORESIM] [ROUNDS]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$(realpath "${1:-$(cd "$ROOT" && swift build --show-bin-path)/storesim}")"
ROUNDS="${2:-100}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
S() { "$BIN" "$@"; }
count() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
fail() { echo "FAIL (round $round): $*" >&2; exit 1; }

S init "$ROOT/Configurations/AppleSample.storekit" --start 2026-01-01T00:00:00Z >/dev/null
S buy subscription.standard >/dev/null
round=0
for round in $(seq "$ROUNDS"); do
  n=$(S transactions --json | count)
  cp .storesim/session.json before.json
  case $((round % 3)) in
    0) S buy consumable.fuel.octane87 >/dev/null 2>&1 & ;;
    1) S advance 1mo >/dev/null 2>&1 & ;;
    2) S refund --product consumable.fuel.octane87 >/dev/null 2>&1 & ;;
  esac
  pid=$!
  sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  m=$(S transactions --json | count) || fail "the session does not load after a kill"
  [ "$m" -ge "$n" ] || fail "transactions went from $n to $m"
  [ "$m" -le $((n + 2)) ] || fail "transactions went from $n to $m"
  if [ "$m" -eq "$n" ] && ! cmp -s before.json .storesim/session.json; then
    # Same count: nothing was saved, or a refund or advance without new transactions was; either
    # way the file must be a whole session.
    S now >/dev/null || fail "torn session file"
  fi
done
echo "kill: $ROUNDS rounds; after every SIGKILL the session loaded with the state before or after the call"

export STORESIM_SESSION="$WORK/parallel.json"
S init "$ROOT/Configurations/AppleSample.storekit" >/dev/null
for round in $(seq "$ROUNDS"); do
  n=$(S transactions --json | count)
  for i in $(seq 8); do S buy consumable.fuel.octane89 >/dev/null & done
  wait
  m=$(S transactions --json | count)
  [ $((m - n)) -eq 8 ] || fail "8 parallel buys left $((m - n)) transactions"
done
echo "parallel: $ROUNDS rounds of 8 concurrent buys; no update lost"

S init "$ROOT/Configurations/AppleSample.storekit" --session "$WORK/other.json" >/dev/null
for round in $(seq 5); do
  ( flock "$WORK/parallel.json.lock" sleep 2 ) &
  holder=$!
  sleep 0.2
  a=$(date +%s%N)
  S buy nonconsumable.car --session "$WORK/other.json" >/dev/null
  b=$(date +%s%N)
  [ $(( (b - a) / 1000000 )) -lt 1500 ] || fail "a call on another session waited $(( (b - a) / 1000000 )) ms"
  a=$(date +%s%N)
  S now >/dev/null
  b=$(date +%s%N)
  [ $(( (b - a) / 1000000 )) -ge 1000 ] || fail "a call on the locked session did not wait for the lock"
  wait "$holder"
done
echo "isolation: calls on another session run while this one is locked; calls on this one wait"
echo "reliability passed"
echo "3 passed, 0 failed"
