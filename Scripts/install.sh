#!/usr/bin/env bash
# Builds a release storesim and installs it, with its shell completions, under a prefix.
#   Scripts/install.sh [--prefix DIR]               build and install (DIR default: ~/.local)
#   Scripts/install.sh --uninstall [--prefix DIR]   remove exactly what install puts there
# Installs DIR/bin/storesim and the completion scripts where the shells look for them:
#   DIR/share/bash-completion/completions/storesim   (bash-completion, found on its own)
#   DIR/share/fish/vendor_completions.d/storesim.fish (fish, found on its own)
#   DIR/share/zsh/site-functions/_storesim            (zsh: that folder must be on $fpath)
# STORESIM_BINARY=PATH installs that binary instead of building one (CI checks the script so).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${HOME:?}/.local"
UNINSTALL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 64; }; PREFIX="$2"; shift 2 ;;
    --prefix=*) PREFIX="${1#--prefix=}"; shift ;;
    --uninstall) UNINSTALL=1; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument '$1'; use --prefix DIR or --uninstall" >&2; exit 64 ;;
  esac
done
BIN="$PREFIX/bin/storesim"
BASH_COMPLETION="$PREFIX/share/bash-completion/completions/storesim"
FISH_COMPLETION="$PREFIX/share/fish/vendor_completions.d/storesim.fish"
ZSH_COMPLETION="$PREFIX/share/zsh/site-functions/_storesim"

if [ "$UNINSTALL" = 1 ]; then
  for f in "$BIN" "$BASH_COMPLETION" "$FISH_COMPLETION" "$ZSH_COMPLETION"; do
    if [ -e "$f" ]; then rm -f "$f"; echo "removed $f"; fi
  done
  exit 0
fi

if [ -n "${STORESIM_BINARY:-}" ]; then
  SOURCE="$STORESIM_BINARY"
else
  # The first release build takes minutes: say so, and let swift build's progress through
  # ([12/180] Compiling ...), each line as it comes, so the wait is never silent.
  echo "building storesim (release) in $ROOT: the first build takes about 12 minutes on a 2-core machine, later ones seconds"
  started=$SECONDS
  if ! (cd "$ROOT" && swift build -c release --product storesim 2>&1) | sed -u 's/^/  /'; then
    echo "install.sh: the build failed (its output is above)" >&2
    exit 1
  fi
  echo "built in $((SECONDS - started)) s"
  SOURCE="$(cd "$ROOT" && swift build -c release --show-bin-path)/storesim"
fi
echo "installing into $PREFIX"
mkdir -p "$(dirname "$BIN")" "$(dirname "$BASH_COMPLETION")" "$(dirname "$FISH_COMPLETION")" "$(dirname "$ZSH_COMPLETION")"
install -m 755 "$SOURCE" "$BIN"
"$BIN" completions bash > "$BASH_COMPLETION"
"$BIN" completions fish > "$FISH_COMPLETION"
"$BIN" completions zsh > "$ZSH_COMPLETION"
echo "installed $("$BIN" --version) as $BIN"
echo "completions: $BASH_COMPLETION, $FISH_COMPLETION, $ZSH_COMPLETION"
case ":$PATH:" in
  *":$PREFIX/bin:"*) ;;
  *) echo "note: $PREFIX/bin is not on your PATH; add it: export PATH=\"$PREFIX/bin:\$PATH\"" ;;
esac
echo "zsh: put $PREFIX/share/zsh/site-functions on \$fpath before compinit (or: source <(storesim completions zsh))"
echo "to remove: Scripts/install.sh --uninstall$([ "$PREFIX" = "$HOME/.local" ] || echo " --prefix $PREFIX")"
