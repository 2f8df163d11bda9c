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
# cpu_ms ARGS...: runs storesim with ARGS (its output and errors dropped), prints the CPU time
# (user + system) it took in ms and exits with its exit code. Rows that bound how much work a
# call does judge this, not the wall clock, which a busy machine stretches unevenly.
cpu_ms() { python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(int((u.ru_utime + u.ru_stime) * 1000)); sys.exit(r.returncode)' "$BIN" "$@"; }
# To signal a command, start it as `"$BIN" ... &`, not `S ... &`: a backgrounded function runs in
# a subshell, so $! would be that shell and the signal would miss storesim.
