#!/usr/bin/env bash
# The real-configuration corpus: every JSON file validates (0), every other file is refused with
# one located error line (65).
#   Scripts/corpus_check.sh STORESIM [CORPUS]   (CORPUS default ../shared/corpus/storekit)
# When the corpus folder is absent (a clone without the shared folder beside it), says so in one
# line and exits 0: the check is skipped, not passed.
set -euo pipefail
BIN="$1"
CORPUS="${2:-../shared/corpus/storekit}"
if [ ! -d "$CORPUS" ]; then
  echo "== corpus: skipped: $CORPUS is absent (the real .storekit files live beside the checkout, not in it)"
  exit 0
fi
echo "== corpus: every JSON file validates (0), every other file is refused with one located line (65)"
ERR="$(mktemp)"
trap 'rm -f "$ERR"' EXIT
ok=0; refused=0
for f in "$CORPUS"/*.storekit; do
  set +e
  "$BIN" validate "$f" >/dev/null 2>"$ERR"
  rc=$?
  set -e
  if python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$f" 2>/dev/null; then
    [ "$rc" -eq 0 ] || { echo "FAIL: $f exited $rc"; cat "$ERR"; exit 1; }
    ok=$((ok + 1))
  else
    [ "$rc" -eq 65 ] || { echo "FAIL: $f exited $rc, expected 65"; exit 1; }
    lines=$(grep -c '^error:' "$ERR")
    [ "$lines" -eq 1 ] || { echo "FAIL: $f gave $lines error lines"; exit 1; }
    grep -qE ':[0-9]+:[0-9]+: ' "$ERR" || { echo "FAIL: $f error has no location"; exit 1; }
    refused=$((refused + 1))
  fi
done
echo "corpus: $ok loaded, $refused refused"
