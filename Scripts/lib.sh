# Shared preamble of the test scripts: source it as `. "$(dirname "$0")/lib.sh" "$@"`.
# Sets ROOT (the repository), BIN (the storesim binary: the first argument, else the debug
# build's), WORK (a temporary folder removed on exit) and defines now_ms, S and count.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(realpath "${1:-$(cd "$ROOT" && swift build --show-bin-path)/storesim}")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
now_ms() { date +%s%3N; }
# S ARGS...: runs storesim. count: the length of the JSON array on stdin.
S() { "$BIN" "$@"; }
count() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
# To signal a command, start it as `"$BIN" ... &`, not `S ... &`: a backgrounded function runs in
# a subshell, so $! would be that shell and the signal would miss storesim.
