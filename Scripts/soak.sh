#!/usr/bin/env bash
# The soak: storesim serve under floods while three kinds of writers change the same session.
#   Scripts/soak.sh [--short] [BIN]    long form: 10 minutes of load; --short: 60 s (CI)
#   BIN defaults to the release build (built when missing), as the targets are a release's.
# Load, all at once for the duration:
#   - wrk: 1,000 keep-alive connections asking GET /inApps/v1/transactions/{id} (throughput);
#   - Scripts/soak_clients.py: two pipelining clients (batches of 2,000 requests), a slow client
#     (one byte every 200 ms, answered 408 by the request timeout, again and again), and a
#     well-behaved client asking one request at a time every 10 ms (its latencies: p50, p99);
#   - writers of the same session file: the CLI (`storesim buy` in a loop, customer "cli"), a
#     second process standing for StoreSimKit's writers (the CLI's session writes again, customer
#     "kit": StoreSimKit saves through the same SessionFile/AtomicFile code), and `storesim manage`
#     in tmux (customer "manage", buying coins with b, "coins" and Enter every second).
# Then it reports throughput, the well-behaved client's p99, serve's peak memory (VmHWM) and its
# CPU over 5 s of idle after the load, and checks that every write the CLI and the second process
# saw acknowledged (exit 0 and a transaction id) is in the session, and that the session loads.
# Targets: p99 < 50 ms (long form; the short form only < 500 ms, SOAK_P99_MS overrides both),
# peak memory < 256 MiB, idle CPU < 1%, nothing lost.
set -euo pipefail
SECONDS_OF_LOAD=600
P99_MS=${SOAK_P99_MS:-50}
# The short form (CI) judges p99 loosely (500 ms), as CI machines are shared; the long form at 50 ms.
if [ "${1:-}" = "--short" ]; then SECONDS_OF_LOAD=60; P99_MS=${SOAK_P99_MS:-500}; shift; fi
if [ $# -eq 0 ]; then
  # The release build, as Scripts/bench.sh uses (CI builds it once for both).
  (cd "$(dirname "$0")/.." && swift build -c release --product storesim >/dev/null)
  set -- "$(cd "$(dirname "$0")/.." && swift build -c release --show-bin-path)/storesim"
fi
. "$(dirname "$0")/lib.sh" "$@"
for tool in wrk tmux; do
  command -v "$tool" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null; }
done
cd "$WORK"
unset STORESIM_SESSION NO_COLOR
export TERM=xterm-256color
FAILED=0
fail() { echo "FAIL: $*" >&2; FAILED=1; }
SOCKET="storesim-soak-$$"
T() { tmux -L "$SOCKET" -f /dev/null "$@"; }
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  T kill-server 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

S init "$ROOT/Configurations/Premium.storekit" --start 2026-01-01T00:00:00Z --bundle-id com.example.app >/dev/null
S buy com.example.premium.lifetime >/dev/null
ID=2000000000000001
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
TOKEN="$(printf '{"alg":"ES256","kid":"K","typ":"JWT"}' | b64url).$(printf '{"iss":"i","aud":"appstoreconnect-v1","bid":"com.example.app","exp":%d}' $(($(date +%s) + 3000)) | b64url).c2ln"

"$BIN" serve --port 0 --quiet > url.txt 2> serve.err &
SERVE=$!
PIDS+=("$SERVE")
for _ in $(seq 200); do [ -s url.txt ] && break; sleep 0.05; done
URL=$(head -1 url.txt)
PORT=${URL##*:}
echo "soak: serve at $URL ($(sed -n 1p serve.err | sed 's/.*(\(up to [^)]*\)).*/\1/')), load for ${SECONDS_OF_LOAD} s"

# Peak memory: VmHWM of serve at the end. CPU: utime+stime ticks.
ticks() { awk '{print $14 + $15}' "/proc/$SERVE/stat"; }

# Writers: the CLI and a second process, each buying in a loop; an acknowledged id is recorded.
writer() { # CUSTOMER LOG
  local end=$(($(date +%s) + SECONDS_OF_LOAD))
  while [ "$(date +%s)" -lt "$end" ]; do
    if out=$("$BIN" buy com.example.coins.100 --customer "$1" --json 2>/dev/null); then
      printf '%s\n' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["transaction"]["transactionId"])' >> "$2"
    fi
    sleep 0.2
  done
}
writer cli acked-cli.txt &
PIDS+=($!)
writer kit acked-kit.txt &
PIDS+=($!)

# manage in tmux, buying as "manage" once a second: b opens "Buy as", "coins" picks the consumable,
# Enter buys it.
T new-session -d -s manage -x 80 -y 24 "$BIN manage --customer manage"
(
  end=$(($(date +%s) + SECONDS_OF_LOAD))
  while [ "$(date +%s)" -lt "$end" ]; do
    T send-keys -t manage b 2>/dev/null || true
    sleep 0.2
    T send-keys -t manage -l coins 2>/dev/null || true
    sleep 0.1
    T send-keys -t manage Enter 2>/dev/null || true
    sleep 0.7
  done
) &
PIDS+=($!)

python3 "$ROOT/Scripts/soak_clients.py" hostile 127.0.0.1 "$PORT" "$TOKEN" "/inApps/v1/transactions/$ID" \
  "$SECONDS_OF_LOAD" hostile.json &
HOSTILE=$!
python3 "$ROOT/Scripts/soak_clients.py" probe 127.0.0.1 "$PORT" "$TOKEN" "/inApps/v1/transactions/$ID" \
  "$SECONDS_OF_LOAD" probe.json &
CLIENTS=$!
wrk -t2 -c1000 -d"${SECONDS_OF_LOAD}s" --timeout 10s -H "Authorization: Bearer $TOKEN" \
  "$URL/inApps/v1/transactions/$ID" > wrk.txt 2>&1 || fail "wrk failed: $(tail -3 wrk.txt)"
wait "$CLIENTS" || fail "the soak's well-behaved client failed"
wait "$HOSTILE" || fail "the soak's hostile clients failed"
wait "${PIDS[1]}" "${PIDS[2]}" "${PIDS[3]}" 2>/dev/null || true
manage_screen=$(T capture-pane -p -t manage 2>/dev/null || true)
T send-keys -t manage q 2>/dev/null || true
sleep 1

# Idle: 5 s with no client.
t0=$(ticks)
sleep 5
t1=$(ticks)
hz=$(getconf CLK_TCK)
idle_cpu=$(python3 -c "print(round(100 * ($t1 - $t0) / $hz / 5, 2))")
peak_kib=$(awk '/VmHWM/ {print $2}' "/proc/$SERVE/status")
kill -TERM "$SERVE"
wait "$SERVE" || fail "serve exited $? after SIGTERM"

requests=$(awk '/requests in/ {print $1}' wrk.txt)
rps=$(awk '/Requests\/sec/ {print $2}' wrk.txt)
errors=$(grep -E 'Socket errors|Non-2xx' wrk.txt | tr '\n' ' ' || true)
read -r p50 p99 maxms wb pipelined slow errs < <(python3 -c '
import json; p, h = json.load(open("probe.json")), json.load(open("hostile.json"))
print(p["p50_ms"], p["p99_ms"], p["max_ms"], p["well_behaved"], h["pipelined"], h["slow_408"], len(p["errors"] + h["errors"]))')

# Nothing lost: every acknowledged id is in the session, and the session loads.
S now >/dev/null || fail "the session does not load after the soak"
S transactions --customer cli --json > cli.json || fail "transactions --json failed after the soak"
S transactions --customer kit --json > kit.json || fail "transactions --json failed after the soak"
lost=$(python3 - acked-cli.txt acked-kit.txt <<'EOF'
import json, sys
have = {t["transactionId"] for f in ("cli.json", "kit.json") for t in json.load(open(f))}
acked = [line.strip() for f in sys.argv[1:] for line in open(f) if line.strip()]
print(len(acked), len([a for a in acked if a not in have]))
EOF
)
acked=${lost% *}
lost=${lost#* }
manage_count=$(S transactions --customer manage --json 2>/dev/null | count || echo 0)

echo "soak: wrk $requests requests over 1,000 connections, $rps req/s ${errors:+($errors)}"
echo "soak: well-behaved client: $wb answers, p50 $p50 ms, p99 $p99 ms, max $maxms ms; pipelined answers $pipelined; slow client timed out $slow times; client errors $errs"
echo "soak: serve peak memory $((peak_kib / 1024)) MiB; CPU at idle after: ${idle_cpu}%"
echo "soak: writes acknowledged to the CLI and the second process: $acked, lost: $lost; manage bought $manage_count"
python3 -c "import sys; sys.exit(0 if float('$p99') < $P99_MS else 1)" || fail "p99 of the well-behaved client $p99 ms (target < $P99_MS ms)"
[ "$peak_kib" -lt $((256 * 1024)) ] || fail "peak memory $((peak_kib / 1024)) MiB (target < 256 MiB)"
python3 -c "import sys; sys.exit(0 if $idle_cpu < 1 else 1)" || fail "idle CPU ${idle_cpu}% (target < 1%)"
[ "$lost" = 0 ] || fail "$lost acknowledged writes are not in the session"
[ "$acked" -gt 0 ] || fail "no write was acknowledged during the soak"
[ "$manage_count" -gt 0 ] || fail "manage made no purchase during the soak; its screen: $manage_screen"
[ "$FAILED" = 0 ] && echo "soak: passed"
exit "$FAILED"
