#!/usr/bin/env bash
# storesim benchmark: prints each figure of product spec §7 with its target and a verdict, all
# measured in this one run, on this machine. Exits 1 when a target is missed.
#   Scripts/bench.sh          full sizes (several minutes)
#   Scripts/bench.sh --quick  the same figures at small sizes (< 30 s); a smoke check: figures
#                             are printed but not judged, and it exits 0 unless something breaks
set -euo pipefail
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
# The two products it runs (not the StoreKit libraries, which nothing here times).
swift build -c release --product storesim >/dev/null
swift build -c release --product storesim-bench >/dev/null
BIN="$(swift build -c release --show-bin-path)"
S="$BIN/storesim"
B="$BIN/storesim-bench"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT  # (replaced below once the server helpers exist)
MISSED=0

now_us() { echo $(( $(date +%s%N) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# time_us CMD...: microseconds of one run
time_us() { local a b; a=$(now_us); "$@" >/dev/null 2>&1; b=$(now_us); echo $((b - a)); }
verdict() { # name value target-text ok(0/1)
  local v="ok"
  if [ "$QUICK" = 1 ]; then v="(quick: not judged)"; elif [ "$4" != 1 ]; then v="MISSED"; MISSED=1; fi
  printf '%-58s %14s   target %-14s %s\n' "$1" "$2" "$3" "$v"
}
le() { awk -v a="$1" -v b="$2" 'BEGIN {print (a <= b) ? 1 : 0}'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN {print (a >= b) ? 1 : 0}'; }

echo "storesim benchmark $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores, $(uname -m)$([ "$QUICK" = 1 ] && echo ', quick sizes')"

# 1. One CLI call on a session of 10 transactions, as a ratio to a bare --version.
RUNS=$([ "$QUICK" = 1 ] && echo 7 || echo 41)
export STORESIM_SESSION="$WORK/small.json"
"$S" init Configurations/AppleSample.storekit --start 2026-01-01T00:00:00Z >/dev/null
for i in $(seq 10); do "$S" buy consumable.fuel.octane87 >/dev/null; done
: > "$WORK/v"; : > "$WORK/e"
for i in $(seq "$RUNS"); do time_us "$S" --version >> "$WORK/v"; time_us "$S" entitlements >> "$WORK/e"; done
V=$(median < "$WORK/v"); E=$(median < "$WORK/e")
R1=$(awk -v e="$E" -v v="$V" 'BEGIN {printf "%.2f", e / v}')
verdict "1. CLI call (entitlements, 10 transactions) / --version" "$R1 ($((E / 1000)) ms)" "<= 1.5" "$(le "$R1" 1.5)"

# 2. A year of monthly renewals for one subscriber from the command line.
: > "$WORK/y"
for i in $(seq 5); do
  export STORESIM_SESSION="$WORK/year$i.json"
  "$S" init Configurations/Premium.storekit --start 2026-01-01T00:00:00Z >/dev/null 2>&1
  "$S" buy com.example.premium.monthly >/dev/null
  time_us "$S" advance 1y >> "$WORK/y"
done
Y=$(median < "$WORK/y")
verdict "2. a year of monthly renewals (advance 1y), wall time" "$((Y / 1000)) ms" "< 50 ms" "$(le "$Y" 49999)"

# 3. Library throughput, one core, median of 5 runs (a run of 1,000 subscribers takes 40 ms, and
# this machine's speed moves by a third within a minute); 6. its peak memory. The clock advances a
# day per call, as a test script steps it; every event of every call is counted.
SMALL=$([ "$QUICK" = 1 ] && echo 200 || echo 1000)
LARGE=$([ "$QUICK" = 1 ] && echo 2000 || echo 100000)
field() { awk -v k="$2" '$1 == k {print $2}' "$1"; }
throughput() { # N OUT [--warm]: median events/s of 5 runs, the last run's output kept in OUT
  local i
  for i in 1 2 3 4 5; do taskset -c 0 "$B" throughput "$1" 2 ${3:-} > "$2"; field "$2" events_per_second; done \
    | sort -n | awk '{a[NR]=$1} END {printf "%d", a[3]}'
}
T1=$(throughput "$SMALL" "$WORK/t1")
T2=$(throughput "$LARGE" "$WORK/t2")
verdict "3. library events/s, $SMALL subscribers over 2 years" "$T1" ">= 1000000" "$(ge "$T1" 1000000)"
verdict "3. library events/s, $LARGE subscribers over 2 years" "$T2" ">= 1000000" "$(ge "$T2" 1000000)"
# For comparison, not judged: the small size after an uncounted run of 500 subscribers for a
# year in the same process (a new process's one-time costs are a part of a run of 50 ms).
T1W=$(throughput "$SMALL" "$WORK/t1w" --warm)
printf '%-58s %14s   (not judged: after an uncounted run in the same process)\n' \
  "   library events/s, $SMALL subscribers, warm" "$T1W"
# For comparison, not judged: the same story in one advance call, whose result holds all events.
taskset -c 0 "$B" throughput "$LARGE" 2 --one-call > "$WORK/t3"
printf '%-58s %14s   (not judged: one advance call returning all %s events)\n' \
  "   library events/s, $LARGE subscribers, one call" "$(field "$WORK/t3" events_per_second | awk '{printf "%d", $1}')" "$(field "$WORK/t3" events)"

# 4. Scaling: a history of 10x the transactions costs at most 11x the time.
H1=$([ "$QUICK" = 1 ] && echo 100 || echo 500)
H2=$((H1 * 10))
# The two sizes run in turns (7 each), and the figure is the median of the turns' ratios: this
# machine's speed drifts by a third or more within a minute, and a turn's two runs, a second
# apart, see the same machine (a ratio of the two sizes' medians would pair runs minutes apart).
: > "$WORK/s1"; : > "$WORK/s2"; : > "$WORK/w1"; : > "$WORK/w2"
for i in 1 2 3 4 5 6 7; do
  taskset -c 0 "$B" throughput "$H1" 2 > "$WORK/h1"; field "$WORK/h1" seconds >> "$WORK/s1"
  taskset -c 0 "$B" throughput "$H2" 2 > "$WORK/h2"; field "$WORK/h2" seconds >> "$WORK/s2"
  taskset -c 0 "$B" throughput "$H1" 2 --warm > "$WORK/h1w"; field "$WORK/h1w" seconds >> "$WORK/w1"
  taskset -c 0 "$B" throughput "$H2" 2 --warm > "$WORK/h2w"; field "$WORK/h2w" seconds >> "$WORK/w2"
done
turn_ratios() { paste "$1" "$2" | awk '{printf "%.4f\n", $2 / $1}' | median; } # SMALL LARGE
X1=$(field "$WORK/h1" transactions); X2=$(field "$WORK/h2" transactions)
R4=$(turn_ratios "$WORK/s1" "$WORK/s2" | awk '{printf "%.2f", $1}')
verdict "4. time for $X2 / for $X1 transactions (7 turns)" \
  "$R4 ($(median < "$WORK/s2" | awk '{printf "%.0f", $1 * 1000}')/$(median < "$WORK/s1" | awk '{printf "%.1f", $1 * 1000}') ms)" "<= 11" "$(le "$R4" 11)"
R4W=$(turn_ratios "$WORK/w1" "$WORK/w2" | awk '{printf "%.2f", $1}')
printf '%-58s %14s   (not judged: each after an uncounted run in the same process)\n' "   the same, warm" "$R4W"

# 5. One CLI call on a session of 100,000 transactions.
N5=$([ "$QUICK" = 1 ] && echo 5000 || echo 100000)
"$B" session "$N5" > "$WORK/big.json"
export STORESIM_SESSION="$WORK/big.json"
"$S" entitlements >/dev/null  # the generated session must load (a refused one would time an error)
: > "$WORK/b"
for i in $(seq 5); do time_us "$S" entitlements >> "$WORK/b"; done
BIG=$(median < "$WORK/b")
verdict "5. CLI call (entitlements) on $N5 transactions" "$((BIG / 1000)) ms" "< 300 ms" "$(le "$BIG" 299999)"

# 6. Peak memory of item 3, per subscriber at both sizes (linear growth: at most 1.5x).
M1=$(field "$WORK/t1" peak_mib); M2=$(field "$WORK/t2" peak_mib)
P1=$(awk -v m="$M1" -v n="$SMALL" 'BEGIN {printf "%.1f", m * 1024 / n}')
P2=$(awk -v m="$M2" -v n="$LARGE" 'BEGIN {printf "%.1f", m * 1024 / n}')
R6=$(awk -v a="$P1" -v b="$P2" 'BEGIN {printf "%.2f", b / a}')
verdict "6. peak memory $M1 MiB / $M2 MiB; KiB per subscriber $P1 -> $P2" "$R6" "<= 1.5 (linear)" "$(le "$R6" 1.5)"

# 7. The server (storesim serve): GET /inApps/v1/transactions/{id} with keep-alive and 8
# connections, measured with wrk (Debian's package, installed here when missing) on the same
# 2 cores as the server, so the load generator's own work is included.
if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null && apt-get install -y -qq wrk >/dev/null 2>&1 || true
  fi
fi
# A bearer token shaped as Apple requires (ES256 header with kid; iss, aud, bid, exp within the
# hour). storesim cannot check the signature without the team's key, so any bytes stand for it.
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
token() { # BUNDLE
  local h p
  h=$(printf '{"alg":"ES256","kid":"BENCHKEY","typ":"JWT"}' | b64url)
  p=$(printf '{"iss":"bench","aud":"appstoreconnect-v1","bid":"%s","exp":%d}' "$1" $(( $(date +%s) + 1800 )) | b64url)
  echo "$h.$p.c2lnbmF0dXJl"
}
SERVER_PID=""
stop_server() { if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; fi; }
trap 'stop_server; rm -rf "$WORK"' EXIT
start_server() { # SESSION: starts storesim serve --port 0 --quiet, sets URL
  "$S" serve --port 0 --quiet --session "$1" > "$WORK/url" 2> "$WORK/serve.err" &
  SERVER_PID=$!
  local i
  for i in $(seq 600); do [ -s "$WORK/url" ] && break; sleep 0.05; done
  URL=$(head -1 "$WORK/url")
}
ms_of() { # a wrk latency like 512.00us / 1.20ms / 1.01s -> milliseconds
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}
# Milliseconds of one request on a fresh connection (curl), and the ID of the first transaction.
curl_ms() { curl -s -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $TOKEN" "$URL/inApps/v1/transactions/$1" | awk '{printf "%.2f", $1 * 1000}'; }
N7=$([ "$QUICK" = 1 ] && echo 200 || echo 1000)
"$B" session "$N7" > "$WORK/serve-small.json"
TOKEN=$(token com.example.app)
if command -v wrk >/dev/null 2>&1; then
  start_server "$WORK/serve-small.json"
  DURATION=$([ "$QUICK" = 1 ] && echo 3s || echo 15s)
  wrk -t 2 -c 8 -d "$DURATION" --latency -H "Authorization: Bearer $TOKEN" "$URL/inApps/v1/transactions/2000000000000001" > "$WORK/wrk" 2>&1 || true
  stop_server
  RPS=$(awk '/^Requests\/sec:/ {printf "%d", $2}' "$WORK/wrk")
  P99=$(ms_of "$(awk '$1 == "99%" {print $2}' "$WORK/wrk")")
  NON2XX=$(awk '/Non-2xx/ {print $NF}' "$WORK/wrk")
  [ -n "$NON2XX" ] && { echo "wrk saw $NON2XX non-2xx answers:"; cat "$WORK/wrk"; MISSED=1; }
  verdict "7. serve: GET transaction, 8 keep-alive connections, $N7 txns" "${RPS:-0} req/s" ">= 10000" "$(ge "${RPS:-0}" 10000)"
  verdict "7. serve: p99 latency of the same run" "$P99 ms" "< 5 ms" "$(awk -v a="$P99" 'BEGIN {print (a < 5) ? 1 : 0}')"
else
  printf '%-58s %14s\n' "7. serve (wrk not installed; apt-get install wrk)" "not measured"
  MISSED=1
fi

# 8. The server on a session of 100,000 transactions: the first answer, timed from starting
# `storesim serve` (the session is read at start, without its notification outbox, which only
# notification history, test notifications and changes read) to the answer of its first
# request, median of 3 starts; then the median of 20 later requests, each on a new connection
# (curl's own time for the request, not its process start).
# first_answer SESSION OUT [keep]: three starts of `storesim serve` on SESSION, each timed from
# starting the process to the answer of its first request (GET of the first transaction), in
# milliseconds, one a line in OUT; with `keep`, the last server is left running (URL set).
first_answer() { # SESSION FILE [keep] [TRANSACTION]: ms from serve's start to the answer about
  # TRANSACTION (2000000000000001 unless given), three fresh serves
  local run start_us
  : > "$2"
  for run in 1 2 3; do
    start_us=$(now_us)
    rm -f "$WORK/url"
    "$S" serve --port 0 --quiet --session "$1" > "$WORK/url" 2> "$WORK/serve.err" &
    SERVER_PID=$!
    while [ ! -s "$WORK/url" ] && kill -0 "$SERVER_PID" 2>/dev/null; do sleep 0.002; done
    URL=$(head -1 "$WORK/url")
    curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" "$URL/inApps/v1/transactions/${4:-2000000000000001}"
    echo $(( ($(now_us) - start_us) / 1000 )) >> "$2"
    [ "$run" = 3 ] && [ "${3:-}" = keep ] || stop_server
  done
}
first_answer "$WORK/big.json" "$WORK/first" keep
FIRST=$(median < "$WORK/first")
: > "$WORK/later"
for i in $(seq 20); do curl_ms $((2000000000000001 + i * 7)) >> "$WORK/later"; echo >> "$WORK/later"; done
LATER=$(grep . "$WORK/later" | median)
stop_server
verdict "8. serve on $N5 transactions: start to first answer" "$FIRST ms" "< 300 ms" "$(le "$FIRST" 299)"
verdict "8. serve on $N5 transactions: later requests, median" "$LATER ms" "< 5 ms" "$(awk -v a="$LATER" 'BEGIN {print (a < 5) ? 1 : 0}')"

# 9. A scenario's cost is linear in its length: N lines of `buy` + `finish --all` (each finish
# sees only what is new) at N and 4N lines. The sizes run in turns, N 4N N 4N ... N; each long
# run is compared with the mean of the short runs just before and after it (the machine's speed
# drifts within the 10 s a long run takes), and the figure is the median of those 5 ratios.
L1=$([ "$QUICK" = 1 ] && echo 5000 || echo 50000)
L2=$((L1 * 4))
scenario() { # LINES FILE
  { echo "init $ROOT/Configurations/AppleSample.storekit --start 2026-01-01T00:00:00Z"
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i += 2) { print "buy consumable.fuel.octane87"; print "finish --all" } }'
  } > "$2"
}
scenario "$L1" "$WORK/l1.storesim"; scenario "$L2" "$WORK/l2.storesim"
"$S" run "$WORK/l1.storesim" >/dev/null || { echo "the generated scenario failed"; MISSED=1; }
: > "$WORK/r1"; : > "$WORK/r2"
time_us "$S" run "$WORK/l1.storesim" >> "$WORK/r1"
for i in 1 2 3 4 5; do
  time_us "$S" run "$WORK/l2.storesim" >> "$WORK/r2"
  time_us "$S" run "$WORK/l1.storesim" >> "$WORK/r1"
done
R9=$(paste "$WORK/r2" <(head -5 "$WORK/r1") <(tail -5 "$WORK/r1") \
  | awk '{printf "%.4f\n", $1 / (($2 + $3) / 2)}' | median | awk '{printf "%.2f", $1}')
RL1=$(median < "$WORK/r1"); RL2=$(median < "$WORK/r2")
verdict "9. scenario of $L2 lines (buy + finish --all) / $L1 lines" "$R9 ($((RL2 / 1000))/$((RL1 / 1000)) ms)" "<= 4.4" "$(le "$R9" 4.4)"

# 10. storesim manage on the session of item 5, in a pseudo-terminal of 80x24 (Python's pty):
# from starting the process to its first whole screen (median of 3; the notification log is
# read after it), and what one key writes while scrolling, rows moved one at a time (j) and a
# page at a time (PgDn): the lines redrawn (at most the screen, whatever the session's size)
# and the bytes, beside those of the whole first screen.
: > "$WORK/mfirst"
for run in 1 2 3; do
  python3 Scripts/manage_pty_bench.py "$S" "$WORK/big.json" --first-only | awk '$1 == "first_screen_ms" {print $2}' >> "$WORK/mfirst"
done
MFIRST=$(median < "$WORK/mfirst")
python3 Scripts/manage_pty_bench.py "$S" "$WORK/big.json" > "$WORK/manage"
MLINES=$(awk '$1 ~ /_max_lines$/ && $2 > m {m = $2} END {print m + 0}' "$WORK/manage")
MBYTES=$(awk '$1 ~ /_max_bytes$/ && $2 > m {m = $2} END {print m + 0}' "$WORK/manage")
verdict "10. manage on $N5 transactions: start to first screen" "$MFIRST ms" "< 300 ms" "$(le "$MFIRST" 299)"
verdict "10. manage: most lines one scrolling key redraws (j, PgDn)" "$MLINES of 24" "<= 24" "$(le "$MLINES" 24)"
printf '%-58s %14s   (not judged: the whole first screen is %s bytes; the log was read at %s ms)\n' \
  "   manage: most bytes one scrolling key writes" "$MBYTES" "$(field "$WORK/manage" frame_bytes)" "$(field "$WORK/manage" full_load_ms)"

# 11. serve against nginx serving the same bytes as a static file, on the same cores, with wrk
# (nginx and wrk are Debian's packages, installed here when missing): requests per second of
# `GET /inApps/v1/transactions/{id}` over keep-alive connections, 8 and then 1,000 of them (a
# load test: every connection held open at once). The two servers run in turns, so a change in
# the machine's load weighs on both; the figure is the median of the per-turn ratios.
if ! command -v nginx >/dev/null 2>&1 && [ -x /usr/sbin/nginx ]; then PATH="$PATH:/usr/sbin"; fi
if ! command -v nginx >/dev/null 2>&1 || ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && apt-get install -y -qq nginx wrk; } >/dev/null 2>&1 || true
    PATH="$PATH:/usr/sbin"
  fi
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
NGINX_PID=""
stop_nginx() { if [ -n "$NGINX_PID" ]; then kill -QUIT "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; NGINX_PID=""; fi; }
trap 'stop_server; stop_nginx; rm -rf "$WORK"' EXIT
rps() { # CONNECTIONS SECONDS URL [HEADER]: requests/s of one wrk run (0 when any request failed)
  local out
  if [ -n "${4:-}" ]; then out=$(wrk -t 2 -c "$1" -d "$2s" -H "$4" "$3" 2>&1 || true); else out=$(wrk -t 2 -c "$1" -d "$2s" "$3" 2>&1 || true); fi
  if echo "$out" | grep -qE 'Non-2xx|Socket errors'; then echo "$out" | grep -E 'Non-2xx|Socket errors' >&2; echo 0; return; fi
  echo "$out" | awk '/^Requests\/sec:/ {printf "%d", $2}'
}
if command -v nginx >/dev/null 2>&1 && command -v wrk >/dev/null 2>&1; then
  ID=2000000000000001
  start_server "$WORK/serve-small.json"
  mkdir -p "$WORK/nginx/www/inApps/v1/transactions" "$WORK/nginx/tmp"
  chmod 755 "$WORK"  # nginx's workers run as an unprivileged user and must read the file
  curl -s -H "Authorization: Bearer $TOKEN" "$URL/inApps/v1/transactions/$ID" > "$WORK/nginx/www/inApps/v1/transactions/$ID"
  chmod -R a+rX "$WORK/nginx"
  NPORT=$(free_port)
  cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes $(nproc);
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
daemon off;
worker_rlimit_nofile 8192;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/tmp; proxy_temp_path $WORK/nginx/tmp; fastcgi_temp_path $WORK/nginx/tmp;
  uwsgi_temp_path $WORK/nginx/tmp; scgi_temp_path $WORK/nginx/tmp;
  keepalive_requests 100000000;
  default_type application/json;
  server { listen 127.0.0.1:$NPORT; root $WORK/nginx/www; }
}
CONF
  nginx -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" 2>/dev/null &
  NGINX_PID=$!
  for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$NPORT/" && break; sleep 0.05; done
  TURNS=$([ "$QUICK" = 1 ] && echo 1 || echo 7)
  SECONDS_PER=$([ "$QUICK" = 1 ] && echo 2 || echo 5)
  for C in 8 1000; do
    : > "$WORK/ratios"; : > "$WORK/nginx-rps"; : > "$WORK/serve-rps"
    for turn in $(seq "$TURNS"); do
      N=$(rps "$C" "$SECONDS_PER" "http://127.0.0.1:$NPORT/inApps/v1/transactions/$ID")
      R=$(rps "$C" "$SECONDS_PER" "$URL/inApps/v1/transactions/$ID" "Authorization: Bearer $TOKEN")
      echo "$N" >> "$WORK/nginx-rps"; echo "$R" >> "$WORK/serve-rps"
      awk -v r="$R" -v n="$N" 'BEGIN {printf "%.2f\n", (n > 0) ? r / n : 0}' >> "$WORK/ratios"
    done
    RATIO=$(median < "$WORK/ratios")
    printf '   turns (serve/nginx req/s): %s\n' "$(paste -d/ "$WORK/serve-rps" "$WORK/nginx-rps" | paste -sd' ')"
    verdict "11. serve / nginx, $C keep-alive connections (median of $TURNS)" \
      "$RATIO ($(median < "$WORK/serve-rps")/$(median < "$WORK/nginx-rps"))" ">= 0.9" "$(ge "$RATIO" 0.9)"
  done
  stop_nginx
  stop_server
else
  printf '%-58s %14s\n' "11. serve / nginx (nginx or wrk missing; apt-get install nginx wrk)" "not measured"
  MISSED=1
fi

# 12. ES256 on one core, beside OpenSSL's P-256 on the same machine in the same run.
ES_N=$([ "$QUICK" = 1 ] && echo 300 || echo 3000)
OSSL_SECONDS=$([ "$QUICK" = 1 ] && echo 1 || echo 3)
taskset -c 0 "$B" es256 "$ES_N" > "$WORK/es256" 2>/dev/null || "$B" es256 "$ES_N" > "$WORK/es256"
OSSL=$( (taskset -c 0 openssl speed -seconds "$OSSL_SECONDS" ecdsap256 2>/dev/null || openssl speed -seconds "$OSSL_SECONDS" ecdsap256 2>/dev/null) | awk '/256 bits ecdsa \(nistp256\)/ {print $(NF-1), $NF}')
OSIGN=$(echo "$OSSL" | awk '{print $1}'); OVERIFY=$(echo "$OSSL" | awk '{print $2}')
SIGN=$(field "$WORK/es256" signs_per_second); VERIFY=$(field "$WORK/es256" verifies_per_second)
if [ -n "$OSIGN" ] && [ -n "$OVERIFY" ]; then
  RS=$(awk -v a="$SIGN" -v b="$OSIGN" 'BEGIN {printf "%.2f", a / b}')
  RV=$(awk -v a="$VERIFY" -v b="$OVERIFY" 'BEGIN {printf "%.2f", a / b}')
  verdict "12. ES256 signs/s, one core, / openssl speed ecdsap256" "$RS ($(printf '%.0f' "$SIGN")/$(printf '%.0f' "$OSIGN"))" ">= 0.1" "$(ge "$RS" 0.1)"
  printf '%-58s %14s\n' "    ES256 verifies/s / openssl (printed, not judged)" "$RV ($(printf '%.0f' "$VERIFY")/$(printf '%.0f' "$OVERIFY"))"
else
  printf '%-58s %14s\n' "12. ES256 (openssl speed gave no figure)" "not measured"
  MISSED=1
fi

# 13, 14. The control API (issue 46, item 10), measured by Scripts/control_bench.py: a buy over a
# kept-alive connection (a client of Python's standard library, as a test's) against a
# `storesim buy` process on the same session (median of each), and 8 clients on 8 sessions
# (wrk, whose client takes little of the two cores; the Python clients' figure is printed too).
CB_SECONDS=$([ "$QUICK" = 1 ] && echo 2 || echo 10)
CB_BUYS=$([ "$QUICK" = 1 ] && echo 10 || echo 50)
python3 Scripts/control_bench.py "$S" "$CB_SECONDS" "$CB_BUYS" > "$WORK/control" || echo '{}' > "$WORK/control"
cb() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$WORK/control" "$1"; }
verdict "13. control API buy (kept-alive) vs a storesim buy process" \
  "$(cb ratio)x ($(cb http_buy_ms)/$(cb process_buy_ms) ms)" ">= 20x" "$(ge "$(cb ratio)" 20)"
verdict "14. control API: 8 clients on 8 sessions, buys together ($(cb client))" "$(cb commands_per_second)/s" \
  ">= 2000/s" "$(ge "$(cb commands_per_second)" 2000)"
printf '%-58s %14s\n' "    serve's CPU a buy; the rate it allows on 2 free cores" \
  "$(cb serve_cpu_ms_per_buy) ms; $(cb serve_buys_per_second_on_two_cores)/s"
printf '%-58s %14s\n' "    8 Python clients (stdlib): buys/s; their CPU a buy" \
  "$(cb python_commands_per_second)/s; $(cb client_cpu_ms_per_buy) ms"

# 15. A retry storm does not slow the store: a Production session of 10,000 subscribers a minute
# before their free week ends, `advance 7d` (10,000 renewals, each DID_RENEW signed and posted)
# when the notification URL fails every POST (so Apple's five retries of each, 50,000 more
# POSTs, fall due within the week), beside the same advance when it answers 200. The receiver
# is a `storesim serve` on loopback: a POST to /notifications answers 401 (a failure), one to
# /verifyReceipt 200. Median of 3 turns. The CPU time of each advance (user + system, GNU time)
# is printed beside it, not judged: it does not move with the machine's load as wall time does.
STORM=$([ "$QUICK" = 1 ] && echo 500 || echo 10000)
STORM_SESSION="$WORK/storm-server.json"
STORESIM_SESSION="$STORM_SESSION" "$S" init Configurations/AppleSample.storekit --start 2026-01-01T00:00:00Z >/dev/null
start_server "$STORM_SESSION"
STORM_URL="$URL"
"$B" retry-storm "$STORM" "$STORM_URL/notifications" failed > "$WORK/storm-failed.json"
"$B" retry-storm "$STORM" "$STORM_URL/verifyReceipt" delivered > "$WORK/storm-delivered.json"
: > "$WORK/storm-ratios"; : > "$WORK/storm-f"; : > "$WORK/storm-d"; : > "$WORK/storm-cpu"
cpu_of() { awk '{printf "%.2f", $1 + $2}' "$1"; }  # a GNU time "%U %S" file: CPU seconds
for turn in 1 2 3; do
  cp "$WORK/storm-failed.json" "$WORK/storm-f-run.json"; cp "$WORK/storm-delivered.json" "$WORK/storm-d-run.json"
  F=$(STORESIM_SESSION="$WORK/storm-f-run.json" time_us /usr/bin/time -f "%U %S" -o "$WORK/storm-f.cpu" "$S" advance 7d)
  D=$(STORESIM_SESSION="$WORK/storm-d-run.json" time_us /usr/bin/time -f "%U %S" -o "$WORK/storm-d.cpu" "$S" advance 7d)
  echo "$F" >> "$WORK/storm-f"; echo "$D" >> "$WORK/storm-d"
  awk -v f="$F" -v d="$D" 'BEGIN {printf "%.2f\n", f / d}' >> "$WORK/storm-ratios"
  echo "$(cpu_of "$WORK/storm-f.cpu")/$(cpu_of "$WORK/storm-d.cpu")" >> "$WORK/storm-cpu"
done
# Every renewal notification was retried five times (six App Store attempts each).
SIX=$(STORESIM_SESSION="$WORK/storm-f-run.json" "$S" notifications | grep -c 'failed ×6' || true)
[ "$SIX" -ge "$STORM" ] || { echo "15. the retry storm made $SIX notifications' six attempts, not $STORM"; MISSED=1; }
stop_server
R15=$(median < "$WORK/storm-ratios")
verdict "15. advance 7d, $STORM failing notifications + retries / all delivered" \
  "$R15 ($(( $(median < "$WORK/storm-f") / 1000 ))/$(( $(median < "$WORK/storm-d") / 1000 )) ms)" "<= 2" "$(le "$R15" 2)"
printf '%-58s %14s   (not judged: CPU seconds, failing/delivered, of each turn)\n' \
  "   the same advances' CPU time (user + system)" "$(paste -sd' ' "$WORK/storm-cpu")"

# 16. populate (issue 50): customers x 24 months from the command line, wall time and peak
# memory (GNU time's maximum resident set), at three sizes for the scaling, each size run three
# times and the run of the median CPU time kept (a 10,000-customer run takes under a second of
# CPU and alone varies by a third from run to run); then serve's first answer on the largest
# session of 100,000 customers or less.
if [ "$QUICK" = 1 ]; then POP_SIZES="1000 4000"; else POP_SIZES="10000 100000 400000"; fi
POP_LINES=""
for n in $POP_SIZES; do
  export STORESIM_SESSION="$WORK/pop$n.json"
  : > "$WORK/pop$n.runs"
  for turn in 1 2 3; do
    rm -f "$STORESIM_SESSION" "$STORESIM_SESSION.index"
    "$S" init Configurations/Premium.storekit --start 2026-01-01T00:00:00Z --environment Sandbox >/dev/null 2>&1
    /usr/bin/time -f "%e %M %U %S" -o "$WORK/pop$n.time" "$S" populate --customers "$n" --months 24 >/dev/null
    read -r secs kib usr sys < "$WORK/pop$n.time"
    echo "$(awk -v u="$usr" -v s="$sys" 'BEGIN {printf "%.2f", u + s}') $secs $kib" >> "$WORK/pop$n.runs"
  done
  read -r cpu secs kib <<< "$(sort -n "$WORK/pop$n.runs" | sed -n 2p)"
  POP_LINES="$POP_LINES$n $secs $kib $cpu
"
done
POP_LINES=$(printf '%s' "$POP_LINES" | grep .)
echo "$POP_LINES" | while read -r n secs kib cpu; do
  awk -v n="$n" -v s="$secs" -v k="$kib" -v c="$cpu" 'BEGIN {printf "   populate %7d customers: %8.2f s (CPU %.2f s), %6d MiB: %.3f ms of CPU and %.2f KiB per customer\n", n, s, c, k / 1024, c * 1000 / n, k / n}'
done
POP_MID=$(echo "$POP_LINES" | awk '$1 <= 100000 {n = $1} END {print n}')
read -r _ PSECS PKIB _ <<< "$(echo "$POP_LINES" | awk -v n="$POP_MID" '$1 == n')"
PPER=$(awk -v k="$PKIB" -v n="$POP_MID" 'BEGIN {printf "%.2f", k / n}')
verdict "16. populate $POP_MID customers x 24 months, wall time" "$PSECS s" "< 60 s" "$(le "$PSECS" 59.99)"
verdict "16. populate: peak memory per customer ($((PKIB / 1024)) MiB)" "$PPER KiB" "<= 3 KiB" "$(le "$PPER" 3)"
# Linear: the CPU time (user and system) per customer, which a busy machine moves less than the
# wall time, and the peak memory per customer, largest size over smallest.
read -r N_LO _ K_LO S_LO <<< "$(echo "$POP_LINES" | head -1)"
read -r N_HI _ K_HI S_HI <<< "$(echo "$POP_LINES" | tail -1)"
RT=$(awk -v a="$S_LO" -v b="$S_HI" -v n="$N_LO" -v m="$N_HI" 'BEGIN {printf "%.2f", (a > 0) ? (b / m) / (a / n) : 0}')
RM=$(awk -v a="$K_LO" -v b="$K_HI" -v n="$N_LO" -v m="$N_HI" 'BEGIN {printf "%.2f", (b / m) / (a / n)}')
verdict "16. populate: CPU time per customer, $N_HI / $N_LO customers" "$RT" "<= 1.5 (linear)" "$(le "$RT" 1.5)"
verdict "16. populate: memory per customer, $N_HI / $N_LO customers" "$RM" "<= 1.5 (linear)" "$(le "$RM" 1.5)"
first_answer "$WORK/pop$POP_MID.json" "$WORK/popfirst"
PFIRST=$(median < "$WORK/popfirst")
verdict "16. serve on that population: start to first answer" "$PFIRST ms" "< 2000 ms" "$(le "$PFIRST" 1999)"
# Any customer's, not only the first's: the last transaction (its customer's row is among the
# last), found through the index beside the file (issue 50).
head -c 65536 "$WORK/pop$POP_MID.json" > "$WORK/pophead"
PLASTID=$(( $(grep -m1 -o '"nextTransactionID":[0-9]*' "$WORK/pophead" | cut -d: -f2) - 1 ))
first_answer "$WORK/pop$POP_MID.json" "$WORK/poplast" "" "$PLASTID"
PLAST=$(median < "$WORK/poplast")
verdict "16. serve on that population: start to the last transaction's answer" "$PLAST ms" "< 2000 ms" "$(le "$PLAST" 1999)"

# 17. The page (issue 48): the first screen of a session of about 100,000 transactions
# (populate) in headless Chromium, from the navigation's start to the page's
# 'storesim-first-screen' performance mark (Navigation Timing's clock), median of 3 loads, each
# on a serve just started. Needs chromium, chromium-driver and selenium (CI's venv).
PY=${BENCH_PYTHON:-.build/interop-venv/bin/python}
if [ -x "$PY" ] && "$PY" -c 'import selenium' 2>/dev/null && command -v chromedriver >/dev/null 2>&1; then
  N17=$([ "$QUICK" = 1 ] && echo 2000 || echo 44000)  # 44,000 customers x 24 months: about 100,000 transactions
  export STORESIM_SESSION="$WORK/page.json"
  "$S" init Configurations/Premium.storekit --start 2026-01-01T00:00:00Z >/dev/null 2>&1
  T17=$("$S" populate --customers "$N17" --months 24 --json | awk -F'[:,]' '/"transactions"/ {gsub(/ /, "", $2); print $2}')
  : > "$WORK/page-ms"
  for run in 1 2 3; do "$PY" Scripts/browser_check.py "$S" --first-screen "$WORK/page.json" >> "$WORK/page-ms"; done
  P17=$(median < "$WORK/page-ms")
  verdict "17. the page: first screen, $T17 transactions (Chromium)" "$P17 ms" "< 500 ms" "$(le "$P17" 499)"
else
  printf '%-58s %14s\n' "17. the page (needs chromium-driver and selenium)" "not measured"
  MISSED=1
fi

# 18. import (issue 49, item 8): Get Transaction History for 5,000 customers, 100,000
# transactions, one response a line (as a server that logs its history calls writes them), into
# an empty session of the same configuration: wall time and peak memory (GNU time's maximum
# resident set), beside the size of the file (read a piece at a time, never held whole).
N18=$([ "$QUICK" = 1 ] && echo 250 || echo 5000)
"$B" import-dump "$N18" > "$WORK/dump.jsonl" 2> "$WORK/dump.count"
"$B" empty-session > "$WORK/import.json"
STORESIM_SESSION="$WORK/import.json" /usr/bin/time -f "%e %M" -o "$WORK/import.time" "$S" import "$WORK/dump.jsonl" >/dev/null \
  || { echo "18. the import failed"; MISSED=1; }
read -r ISECS IKIB < "$WORK/import.time"
ITX=$(cat "$WORK/dump.count")
IMIB=$(( $(stat -c %s "$WORK/dump.jsonl") / 1024 / 1024 ))
verdict "18. import $ITX transactions ($N18 customers), wall time" "$ISECS s" "< 10 s" "$(le "$ISECS" 9.99)"
IPER=$(awk -v k="$IKIB" -v n="$ITX" 'BEGIN {printf "%.2f", k / n}')
verdict "18. import: peak memory per transaction ($((IKIB / 1024)) MiB; file $IMIB MiB)" "$IPER KiB" "<= 4 KiB" "$(le "$IPER" 4)"

if [ "$QUICK" = 1 ]; then echo "bench quick: all figures measured"; exit 0; fi
[ "$MISSED" = 0 ] && echo "bench: every target met" || echo "bench: some targets missed"
exit "$MISSED"
