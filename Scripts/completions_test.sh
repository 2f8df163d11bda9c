#!/usr/bin/env bash
# Checks the bash completion script against the real binary and a real session:
#   Scripts/completions_test.sh [STORESIM]
# Each case fills COMP_WORDS as bash would, calls the completion function in a subshell and
# compares COMPREPLY (compgen output) with what it must hold.
set -euo pipefail
. "$(dirname "$0")/lib.sh" "$@"
mkdir "$WORK/bin"
ln -s "$BIN" "$WORK/bin/storesim"
cd "$WORK"
cp "$ROOT/Configurations/AppleSample.storekit" .
"$BIN" init AppleSample.storekit --start 2026-01-01T00:00:00Z >/dev/null
"$BIN" buy nonconsumable.car >/dev/null
"$BIN" completions bash > storesim.bash
fails=0
check() { # expected word, then the words typed (the last one is being completed)
  local want="$1"; shift
  local got
  got=$(PATH="$WORK/bin:$PATH" bash -c 'source ./storesim.bash; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _storesim; printf "%s\n" "${COMPREPLY[@]}"' _ "$@")
  if printf '%s\n' "$got" | grep -qxF -- "$want"; then
    echo "ok    '$*' offers $want"
  else
    echo "FAIL  '$*' should offer $want; got: $(echo $got)"; fails=$((fails + 1))
  fi
}
check buy storesim b
check completions storesim comp
check nonconsumable.car storesim buy nonc
check subscription.pro storesim cancel subscription.p
check --quantity storesim buy nonconsumable.car --qu
check --log storesim api GET /inApps/v1/transactions/1 --lo
check --quiet storesim serve --qu
check --session storesim --ses
check ask-to-buy storesim settings ask
check 2000000000000001 storesim refund 2000
check 2000000000000001 storesim buy x --transaction 2
check expect storesim help exp
check fish storesim completions f
check subscription.pro storesim --session .storesim/session.json latest subscription.p
[ "$fails" -eq 0 ] || { echo "$fails completion case(s) failed"; exit 1; }
echo "completions: all cases passed"
