#!/usr/bin/env bash
# Crash safety and concurrency, ROUNDS rounds each (default 100):
#  - SIGKILL a mutating call at a random instant; the session must load and hold the state
#    before or after the call (never a torn file, never a lost earlier update);
#  - 8 parallel buys on one session leave exactly 8 new transactions;
#  - a call on another session is not blocked while this session's lock is held.
# Usage: Scripts/reliability.sh [STORESIM] [ROUNDS]
set -euo pipefail
. "$(dirname "$0")/lib.sh" "$@"
ROUNDS="${2:-100}"
cd "$WORK"
fail() { echo "FAIL (round $round): $*" >&2; exit 1; }

S init "$ROOT/Configurations/AppleSample.storekit" --start 2026-01-01T00:00:00Z >/dev/null
S buy subscription.standard >/dev/null
round=0
for round in $(seq "$ROUNDS"); do
  n=$(S transactions --json | count)
  cp .storesim/session.json before.json
  case $((round % 3)) in
    0) "$BIN" buy consumable.fuel.octane87 >/dev/null 2>&1 & ;;
    1) "$BIN" advance 1mo >/dev/null 2>&1 & ;;
    2) "$BIN" refund --product consumable.fuel.octane87 >/dev/null 2>&1 & ;;
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
unset STORESIM_SESSION

# ---------------------------------------------------------------------------------------------
# Each row of the "nothing is lost" table: the reproduction, and what must hold now.
# ---------------------------------------------------------------------------------------------
round=rows
CONFIG="$ROOT/Configurations/AppleSample.storekit"
PREMIUM="$ROOT/Configurations/Premium.storekit"
code_of() { set +e; "$@" >/dev/null 2>&1; local c=$?; set -e; echo "$c"; }
fresh() { rm -rf "$WORK/r" && mkdir -p "$WORK/r" && cd "$WORK/r"; }
tx() { S transactions --json "$@" | count; }

# output before save: a reader that closes the pipe early never loses the purchase.
fresh
S init "$CONFIG" >/dev/null
for i in $(seq 20); do
  S buy consumable.fuel.octane87 | grep -q purchased || fail "grep did not see purchased"
  S buy consumable.fuel.octane87 | head -1 >/dev/null
done
[ "$(tx)" -eq 40 ] || fail "closed pipes lost purchases: $(tx) of 40"
S buy subscription.standard >/dev/null
S advance 1y | grep -q DID_RENEW || fail "advance output"
S transactions --product subscription.standard --json | count | grep -qx 13 || fail "advance lost renewals behind a closed pipe"
echo "row: closed pipes: 40 of 40 purchases and 12 renewals kept"

# full device: exit 74 with the system's reason, the purchase saved.
set +e; S buy nonconsumable.car > /dev/full 2>err.txt; c=$?; set -e
[ "$c" -eq 74 ] || fail "/dev/full exited $c"
grep -q "No space left on device" err.txt || fail "/dev/full: $(cat err.txt)"
S entitlements | grep -q nonconsumable.car || fail "/dev/full lost the purchase"
echo "row: full device: exit 74, 'No space left on device', purchase saved"

# shell vs command line: both keep each other's changes.
fresh
S init "$CONFIG" >/dev/null
{ echo "buy nonconsumable.car"; sleep 1.5; echo "buy nonconsumable.utilityvehicle"; } | S shell >/dev/null 2>&1 &
shell=$!
sleep 0.7
S buy consumable.fuel.octane87 >/dev/null
wait "$shell"
for p in nonconsumable.car consumable.fuel.octane87 nonconsumable.utilityvehicle; do
  S transactions | grep -q "$p" || fail "shell and command line: $p lost"
done
echo "row: shell beside another process: all three purchases kept"

# empty session path: a usage error, nothing moved.
fresh
mkdir proj
(cd proj; set +e; STORESIM_SESSION= "$BIN" init "$CONFIG" --force >/dev/null 2>&1; echo $? > ../code)
[ "$(cat code)" -eq 64 ] || fail "empty session path exited $(cat code)"
[ -d proj ] && [ ! -e proj.damaged ] || fail "empty session path moved the folder"
c=$(code_of S init "$CONFIG" --force --session proj)
[ "$c" -eq 64 ] && [ -d proj ] || fail "a folder as the session exited $c"
echo "row: empty or folder session path: exit 64, nothing moved"

# damaged copies: numbered, never overwritten, folders never moved.
for i in 1 2 3; do
  echo "damage $i" > s.json
  S init "$CONFIG" --force --session s.json >/dev/null 2>&1
done
[ "$(cat s.json.damaged)" = "damage 1" ] && [ "$(cat s.json.damaged.1)" = "damage 2" ] && [ "$(cat s.json.damaged.2)" = "damage 3" ] || fail "damaged copies overwritten"
echo "row: init --force keeps every damaged copy (.damaged, .damaged.1, .damaged.2)"

# symlinked session: the target is updated, the link kept, one lock.
fresh
mkdir real
S init "$CONFIG" --session real/s.json >/dev/null
ln -s real/s.json link.json
S buy nonconsumable.car --session link.json >/dev/null
[ -L link.json ] || fail "the symlink was replaced"
S entitlements --session real/s.json | grep -q nonconsumable.car || fail "the target did not see the purchase"
[ ! -e link.json.lock ] || fail "the link took its own lock"
echo "row: symlinked session: target updated, link kept, one lock"

# permissions: modes kept, read-only refused (77) and untouched.
chmod 600 real/s.json
S buy consumable.fuel.octane87 --session link.json >/dev/null
[ "$(stat -c %a real/s.json)" = 600 ] || fail "mode 0600 became $(stat -c %a real/s.json)"
chmod 444 real/s.json
cp real/s.json before.json
c=$(code_of S buy consumable.fuel.octane87 --session real/s.json)
[ "$c" -eq 77 ] || fail "a read-only session exited $c"
cmp -s before.json real/s.json || fail "a read-only session was changed"
[ "$(stat -c %a real/s.json)" = 444 ] || fail "a read-only session changed mode"
S entitlements --session real/s.json >/dev/null || fail "reading a read-only session"
echo "row: permissions: 0600 kept, 0444 refused with exit 77 and left as it was"

# read-only places: reading works where the user cannot write; changes are refused with 77.
fresh
S init "$CONFIG" --session place/s.json >/dev/null
chmod 755 "$WORK" "$WORK/r" place; chmod 644 place/s.json place/s.json.lock
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
  AS=(); chmod 555 place
fi
"${AS[@]}" "$BIN" now --session place/s.json >/dev/null || fail "now with a lock file of another user"
rm place/s.json.lock
[ ${#AS[@]} -gt 0 ] || chmod 555 place
"${AS[@]}" "$BIN" entitlements --session place/s.json >/dev/null || fail "entitlements where no lock file can be created"
set +e; "${AS[@]}" "$BIN" buy nonconsumable.car --session place/s.json >/dev/null 2>err.txt; c=$?; set -e
[ "$c" -eq 77 ] || fail "buy in a read-only place exited $c: $(cat err.txt)"
grep -q "Permission denied" err.txt || fail "no system reason: $(cat err.txt)"
chmod 755 place
echo "row: read-only places: now and entitlements work; buy exits 77 'Permission denied'"

# runaway advance and huge durations: refused at once, nothing saved.
fresh
S init "$PREMIUM" --start 2026-01-01T00:00:00Z >/dev/null 2>&1
S buy com.example.premium.monthly >/dev/null
cp .storesim/session.json before.json
for d in 99999y 1000000y P99999999999999999999Y P9999999999999999Y PT99999999999999999999999999999999999999S P1.5Y; do
  c=0; t=$(cpu_ms advance "$d") || c=$?
  [ "$c" -eq 64 ] || fail "advance $d exited $c"
  [ "$t" -lt 2000 ] || fail "advance $d took $t ms of CPU"
done
S settings time-rate oneRenewalEveryTwoSeconds >/dev/null
cp .storesim/session.json before.json
c=0; t=$(cpu_ms advance 50y) || c=$?
[ "$c" -eq 64 ] && [ "$t" -lt 2000 ] || fail "advance 50y at 2 s renewals: exit $c in $t ms of CPU"
cmp -s before.json .storesim/session.json || fail "a refused advance changed the session"
echo "row: runaway advance and huge or fractional durations: exit 64 at once, nothing saved"

# long ids on a large catalogue: "did you mean" is bounded.
python3 - "$CONFIG" big.storekit <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
template = next(p for p in d["products"] if p["type"] == "Consumable")
d["products"] = [dict(template, productID=f"com.example.consumable{i}", referenceName=f"c{i}", internalID=str(100000 + i)) for i in range(5000)]
d["subscriptionGroups"] = []; d["nonRenewingSubscriptions"] = []
json.dump(d, open(sys.argv[2], "w"))
PY
t=$(cpu_ms init big.storekit --force) || fail "init on 5,000 products"
[ "$t" -lt 5000 ] || fail "reading 5,000 products took $t ms of CPU"
long=$(python3 -c 'print("x" * 20000)')
c=0; t=$(cpu_ms buy "$long") || c=$?
[ "$c" -ne 0 ] && [ "$t" -lt 3000 ] || fail "buy <20,000 characters>: exit $c in $t ms of CPU"
echo "row: a 20,000-character id on 5,000 products answered in $t ms of CPU"

# long scenarios are linear: Scripts/scenario_linear.sh (CI runs it with the release build).

# size limits: a huge configuration is not read on every command; a huge scenario is refused.
fresh
cp "$CONFIG" c.storekit
S init c.storekit >/dev/null
rm c.storekit && truncate -s 400M c.storekit
t=$(cpu_ms now) || fail "now with a 400 MB configuration"
[ "$t" -lt 1500 ] || fail "a 400 MB configuration took $t ms of CPU"
truncate -s 500M huge.storesim
c=0; t=$(cpu_ms run huge.storesim) || c=$?
[ "$c" -eq 65 ] && [ "$t" -lt 1500 ] || fail "a 500 MB scenario: exit $c in $t ms of CPU"
rm -f c.storekit huge.storesim
echo "row: size limits: a 400 MB configuration is skipped, a 500 MB scenario refused (65)"

# delivery never holds the lock; endless bodies, redirects, IPv6, scheme case, bad ports.
fresh
S init "$PREMIUM" --start 2026-01-01T00:00:00Z >/dev/null 2>&1
# start_server NAME MODE [HOST] [LOG]: a test server in the background; its port is then in
# "$WORK/port-NAME"; every server is stopped on exit.
start_server() {
  local name="$1"; shift
  rm -f "$WORK/port-$name"
  python3 "$ROOT/Scripts/test_http_server.py" "$@" > "$WORK/port-$name.tmp" &
  echo $! >> "$WORK/servers.pids"
  for _ in $(seq 100); do [ -s "$WORK/port-$name.tmp" ] && break; sleep 0.1; done
  mv "$WORK/port-$name.tmp" "$WORK/port-$name"
}
port_of() { cat "$WORK/port-$1"; }
trap 'kill $(cat "$WORK/servers.pids" 2>/dev/null) 2>/dev/null; rm -rf "$WORK"' EXIT
start_server silent silent; silent=$(port_of silent)
S settings deliver-url "http://127.0.0.1:$silent/" >/dev/null
S buy com.example.premium.monthly >/dev/null 2>&1 &
buyer=$!
sleep 0.5
a=$(now_ms); S now >/dev/null; b=$(now_ms)
[ $((b - a)) -lt 2000 ] || fail "now waited $((b - a)) ms behind a delivery"
wait "$buyer" || true
S entitlements | grep -q premium.monthly || fail "the purchase behind a silent server was lost"
echo "row: a silent delivery server does not hold the session: now answered in $((b - a)) ms"

start_server endless endless; endless=$(port_of endless)
S settings deliver-url off >/dev/null
rss=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$BIN" notifications deliver "http://127.0.0.1:$endless/")
[ -n "$rss" ] && [ "$rss" -lt 200000 ] || fail "an endless response body: RSS ${rss:-?} KB"
echo "row: an endless response body is cut (RSS $rss KB)"

: > posts.log
start_server ok ok 127.0.0.1 "$WORK/r/posts.log"; okport=$(port_of ok)
export REDIRECT_PORT=$okport; start_server redirect redirect; redirect=$(port_of redirect)
set +e; S notifications deliver "http://127.0.0.1:$redirect/" > out.txt 2>&1; c=$?; set -e
[ "$c" -eq 1 ] || fail "a redirect counted as delivered (exit $c)"
grep -q "redirect (HTTP 307" out.txt || fail "the redirect was not recorded as failed: $(cat out.txt)"
[ ! -s posts.log ] || fail "the redirect target got a POST"
S notifications deliver --retry > out.txt 2>&1 || true
grep -q "127.0.0.1:$redirect/: HTTP 307" out.txt || fail "the redirect was not kept for retry: $(cat out.txt)"
echo "row: a 307 is a failed attempt kept for retry; the target got nothing"

S notifications deliver "HTTP://127.0.0.1:$okport/upper" >/dev/null || fail "an upper-case scheme"
grep -q "POST /upper" posts.log || fail "an upper-case scheme did not POST"
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
  start_server six ok ::1 "$WORK/r/posts6.log"; six=$(port_of six)
  S notifications deliver "http://[::1]:$six/six" >/dev/null || fail "an IPv6 literal"
  grep -q "POST /six" posts6.log || fail "an IPv6 literal did not POST"
  echo "row: IPv6 literals and upper-case schemes deliver"
else
  echo "row: upper-case schemes deliver (no IPv6 loopback here: the IPv6 case was not run)"
fi
c=$(code_of S settings deliver-url "http://127.0.0.1:99999/")
[ "$c" -eq 64 ] || fail "a bad port was accepted ($c)"
echo "row: a bad port is refused when it is set (64)"

# terminal injection: control characters are shown escaped.
python3 - "$CONFIG" evil.storekit <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["products"][0]["productID"] = "evil\x1b]0;pwned\x07\npurchased  forged"
json.dump(d, open(sys.argv[2], "w"))
PY
S init evil.storekit --force >/dev/null 2>&1
S products > out.txt 2>&1; S buy "$(printf 'x\033[2J')" >> out.txt 2>&1 || true
if grep -q "$(printf '\033')" out.txt; then fail "raw escape sequences reached the terminal: $(cat -v out.txt | grep -F '^[' | head -3)"; fi
grep -q '^purchased  forged' out.txt && fail "a newline in an id forged a line"
echo "row: control characters in ids are shown escaped"

# I/O errors name their cause: a file-size limit while saving.
S init "$CONFIG" --force >/dev/null
cp .storesim/session.json before.json
set +e; (ulimit -f 1; "$BIN" buy nonconsumable.car --json > out.json 2>err.txt); c=$?; set -e
[ "$c" -eq 74 ] || fail "a failed save exited $c"
grep -q "File too large" err.txt || fail "a failed save without its cause: $(cat err.txt)"
grep -q '"purchased"' out.json && fail "buy --json claimed a purchase it did not save: $(cat out.json)"
grep -q '"exitCode" *: *74' out.json || fail "buy --json did not print its error object: $(cat out.json)"
cmp -s before.json .storesim/session.json || fail "a failed save changed the session"
ls .storesim | grep -q tmp- && fail "a failed save left a temporary file"
echo "row: a failed save exits 74 with the system's reason, prints no outcome, leaves no file"

# signals during saves: SIGINT and SIGTERM leave the before or after state and no temporary file;
# a SIGKILL's temporary file is removed by the next save.
S init "$PREMIUM" --force >/dev/null 2>&1
for i in $(seq 30); do S buy "com.example.premium.monthly" --customer "c$i" >/dev/null; done
S advance 2y >/dev/null
for i in $(seq 20); do
  # exec: $! is storesim itself (not a subshell), with SIGINT not ignored as a background job's is.
  (trap - INT; exec "$BIN" advance 1d >/dev/null 2>&1) &
  pid=$!
  sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
  if [ $((i % 2)) -eq 0 ]; then kill -INT "$pid" 2>/dev/null || true; else kill -TERM "$pid" 2>/dev/null || true; fi
  wait "$pid" 2>/dev/null || true
  ls .storesim | grep -q 'tmp-' && fail "a signal left a temporary file"
  S now >/dev/null || fail "a signal tore the session"
done
"$BIN" advance 1d >/dev/null 2>&1 & pid=$!; sleep 0.05; kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
S advance 1d >/dev/null
ls .storesim | grep -q 'tmp-' && fail "a dead process's temporary file stayed"
echo "row: SIGINT and SIGTERM during saves leave no temporary file; a SIGKILL's is cleaned up"

# storesim serve beside its clients (issue 27, items 11-15): its own file, run in this shell.
. "$ROOT/Scripts/reliability-serve.sh"

echo "reliability passed"
echo "3 passed, 0 failed"
