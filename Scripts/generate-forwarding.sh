#!/bin/sh
# Writes the public properties of the copy-on-write records (Transaction, SubscriptionState,
# ServerNotification, Product) from their `Fields` declarations: every field with a `///`
# comment becomes a property with that comment, forwarding to the field. The generator is
# Forwarding.generate in Tests/StoreSimCoreTests/Support/ForwardingTests.swift; without this
# script, that test fails when a file is not current.
set -eu
cd "$(dirname "$0")/.."
STORESIM_REGENERATE=1 swift test --filter ForwardingTests
git status --short -- 'Sources/*+Forwarding.swift'
