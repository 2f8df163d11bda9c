#!/usr/bin/env python3
"""Validates the real --json output of every command, and of every scenario run, against the
JSON Schemas in docs/schema/ (Python `jsonschema`, pinned in .ci/run).

    python Scripts/schema_check.py .build/debug/storesim

Every command listed by `storesim --help` must have a schema here (shell and completions print
no JSON); a command that fails under --json must print the error object (error.schema.json).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema
from referencing import Registry, Resource

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "docs", "schema")
# manage is a full-screen terminal program; serve and api answer with Apple's own response shapes (checked by serve_interop.py), not storesim JSON.
NO_JSON = {"shell", "completions", "serve", "api", "manage", "mcp"}


def schema_of_commands():
    """Which schema a command's --json answer has when it is not named after the command: read
    from the control API's OpenAPI document (docs/control-api.openapi.json, made from the
    command table by ControlOpenAPI.schemaOf), so the mapping is written once."""
    with open(os.path.join(ROOT, "docs", "control-api.openapi.json")) as f:
        document = json.load(f)
    prefix = "/storesim/v1/sessions/{session}/"
    found = {}
    for path, item in document["paths"].items():
        if not path.startswith(prefix):
            continue
        answer = item["post"]["responses"]["200"]["content"]["application/json"]["schema"]
        ref = answer.get("$ref") or answer["anyOf"][0].get("$ref", "")
        if ref:
            found[path[len(prefix):]] = ref.rsplit("/", 1)[-1]
    return found


SCHEMA_OF = schema_of_commands()

schemas = {}
for path in glob.glob(os.path.join(SCHEMAS, "*.schema.json")):
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    schemas[os.path.basename(path)[: -len(".schema.json")]] = schema
registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())

def validator(name):
    return jsonschema.Draft202012Validator(schemas[name], registry=registry)

checked = {}
failures = []

def check(binary, args, cwd, expect_error=False):
    proc = subprocess.run([binary] + args + ["--json"], cwd=cwd, capture_output=True, text=True)
    command = args[0]
    try:
        value = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        failures.append(f"storesim {' '.join(args)} --json: not JSON ({e}): {proc.stdout[:200]!r}")
        return
    is_error = isinstance(value, dict) and "exitCode" in value
    if expect_error and not is_error:
        failures.append(f"storesim {' '.join(args)} --json: exit {proc.returncode} without the error object")
    if is_error and value.get("exitCode") != proc.returncode:
        failures.append(f"storesim {' '.join(args)} --json: exitCode {value.get('exitCode')} but the process exited {proc.returncode}")
    name = "error" if is_error else SCHEMA_OF.get(command, command)
    errors = sorted(validator(name).iter_errors(value), key=lambda e: list(e.path))
    for e in errors[:3]:
        failures.append(f"storesim {' '.join(args)} --json against {name}.schema.json: {e.message} at {list(e.absolute_path)}")
    checked[command] = checked.get(command, 0) + 1
    print(f"{'ok  ' if not errors else 'FAIL'}  {name:<14} storesim {' '.join(args)} --json")

def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "storesim"))
    work = tempfile.mkdtemp()
    try:
        for name in ("AppleSample.storekit", "Premium.storekit", "CommitmentPlan.storekit"):
            shutil.copy(os.path.join(ROOT, "Configurations", name), work)
        story = [
            ["version"], ["validate", "AppleSample.storekit", "Premium.storekit"],
            ["init", "AppleSample.storekit", "--start", "2026-01-01T00:00:00Z"],
            ["products"], ["products", "--ids", "subscription.pro,nope"], ["settings"],
            ["buy", "subscription.pro"], ["buy", "nonconsumable.car"], ["buy", "consumable.fuel.octane87", "--quantity", "2"],
            ["buy", "subscription.standard"], ["buy", "subscription.pro"], ["buy", "nonconsumable.car", "--cancel"],
            ["settings", "ask-to-buy", "on"], ["buy", "nonconsumable.racecar"], ["buy", "nonconsumable.utilityvehicle"],
            ["pending"], ["approve"], ["decline"], ["settings", "ask-to-buy", "off"],
            ["settings", "time-rate", "oneRenewalEveryTwoSeconds"], ["settings", "time-rate", "realTime"],
            ["settings", "error", "purchase", "networkError"], ["buy", "nonconsumable.utilityvehicle"],
            ["settings", "error", "purchase", "none"], ["finish", "2000000000000002"], ["finish", "--all"],
            ["settings", "billing-retry", "on"], ["settings", "grace-period", "on"], ["advance", "2mo"],
            ["status"], ["status", "--signed"], ["status", "--format", "api"], ["timeline"], ["report", "--html", "r.html"],
            ["settings", "billing-retry", "off"], ["resolve", "subscription.pro"],
            ["cancel", "subscription.pro"], ["resume", "subscription.pro"],
            ["price-increase", "subscription.pro", "request", "--price", "5.99"], ["price-increase", "subscription.pro", "accept"],
            ["renew", "subscription.pro"], ["refund", "2000000000000002"],
            ["refund", "request", "consumable.fuel.octane87"], ["refund", "approve", "4"],
            ["refund", "reverse", "2000000000000002"], ["refund", "request", "2000000000000001"], ["refund", "decline", "5"],
            ["entitlements"], ["transactions"], ["transactions", "--signed"], ["transactions", "--format", "api"],
            ["latest", "subscription.pro"], ["latest", "subscription.pro", "--signed"], ["latest", "subscription.pro", "--format", "api"],
            ["notifications"], ["notifications", "--signed"], ["notifications", "--decoded", "--since", "3"],
            ["receipt"], ["receipt", "--endpoint", "Production"], ["certificate"], ["token"], ["now"], ["family"], ["family", "add", "kid"],
            ["restore"], ["expire", "subscription.pro"], ["advance", "--next"], ["advance", "1d"],
            ["buy", "subscription.pro"], ["extend", "2000000000000014", "--days", "3"],
            ["extend-all", "subscription.pro", "--days", "2"], ["consumption"],
            ["api", "PUT", "/inApps/v1/messaging/message/6f1c2b9e-0d4a-4c1e-9b1f-3a2d5e7c8b01", "--data", '{"header":"h","body":"b"}'],
            ["retention", "--review", "6f1c2b9e-0d4a-4c1e-9b1f-3a2d5e7c8b01", "--state", "PENDING"],
            ["retention", "subscription.pro"], ["retention", "subscription.pro", "--decline"], ["retention", "--list"],
            ["buy", "nonconsumable.racecar"], ["refund", "--product", "nonconsumable.racecar", "--percent", "40"],
            ["consent", "revoke", "--customer", "kid"],
            ["notifications", "--since", "0"], ["notifications", "--decoded", "--since", "0"],
            ["delete", "2000000000000002"], ["reset", "--settings"], ["reset", "--transactions"],
            # A commitment plan: commitmentInfo on the transaction and the renewal info.
            ["init", "CommitmentPlan.storekit", "--start", "2026-01-15T00:00:00Z", "--force"],
            ["buy", "com.example.studio.pro.yearly", "--billing-plan", "monthly"], ["advance", "--next"],
            ["cancel", "com.example.studio.pro.yearly"], ["latest", "com.example.studio.pro.yearly"], ["status"],
            ["transactions"], ["notifications", "--decoded", "--since", "0"], ["timeline"],
            # A population (docs/populations.md) in a new session.
            ["init", "Premium.storekit", "--start", "2026-01-01T00:00:00Z", "--force"],
            ["populate", "--customers", "20", "--months", "3", "--answer-key", "k.csv"],
        ]
        for args in story:
            if args[0] == "api":  # a setup step: api answers with Apple's shapes, not storesim JSON
                subprocess.run([binary] + args, cwd=work, capture_output=True, check=True)
                continue
            check(binary, args, work)
        # import: what api answers for the commitment plan's customer, into a fresh session.
        history = subprocess.run([binary, "api", "GET", "/inApps/v2/history/2000000000000001"], cwd=work,
                                 capture_output=True, check=True).stdout
        with open(os.path.join(work, "history.json"), "wb") as f:
            f.write(history.split(b"\n", 1)[1])  # the body, after the status line
        subprocess.run([binary, "init", "CommitmentPlan.storekit", "--force"], cwd=work, capture_output=True, check=True)
        check(binary, ["import", "history.json"], work)
        for args in (["buy", "nonconsumable.cra"], ["refund", "42"], ["frobnicate"], ["advance", "1m"], ["decline"],
                     ["retention", "subscription.pro"]):
            check(binary, args, work, expect_error=True)
        scenarios = sorted(glob.glob(os.path.join(ROOT, "Scripts", "*.storesim")))
        check(binary, ["run"] + scenarios, work)
        bad = os.path.join(work, "bad.storesim")
        with open(bad, "w") as f:
            f.write("init AppleSample.storekit\nexpect entitle car\nadvance 1m\n")
        check(binary, ["run", bad] + scenarios[:1], work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    commands = re.findall(r"^  ([a-z][a-z-]+)  ", help_text, re.M)
    for command in commands:
        if command in NO_JSON:
            continue
        if SCHEMA_OF.get(command, command) not in schemas:
            failures.append(f"{command}: no schema in docs/schema/")
        if command not in checked:
            failures.append(f"{command}: its --json output was not checked")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print(f"schemas: {sum(checked.values())} outputs of {len(checked)} commands valid against {len(schemas)} schemas")

main()
