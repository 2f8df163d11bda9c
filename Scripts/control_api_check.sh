#!/usr/bin/env bash
# The control API's OpenAPI document against a live serve (issue 46, item 5):
#   Scripts/control_api_check.sh [BIN] PYTHON
# PYTHON is a venv's python with openapi-spec-validator and schemathesis (.ci/run makes it).
# 1. serve answers GET /storesim/v1/openapi.json with docs/control-api.openapi.json, byte for byte;
# 2. openapi-spec-validator accepts it as OpenAPI 3.1;
# 3. schemathesis calls every operation with generated bodies (--max-examples keeps it to about a
#    minute): no 5xx, every status and every answer as the document says.
set -euo pipefail
. "$(dirname "$0")/lib.sh" "$1"
PYTHON="$2"
cd "$WORK"
S init "$ROOT/Configurations/AppleSample.storekit" --start 2026-01-01T00:00:00Z >/dev/null
"$BIN" serve --port 0 --quiet --sessions "$WORK/sessions" --max-sessions 64 >serve.url 2>serve.err &
SERVE=$!
trap 'kill $SERVE 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s serve.url ] && break; sleep 0.1; done
URL=$(head -1 serve.url)
curl -sf "$URL/storesim/v1/openapi.json" >served.json
diff "$ROOT/docs/control-api.openapi.json" served.json
echo "control API: serve answers docs/control-api.openapi.json"
"$PYTHON" -m openapi_spec_validator "$ROOT/docs/control-api.openapi.json"
# settings (a delivery URL) and retention (the developer's server) would post to generated URLs.
"$PYTHON" -m schemathesis.cli run "$ROOT/docs/control-api.openapi.json" --url "$URL" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples 8 --exclude-operation-id settings --exclude-operation-id retention \
  --request-timeout 20 --no-color
kill -0 $SERVE  # serve is still up
echo "control API: schemathesis found no 5xx and no answer outside the document"
