#!/usr/bin/env bash
# Smoke test of the storesim binary: the acceptance story of the CLI, parallel calls on one
# session, and SIGKILL at random instants. Usage: Scripts/smoke.sh [path/to/storesim]
set -euo pipefail
. "$(dirname "$0")/lib.sh" "$@"
cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

S init "$ROOT/Configurations/AppleSample.storekit" --start 2026-01-01T00:00:00Z >/dev/null
S buy nonconsumable.car >/dev/null
S buy consumable.fuel.octane87 --quantity 2 >/dev/null
S buy subscription.standard >/dev/null
S buy nonRenewing.standard >/dev/null
S settings ask-to-buy on >/dev/null
[ "$(S buy nonconsumable.racecar --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"])')" = pending ] || fail "ask to buy is not pending"
S approve >/dev/null
S settings ask-to-buy off >/dev/null
S advance 2mo >/dev/null
S refund 2000000000000001 >/dev/null

S entitlements --json > ent.json
S status --json > status.json
S transactions --json > tx.json
python3 - <<'PY'
import json
ent = json.load(open("ent.json")); status = json.load(open("status.json")); tx = json.load(open("tx.json"))
ids = sorted(t["productId"] for t in ent)
assert ids == ["nonRenewing.standard", "nonconsumable.racecar", "subscription.standard"], ids
assert all(t["type"] != "Consumable" for t in ent)
assert status[0]["state"] == "subscribed" and status[0]["status"] == 1, status
sub = [t for t in tx if t["productId"] == "subscription.standard"]
assert len(sub) == 3 and [t.get("transactionReason") for t in sub] == ["PURCHASE", "RENEWAL", "RENEWAL"], sub
assert len({t["originalTransactionId"] for t in sub}) == 1
car = [t for t in tx if t["productId"] == "nonconsumable.car"][0]
assert "revocationDate" in car and car["revocationReason"] == 0, car
print("story: ok")
PY

before=$(S transactions --json | count)
for i in $(seq 20); do S buy consumable.fuel.octane89 >/dev/null & done
wait
after=$(S transactions --json | count)
[ $((after - before)) -eq 20 ] || fail "20 parallel buys left $((after - before)) transactions"
echo "parallel: 20 buys, 20 transactions"

for i in $(seq 40); do
  n=$(S transactions --json | count)
  "$BIN" buy consumable.fuel.octane91 >/dev/null 2>&1 &  # $! is storesim itself, not a subshell
  pid=$!
  sleep "0.0$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  m=$(S transactions --json | count) || fail "session does not load after a kill"
  [ "$m" -eq "$n" ] || [ "$m" -eq $((n + 1)) ] || fail "after a kill: $n -> $m transactions"
done
S buy consumable.fuel.octane91 >/dev/null
ls .storesim | grep -q tmp && fail "temporary files left behind"
echo "kill: 40 rounds, the session always loads with the state before or after"
echo "smoke passed"
