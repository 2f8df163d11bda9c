#!/usr/bin/env bash
# Builds one libFuzzer binary holding the seven targets (configuration reader, scenario parser,
# session reader, old-format sessions used by the commands, HTTP request parser, DER and JWS
# readers, import's readers of Apple's data) with the toolchain's own -sanitize=fuzzer (plus address sanitizer) and runs each for
# a bounded time, seeded from the .storekit corpus, Scripts/ and session files written here by
# the built storesim.
#   Scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
#   Scripts/fuzz.sh --build-only           (builds the binary and stops: CI builds it beside
#                                           other steps, then runs the targets)
# Any crash leaves its input in .build/fuzz/crashes/ and makes the script exit 1.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BUILD_ONLY=
if [ "${1:-}" = --build-only ]; then BUILD_ONLY=1; shift; fi
SECONDS_EACH="${1:-60}"
OUT=.build/fuzz
mkdir -p "$OUT/crashes" "$OUT/corpus-configuration" "$OUT/corpus-scenario" "$OUT/corpus-session" "$OUT/corpus-old-session" "$OUT/corpus-http" "$OUT/corpus-signing" "$OUT/corpus-import"

# The core, the modules under it and the CLI library compiled, with every target's entry and
# FuzzMain.swift's single LLVMFuzzerTestOneInput, into one binary as one module (the fuzz entry
# points use internal names); STORESIM_FUZZ_TARGET picks the target of a run. One compile instead of one per target.
# main.swift files are left out; libFuzzer provides main.
SOURCES=$(find Sources/StoreSimSync Sources/StoreSimSignals Sources/StoreSimCrypto Sources/StoreSim Sources/StoreSimSession \
  Sources/StoreSimHTTP Sources/StoreSimServer Sources/StoreSimCLI -name '*.swift' | sort)
strip_imports() { mkdir -p "$OUT/src"; for f in "$@"; do sed -E 's/^(@testable |@_exported )?import StoreSim(Sync|Signals|Crypto|Session|HTTP|Server|CLI)?$//' "$f" > "$OUT/src/$(echo "$f" | tr '/' '_')"; done; }
# -Onone: the build takes a third of an optimised one's CPU time (124 s against 381 s, measured
# 2026-11-28), a target then runs about 2.5 times fewer inputs a second, and `assert`s are checked.
FLAGS=(-sanitize=fuzzer,address -parse-as-library -Onone -wmo -num-threads 2 -module-name StoreSimFuzz -package-name storesim -swift-version 6)
quiet() { "$@" 2> >(grep -v 'Cannot export local symbol' >&2); }
if [ ! -x "$OUT/fuzz" ] || [ -n "$(find Sources Fuzz -newer "$OUT/fuzz" -name '*.swift' | head -1)" ]; then
  echo "== building the fuzz binary (a few minutes)"
  rm -rf "$OUT/src"; strip_imports $SOURCES
  quiet swiftc "${FLAGS[@]}" "$OUT"/src/*.swift Fuzz/*.swift -o "$OUT/fuzz"
fi
[ -z "$BUILD_ONLY" ] || exit 0

# HTTP seeds: requests as clients send them (CRLF and bare LF, a body, repeated fields).
printf 'GET /inApps/v1/transactions/1?a=1&b=%%20x HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\n\r\n' > "$OUT/corpus-http/get"
printf 'POST /verifyReceipt HTTP/1.1\nHost: sandbox.itunes.apple.com\nContent-Length: 2\nX-A: 1\nX-A: 2\n\n{}' > "$OUT/corpus-http/post-lf"
printf '\r\nPUT /inApps/v1/subscriptions/extend/1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n' > "$OUT/corpus-http/put"

if [ -d ../shared/corpus/storekit ]; then cp ../shared/corpus/storekit/*.storekit "$OUT/corpus-configuration/" 2>/dev/null || true; fi
cp Configurations/*.storekit "$OUT/corpus-configuration/"
cp Scripts/*.storesim "$OUT/corpus-scenario/"

# Session seeds: files the built storesim writes (a fresh session; purchases, renewals, a
# billing retry and a refund), each also as version 2 (no checksums, so that changes reach
# the state reader instead of stopping at the checksum).
# STORESIM_BIN: a storesim already built (CI passes its debug build, so that this step takes no
# SwiftPM lock while a release build holds it); otherwise the debug build, built when missing.
if [ -n "${STORESIM_BIN:-}" ]; then
  STORESIM="$STORESIM_BIN"
else
  swift build --product storesim >/dev/null
  STORESIM="$(swift build --show-bin-path)/storesim"
fi
session_seed() { # NAME CONFIGURATION COMMAND...
  local name=$1 configuration=$2 line
  shift 2
  export STORESIM_SESSION="$OUT/corpus-session/$name.json"
  rm -f "$STORESIM_SESSION"
  "$STORESIM" init "$configuration" --start 2026-01-01T00:00:00Z >/dev/null
  for line in "$@"; do read -ra words <<<"$line"; "$STORESIM" "${words[@]}" >/dev/null; done
  { printf '%s\n' '{"codec":"compact-1","configurationDigest":"0","configurationPath":"p","format":"storesim-session","version":2}'
    sed -n 2p "$STORESIM_SESSION"; } > "$OUT/corpus-session/$name-v2.json"
  sed -n 2p "$STORESIM_SESSION" > "$OUT/corpus-old-session/$name"  # old-session: the state line alone
  unset STORESIM_SESSION
}
session_seed fresh Configurations/Premium.storekit
session_seed sample Configurations/AppleSample.storekit "buy nonconsumable.car" "buy consumable.fuel.octane87 --quantity 2" \
  "buy subscription.pro" "advance 2mo" "settings billing-retry on" "settings grace-period on" "advance 1mo" \
  "refund 2000000000000001"
session_seed premium Configurations/Premium.storekit "buy com.example.premium.monthly" "advance 3mo"
# Several customers, so that the customers' list has rows for a second half to start at.
session_seed customers Configurations/AppleSample.storekit "buy subscription.pro --customer ann" \
  "buy nonconsumable.car --customer bo" "buy consumable.fuel.octane87 --customer cy" "buy subscription.pro" "advance 1mo"

# A session the shell saved (a front end that keeps it loaded): change lines follow the state line.
export STORESIM_SESSION="$OUT/corpus-session/changes.json"
rm -f "$STORESIM_SESSION"
"$STORESIM" init Configurations/AppleSample.storekit --start 2026-01-01T00:00:00Z >/dev/null
printf 'buy nonconsumable.car\nbuy subscription.pro\nadvance 2mo\nrefund 2000000000000001\n' | "$STORESIM" shell >/dev/null 2>&1
unset STORESIM_SESSION

# Signing seeds: a certificate, keys (PKCS #8 DER, PEM), a signature and signed JWS the built
# storesim writes.
export STORESIM_SESSION="$OUT/corpus-signing-session.json"
rm -f "$STORESIM_SESSION"
"$STORESIM" init Configurations/AppleSample.storekit --environment Sandbox --start 2026-01-01T00:00:00Z >/dev/null
"$STORESIM" buy nonconsumable.car >/dev/null
"$STORESIM" certificate --der > "$OUT/corpus-signing/root.der"
"$STORESIM" certificate > "$OUT/corpus-signing/root.pem"
"$STORESIM" transactions --signed | head -1 > "$OUT/corpus-signing/transaction.jws"
unset STORESIM_SESSION
if command -v openssl >/dev/null; then
  openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null > "$OUT/corpus-signing/sec1.pem" || true
  openssl pkcs8 -topk8 -nocrypt -in "$OUT/corpus-signing/sec1.pem" -outform DER -out "$OUT/corpus-signing/key.p8.der" 2>/dev/null || true
  printf 'x' | openssl dgst -sha256 -sign "$OUT/corpus-signing/sec1.pem" > "$OUT/corpus-signing/sig.der" 2>/dev/null || true
fi

# Import seeds: what the Server API answers (history v1 and v2, statuses), a webhook log, a
# verifyReceipt answer and an app receipt in Apple's form (PKCS#7 as Xcode writes it: BER,
# indefinite lengths, the content in pieces), as raw DER.
export STORESIM_SESSION="$OUT/corpus-import-session.json"
rm -f "$STORESIM_SESSION"
"$STORESIM" init Configurations/AppleSample.storekit --environment Sandbox --start 2026-01-01T00:00:00Z >/dev/null
for line in "buy consumable.fuel.octane87" "finish 2000000000000001" "buy subscription.pro" "advance 2mo"; do
  read -ra words <<<"$line"; "$STORESIM" "${words[@]}" >/dev/null
done
"$STORESIM" api GET /inApps/v1/history/2000000000000002 | tail -n +2 > "$OUT/corpus-import/history-v1.json"
"$STORESIM" api GET /inApps/v2/history/2000000000000002 | tail -n +2 > "$OUT/corpus-import/history-v2.json"
"$STORESIM" api GET /inApps/v1/subscriptions/2000000000000002 | tail -n +2 > "$OUT/corpus-import/statuses.json"
"$STORESIM" notifications --signed > "$OUT/corpus-import/webhook.log"
"$STORESIM" receipt --json > "$OUT/corpus-import/verify-receipt.json"
unset STORESIM_SESSION
python3 - "$OUT/corpus-import/receipt.der" <<'PY'
import sys
def tlv(tag, content):
    n = len(content)
    length = bytes([n]) if n < 0x80 else bytes([0x81, n]) if n < 0x100 else bytes([0x82, n >> 8, n & 0xFF])
    return bytes([tag]) + length + content
def indefinite(tag, content): return bytes([tag, 0x80]) + content + b"\0\0"
def integer(n): return tlv(0x02, n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big"))
def attrs(items): return tlv(0x31, b"".join(tlv(0x30, integer(t) + integer(1) + tlv(0x04, v)) for t, v in items))
ia5 = lambda s: tlv(0x16, s.encode())
utf8 = lambda s: tlv(0x0C, s.encode())
purchase = attrs([(1701, integer(1)), (1702, utf8("subscription.pro")), (1703, utf8("2000000000000009")),
                  (1704, ia5("2026-01-01T00:00:00Z")), (1708, ia5("2026-02-01T00:00:00Z"))])
receipt = attrs([(2, utf8("com.example.app")), (18, ia5("2025-12-20T10:00:00Z")), (17, purchase)])
half = len(receipt) // 2
content = indefinite(0x30, tlv(0x06, bytes.fromhex("2a864886f70d010701")) + indefinite(0xA0, indefinite(0x24, tlv(0x04, receipt[:half]) + tlv(0x04, receipt[half:]))))
signed = indefinite(0x30, integer(1) + tlv(0x31, b"") + content)
open(sys.argv[1], "wb").write(indefinite(0x30, tlv(0x06, bytes.fromhex("2a864886f70d010702")) + indefinite(0xA0, signed)))
PY

status=0
for target in configuration scenario session old-session http signing import; do
  echo "== fuzz-$target for ${SECONDS_EACH}s"
  if ! STORESIM_FUZZ_TARGET="$target" "$OUT/fuzz" "$OUT/corpus-$target" -max_total_time="$SECONDS_EACH" -max_len=65536 \
      -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$OUT/crashes/$target-" -print_final_stats=1 2>"$OUT/$target.log"; then
    status=1
    tail -40 "$OUT/$target.log"
  fi
  grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$OUT/$target.log" | tail -2 || true
done
[ "$status" = 0 ] && echo "fuzz: no crash" || echo "fuzz: CRASH (inputs in $OUT/crashes)"
exit "$status"
