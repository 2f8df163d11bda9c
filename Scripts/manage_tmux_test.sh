#!/usr/bin/env bash
# storesim manage, driven in a real terminal (tmux, 80x24), as issue 28 asks:
#   on a session prepared by a scenario (Scripts/manage/prepare.storesim), it approves an Ask
#   to Buy request, refunds a purchase, advances a month and sees the renewal, checking each
#   through the CLI; a purchase made by another process appears without a key press; a
#   refusal changes nothing; captured screens are compared with golden files
#   (Tests/StoreSimCLITests/Golden/manage-tmux/; MANAGE_GOLDEN_RECORD=1 writes them).
#   Then the terminal is restored after q, ^C, ^Z/fg, SIGTERM and a closed terminal, a resize
#   redraws, and on something that is not a terminal manage refuses with one line.
#     Scripts/manage_tmux_test.sh [path/to/storesim]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$(cd "$(dirname "${1:-$ROOT/.build/debug/storesim}")" && pwd)/$(basename "${1:-storesim}")"
GOLDEN="$ROOT/Tests/StoreSimCLITests/Golden/manage-tmux"
if ! command -v tmux >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null && apt-get install -y -qq tmux >/dev/null
  else
    echo "manage_tmux_test: tmux is not installed (apt-get install tmux)" >&2
    exit 1
  fi
fi
WORK="$(mktemp -d)"
SOCKET="storesim-manage-test-$$"
T() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() { T kill-server 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"
unset STORESIM_SESSION NO_COLOR
export TERM=xterm-256color
S() { "$BIN" "$@"; }
FAILED=0
fail() { echo "FAIL: $*" >&2; FAILED=1; }
ok() { echo "ok    $*"; }

capture() { T capture-pane -p -t manage | sed 's/[[:space:]]*$//'; }
# wait_for TEXT [SECONDS]: polls the pane until TEXT shows (bounded; 10 s by default).
wait_for() {
  local i limit=$(( ${2:-10} * 20 ))
  for ((i = 0; i < limit; i++)); do
    if capture | grep -qF -- "$1"; then return 0; fi
    sleep 0.05
  done
  fail "screen never showed '$1'; it shows:"; capture >&2
  return 1
}
# golden NAME: the pane, compared with (or recorded as) Golden/manage-tmux/NAME.txt.
golden() {
  capture > "$WORK/$1.txt"
  if [ "${MANAGE_GOLDEN_RECORD:-0}" = 1 ]; then
    mkdir -p "$GOLDEN"; cp "$WORK/$1.txt" "$GOLDEN/$1.txt"; echo "recorded $1"
  elif diff -u "$GOLDEN/$1.txt" "$WORK/$1.txt"; then
    ok "screen $1 matches its golden file"
  else
    fail "screen $1 differs from $GOLDEN/$1.txt"
  fi
}
keys() { T send-keys -t manage "$@"; }
# A shell in the pane, so that manage runs as a job of an interactive shell (^Z, fg, stty).
start_shell() {
  T new-session -d -s manage -x 80 -y 24 -c "$WORK" "env PS1='$ ' bash --norc --noprofile -i"
  wait_for '$'
}
run_in_shell() { T send-keys -t manage -l "$1"; T send-keys -t manage Enter; }
# After manage left: the main screen is back with its cursor shown (tmux's own record of the
# escape sequences manage wrote), and the shell sees a terminal in canonical mode with echo.
check_sane() {
  local alternate cursor
  [ "$1" = "^Z" ] || [ "$1" = "kill -TSTP" ] || wait_gone
  run_in_shell "clear; stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo|isig)' | sort | tr '\n' ' '; echo 'STTY'-'END'"
  wait_for "STTY-END"
  alternate=$(T display-message -p -t manage '#{alternate_on}')
  cursor=$(T display-message -p -t manage '#{cursor_flag}')
  if capture | grep -q '^echo icanon isig STTY-END' && [ "$alternate" = 0 ] && [ "$cursor" = 1 ]; then
    ok "terminal restored after $1 (main screen, cursor shown, icanon isig echo)"
  else
    fail "terminal not restored after $1 (alternate screen $alternate, cursor $cursor):"; capture >&2
  fi
}
manage_pid() { pgrep -f "^$BIN manage" | head -1; }
# Waits (bounded) until no manage runs: keys typed before it ends would be read by it.
wait_gone() {
  local i
  for ((i = 0; i < 200; i++)); do [ -z "$(manage_pid)" ] && return 0; sleep 0.05; done
  fail "manage did not end"
}

# --- the session, prepared by a scenario through the shell on a session file
S init "$ROOT/Configurations/AppleSample.storekit" --start 2026-01-01T00:00:00Z >/dev/null
S shell < "$ROOT/Scripts/manage/prepare.storesim" > "$WORK/prepare.log" 2>&1 || { cat "$WORK/prepare.log"; fail "the scenario failed"; exit 1; }
ok "session prepared by Scripts/manage/prepare.storesim"

# --- not a terminal: one line naming the commands to use
set +e
S manage < /dev/null > "$WORK/out" 2> "$WORK/err"; rc=$?
set -e
if [ "$rc" = 64 ] && [ "$(wc -l < "$WORK/err")" = 1 ] && grep -q "'storesim transactions' and 'storesim timeline'" "$WORK/err" && [ ! -s "$WORK/out" ]; then
  ok "not a terminal: exit 64, one line: $(cat "$WORK/err")"
else
  fail "not a terminal: exit $rc, stderr: $(cat "$WORK/err")"
fi

start_shell
run_in_shell "clear; $BIN manage"
# The first screen comes before the notification log is read; the next one has its count.
wait_for "Notifications (3)"
golden 01-start

# --- approve the Ask to Buy request (the newest row, selected at start)
keys a
wait_for "approved   request 1"
golden 02-approved
S pending > "$WORK/pending"
[ "$(cat "$WORK/pending")" = "(none)" ] && ok "CLI: no pending request after a" || fail "CLI pending: $(cat "$WORK/pending")"
S entitlements | grep -q nonconsumable.racecar && ok "CLI: racecar entitled after approval" || fail "racecar not entitled"

# --- refund the car: found with the filter, refunded with r
keys / ; T send-keys -t manage -l "nonconsumable.car"; keys Enter
wait_for "filter: nonconsumable.car"
keys r
wait_for "for nonconsumable.car revoke"
golden 03-refunded
S transactions --product nonconsumable.car | grep -q "refunded 2026-01-01" && ok "CLI: the car is refunded" || fail "CLI: car not refunded"
keys Escape
wait_for "filter: (none"

# --- a refusal: cancel on a consumable is the CLI's error, and nothing changes
before=$(sha256sum .storesim/session.json)
keys / ; T send-keys -t manage -l "octane87"; keys Enter c
wait_for "error: product 'consumable.fuel.octane87' is not an auto-renewable subscription"
[ "$(sha256sum .storesim/session.json)" = "$before" ] && ok "refusal shown; session unchanged" || fail "a refusal changed the session"
keys Escape

# --- advance a month: the renewal appears
keys @ ; T send-keys -t manage -l "1mo"; keys Enter
wait_for "2026-02-01T00:00:00Z  ask-to-buy"
golden 04-renewed
[ "$(S now)" = "2026-02-01T00:00:00Z" ] && ok "CLI: the clock is at 2026-02-01" || fail "CLI now: $(S now)"
[ "$(S transactions --product subscription.standard | grep -c '^2000')" = 2 ] && ok "CLI: subscription.standard renewed (2 transactions)" || fail "no renewal"

# --- another process buys: the row appears without a key press
S buy consumable.fuel.octane89 > /dev/null
wait_for "consumable.fuel.octane89" 2
wait_for "updated by another process" 2
golden 05-live
ok "a purchase by another process appeared without a key press"

# --- resize: the list is drawn again at the new size
T resize-window -t manage -x 110 -y 30
wait_for "PURCHASED"
ok "resize redraws (110x30 shows the PURCHASED column)"
T resize-window -t manage -x 80 -y 24
wait_for "DATE  STATE"

# --- q: the terminal is as it was
keys q
check_sane "q"

# --- ^C
run_in_shell "clear; $BIN manage"
wait_for "? help"
keys C-c
check_sane "^C"

# --- ^Z, then fg: restored while stopped, the screen back after fg
run_in_shell "clear; $BIN manage"
wait_for "? help"
keys C-z
wait_for "Stopped"
check_sane "^Z"
run_in_shell "fg"
wait_for "? help"
ok "fg brings the screen back"
keys q
check_sane "q after fg"

# --- NO_COLOR: no colour at all (reverse video for the selection stays); colour without it
run_in_shell "clear; NO_COLOR=1 $BIN manage"
wait_for "? help"
if T capture-pane -e -p -t manage | grep -qE $'\e\\[[0-9;]*(3[0-7]|9[0-7])m'; then fail "colour under NO_COLOR"; else ok "NO_COLOR: no colour"; fi
keys q
check_sane "q (NO_COLOR)"
run_in_shell "clear; $BIN manage"
wait_for "? help"
T capture-pane -e -p -t manage | grep -qE $'\e\\[[0-9;]*36m' && ok "colour without NO_COLOR" || fail "no colour without NO_COLOR"
keys q
check_sane "q (colour)"

# --- SIGTSTP from outside (kill -TSTP), then fg
run_in_shell "clear; $BIN manage"
wait_for "? help"
kill -TSTP "$(manage_pid)"
wait_for "Stopped"
check_sane "kill -TSTP"
run_in_shell "fg"
wait_for "? help"
keys q
check_sane "q after kill -TSTP and fg"

# --- SIGTERM from outside
run_in_shell "clear; $BIN manage"
wait_for "? help"
kill -TERM "$(manage_pid)"
check_sane "SIGTERM"

# --- a closed terminal: the process ends
run_in_shell "clear; $BIN manage"
wait_for "? help"
pid=$(manage_pid)
T kill-session -t manage
for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then fail "manage still runs after its terminal closed"; kill -KILL "$pid"; else ok "closed terminal: manage ended"; fi

[ "$FAILED" = 0 ] && echo "manage tmux test: all checks passed" || echo "manage tmux test: FAILED"
exit "$FAILED"
