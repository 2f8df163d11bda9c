#!/usr/bin/env bash
# The module graph, checked both ways. SwiftPM's `--explicit-target-dependency-import-check`
# accepts an import of any module in a target's transitive closure; this script is stricter:
# every `import M` of a package module must name a *direct* dependency in Package.swift, and no
# module re-exports another (`@_exported`) to pass it on.
# Usage: Scripts/check-imports.sh   (exit 1 and one line per problem when the graph is not true)
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
# The one exception: the modules whose job is to stand in for Apple's frameworks re-export what
# those frameworks bring (StoreKit and StoreKitTest; StoreSimKit brings Foundation, as StoreKit
# does), so that code written for Apple's `import StoreKit` compiles unchanged (issue 31).
allowed='^(Sources/StoreKit/StoreKit\.swift|Sources/StoreKitTest/StoreKitTest\.swift|Sources/StoreSimKit/Exports\.swift):'
if grep -rn '@_exported' Sources Tests | grep -vE "$allowed"; then
  echo "a module re-exports another: import what you use where you use it" >&2
  status=1
fi
command -v jq >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq jq; }

manifest="$(swift package dump-package)"
modules="$(jq -r '.targets[].name' <<<"$manifest")"
while IFS=$'\t' read -r target kind path; do
  dir="${path:-$([ "$kind" = test ] && echo Tests || echo Sources)/$target}"
  declared="$(jq -r --arg t "$target" '.targets[] | select(.name == $t) | .dependencies[] | (.byName // .target // .product)[0]' <<<"$manifest")"
  while IFS=: read -r file _ line; do
    module="$(sed -E 's/^(@testable |public |package |internal )?import ([A-Za-z0-9_]+).*/\2/' <<<"$line")"
    grep -qxF "$module" <<<"$modules" || continue
    [ "$module" = "$target" ] && continue
    if ! grep -qxF "$module" <<<"$declared"; then
      echo "$file: $target imports $module without declaring it in Package.swift" >&2
      status=1
    fi
  done < <(grep -rnE '^(@testable |public |package |internal )?import [A-Za-z0-9_]+' "$dir" --include='*.swift' || true)
done < <(jq -r '.targets[] | [.name, .type, (.path // "")] | @tsv' <<<"$manifest")
exit "$status"
