#!/usr/bin/env bash
# docs/architecture.md's tables, held to Package.swift: every target has one row (its name in
# backticks in the first cell), and the row's last cell names exactly the target's
# `dependencies:` (in backticks, any order; "—" for none). A row for a target that does not exist
# fails too. Usage: Scripts/check-architecture.sh   (exit 1 and one line per disagreement)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq jq; }

doc=docs/architecture.md
manifest="$(swift package dump-package)"
# "target<TAB>dep dep dep" from the manifest, and the same from the document's rows.
declared="$(jq -r '.targets[] | [.name, ([.dependencies[] | (.byName // .target // .product)[0]] | sort | join(" "))] | @tsv' <<<"$manifest" | sort)"
documented="$(grep -E '^\| `[^`]+` \|' "$doc" | awk -F'|' '{
  name = $2; gsub(/[ `]/, "", name)
  deps = $(NF - 1); out = ""
  while (match(deps, /`[^`]+`/)) { out = out " " substr(deps, RSTART + 1, RLENGTH - 2); deps = substr(deps, RSTART + RLENGTH) }
  print name "\t" out
}' | while IFS=$'\t' read -r name deps; do
  printf '%s\t%s\n' "$name" "$(tr ' ' '\n' <<<"$deps" | grep -v '^$' | sort | paste -sd' ' -)"
done | sort)"

status=0
dupes="$(cut -f1 <<<"$documented" | uniq -d)"
if [ -n "$dupes" ]; then
  echo "$doc has more than one row for: $dupes" >&2
  status=1
fi
while IFS=$'\t' read -r name deps; do
  row="$(awk -F'\t' -v n="$name" '$1 == n { print $2; exit }' <<<"$documented")"
  if ! grep -qP "^\Q$name\E\t" <<<"$documented"; then
    echo "$doc: no row for the target $name (depends on: ${deps:-nothing})" >&2
    status=1
  elif [ "$row" != "$deps" ]; then
    echo "$doc: $name depends on [${deps}] in Package.swift, the table says [${row}]" >&2
    status=1
  fi
done <<<"$declared"
while IFS=$'\t' read -r name _; do
  if ! grep -qP "^\Q$name\E\t" <<<"$declared"; then
    echo "$doc: a row for $name, which Package.swift has no target of" >&2
    status=1
  fi
done <<<"$documented"
exit "$status"
