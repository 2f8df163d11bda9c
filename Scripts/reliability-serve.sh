# Sourced by Scripts/reliability.sh (which sets BIN, S, WORK, ROOT, PREMIUM, fresh and fail):
# the rows of storesim serve beside its clients.
# ---------------------------------------------------------------------------------------------
# storesim serve beside its clients (issue 27, items 11-15).
# ---------------------------------------------------------------------------------------------
fresh
S init "$PREMIUM" --start 2026-01-01T00:00:00Z --bundle-id com.example.app >/dev/null 2>&1
S buy com.example.coins.100 >/dev/null
# A bearer token shaped as Apple requires (storesim checks shape and claims, not the signature).
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
TOKEN="$(printf '{"alg":"ES256","kid":"K","typ":"JWT"}' | b64url).$(printf '{"iss":"i","aud":"appstoreconnect-v1","bid":"com.example.app","exp":%d}' $(( $(date +%s) + 1800 )) | b64url).c2ln"
SERVE_PID=""
serve() { # ARGS...: starts storesim serve --port 0 in the background; sets URL and SERVE_PID
  rm -f url.txt
  "$BIN" serve --port 0 --quiet "$@" > url.txt 2> serve.err &
  SERVE_PID=$!
  echo "$SERVE_PID" >> "$WORK/servers.pids"
  for _ in $(seq 200); do [ -s url.txt ] && break; kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.05; done
  URL=$(head -1 url.txt)
}
stopped_within() { # SECONDS: whether the server exited within SECONDS
  for _ in $(seq $(( $1 * 20 ))); do kill -0 "$SERVE_PID" 2>/dev/null || { wait "$SERVE_PID" 2>/dev/null || true; return 0; }; sleep 0.05; done
  return 1
}
consumption='{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED"}'

# 11. Every SIGTERM or SIGINT stops the server, after the save in progress: rounds under a
# write load (each request saves the session).
for i in $(seq 20); do
  serve
  python3 - "$URL" "$TOKEN" "$consumption" > /dev/null 2>&1 <<'LOAD' &
import http.client, sys, urllib.parse
url, token, body = urllib.parse.urlparse(sys.argv[1]), sys.argv[2], sys.argv[3]
while True:
    try:
        c = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
        for _ in range(1000):
            c.request("PUT", "/inApps/v2/transactions/consumption/2000000000000001", body, {"Authorization": "Bearer " + token, "Content-Type": "application/json"})
            c.getresponse().read()
    except Exception:
        sys.exit(0)
LOAD
  load=$!
  sleep "0.$((RANDOM % 4 + 1))$((RANDOM % 10))"
  if [ $((i % 2)) -eq 0 ]; then kill -INT "$SERVE_PID"; else kill -TERM "$SERVE_PID"; fi
  stopped_within 10 || { kill -9 "$SERVE_PID" 2>/dev/null; kill "$load" 2>/dev/null; fail "serve kept running after a signal during saves (round $i)"; }
  kill "$load" 2>/dev/null || true; wait "$load" 2>/dev/null || true
  S now >/dev/null || fail "the session does not load after serve stopped"
  ls .storesim | grep -q 'tmp-' && fail "serve left a temporary file"
done
echo "row: serve: 20 of 20 SIGTERM/SIGINT under write load stopped it, session whole"

# 12. Beyond loopback only with --expose-to-network, and then with a warning.
c=$(code_of S serve --port 0 --host 0.0.0.0)
[ "$c" -eq 64 ] || fail "serve --host 0.0.0.0 exited $c"
serve --host 0.0.0.0 --expose-to-network
grep -q "bearer tokens are checked for shape and claims only" serve.err || fail "no warning beyond loopback: $(cat serve.err)"
kill -TERM "$SERVE_PID"; stopped_within 10 || fail "serve --expose-to-network did not stop"
echo "row: serve --host 0.0.0.0 refused (64); with --expose-to-network it warns that tokens are not verified"

# 13. A request's lists are bounded: 100,000 storefront codes are merged; 201 distinct codes
# are refused with 400 before anything is saved.
serve
size=$(stat -c %s .storesim/session.json)
python3 - "$URL" "$TOKEN" <<'BIG' || fail "oversized mass extension"
import http.client, json, sys, urllib.parse, uuid
url, token = urllib.parse.urlparse(sys.argv[1]), sys.argv[2]
def post(codes):
    body = json.dumps({"extendByDays": 1, "extendReasonCode": 0, "requestIdentifier": str(uuid.uuid4()), "productId": "com.example.premium.monthly", "storefrontCountryCodes": codes})
    c = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    c.request("POST", "/inApps/v1/subscriptions/extend/mass", body, {"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    r = c.getresponse()
    return r.status, r.read()
distinct = [a + b + "Z" for a in "ABCDEFGH" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"][:201]
status, body = post(distinct)
assert status == 400 and json.loads(body)["errorCode"] == 4000028, (status, body)
for _ in range(20):
    status, body = post(["USA", "FRA", "DEU"] * 33334)
    assert status == 200, (status, body)
BIG
after=$(stat -c %s .storesim/session.json)
# Kept codes would add 8 MB or more (20 x 100,000 x 4 bytes). serve keeps the session loaded and
# appends a change line a request (up to 256 KiB of them, or the file's size, before it writes
# the file whole again), so the session may grow by that much: 200,000 bytes was passed by
# 220,000 of change lines on a session that began at 43 KB (CI run 9, session 18).
[ "$after" -lt $((size + 1000000)) ] || fail "20 mass extensions of 100,000 codes grew the session from $size to $after bytes"
kill -TERM "$SERVE_PID"; stopped_within 10 || fail "serve did not stop"
echo "row: 201 distinct storefront codes refused (4000028); 20 requests of 100,000 codes grew the session $size -> $after bytes"

# 14. While another process holds the session's lock, reads of the unchanged session answer
# at once and a write gets 503 with Retry-After after the wait's deadline (3 s).
serve
curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" "$URL/inApps/v1/transactions/2000000000000001"
( flock .storesim/session.json.lock sleep 8 ) &
holder=$!
sleep 0.3
a=$(now_ms); code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$URL/inApps/v1/transactions/2000000000000001"); b=$(now_ms)
[ "$code" = 200 ] && [ $((b - a)) -lt 1000 ] || fail "a read during a held lock: HTTP $code in $((b - a)) ms"
a=$(now_ms); curl -s -D headers.txt -o body.txt -X PUT -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data "$consumption" "$URL/inApps/v2/transactions/consumption/2000000000000001"; b=$(now_ms)
grep -q '^HTTP/1.1 503' headers.txt && grep -qi '^Retry-After: 1' headers.txt || fail "a write during a held lock: $(cat headers.txt body.txt)"
[ $((b - a)) -lt 6000 ] || fail "the 503 came after $((b - a)) ms"
wait "$holder"
kill -TERM "$SERVE_PID"; stopped_within 10 || fail "serve did not stop"
echo "row: a held lock: reads answered in under 1 s, a write got 503 Retry-After: 1 after $((b - a)) ms"

# 15. Authentication before the session; no path of the machine in any answer.
serve
mv .storesim/session.json session.away
body=$(curl -s "$URL/inApps/v1/transactions/2000000000000001")
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/inApps/v1/transactions/2000000000000001")
[ "$code" = 401 ] || fail "no token, no session: HTTP $code"
with=$(curl -s -H "Authorization: Bearer $TOKEN" "$URL/inApps/v1/transactions/2000000000000001")
case "$body$with" in *"$WORK"*|*/*) fail "an answer carries a path: $body $with" ;; esac
mv session.away .storesim/session.json
kill -TERM "$SERVE_PID"; stopped_within 10 || fail "serve did not stop"
echo "row: no token and no session: 401; a token and no session: 500; neither carries a path"
