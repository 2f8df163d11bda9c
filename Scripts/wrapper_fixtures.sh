#!/usr/bin/env bash
# Builds and tests Tests/WrapperFixtures, wrapper code whose sources say `import StoreKit` and
# `import StoreKitTest` unchanged, against this checkout's `StoreKit` and `StoreKitTest`
# products (docs/storekit-on-linux.md). The build starts from scratch, so that every storesim
# source is compiled as a dependent compiles it; a warning printed from storesim's sources fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch="$root/.build/wrapper-fixtures"
rm -rf "$scratch"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build --build-tests --package-path Tests/WrapperFixtures --scratch-path "$scratch" >"$log" 2>&1; then
  tail -60 "$log"
  exit 1
fi
warnings=$(grep -E "^$root/Sources/.*warning:" "$log" | sort -u || true)
if [ -n "$warnings" ]; then
  echo "the dependent build printed warnings from storesim's sources:"
  echo "$warnings" | head -40
  exit 1
fi
swift test --skip-build --package-path Tests/WrapperFixtures --scratch-path "$scratch"
