#!/usr/bin/env python3
"""Checks `POST /verifyReceipt` on `storesim serve` with server code written the usual way.

Usage: verify_receipt_test.py STORESIM_BINARY

A server validates an app receipt by POSTing {"receipt-data", "password",
"exclude-old-transactions"} to Apple's production URL first and, when the answer's status is
21007 (a sandbox receipt sent to production), again to the sandbox URL. Here the two URLs are
`storesim serve`'s: production `http://127.0.0.1:PORT/verifyReceipt`, sandbox
`http://127.0.0.1:PORT/sandbox/verifyReceipt`. The receipt is one `storesim receipt --json`
printed (`latest_receipt`, the app receipt as base64), and for a customer without a
subscription the base64 of its `receipt` object. The answer must equal what `storesim receipt`
prints for that endpoint; a wrong or missing shared secret, a malformed receipt and another
app's receipt must answer 21004, 21003, 21002 and 21003; a production session's receipt is
valid at production at once and answers 21008 at the sandbox. SIGTERM must stop the server
with exit 0. Standard library only.
"""
import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1])
SECRET = "0123456789abcdef0123456789abcdef"
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def storesim(*args, cwd):
    result = subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"storesim {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result.stdout


# --- the server code under test, as servers write it -------------------------------------------

def post_json(url, body):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status} from {url}")
        return json.loads(response.read())


def verify_receipt(receipt_data, production_url, sandbox_url, password=SECRET, exclude_old=False):
    """Production first; a sandbox receipt (21007) is sent again to the sandbox."""
    body = {"receipt-data": receipt_data, "exclude-old-transactions": exclude_old}
    if password is not None:
        body["password"] = password
    answer = post_json(production_url, body)
    if answer.get("status") == 21007:
        answer = post_json(sandbox_url, body)
    return answer


# --- the check -----------------------------------------------------------------------------------

def serve(folder):
    server = subprocess.Popen(
        [BIN, "serve", "--port", "0", "--quiet", "--shared-secret", SECRET], cwd=folder,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = server.stdout.readline().strip()
    if not base.startswith("http://"):
        server.kill()
        raise SystemExit(f"storesim serve printed {base!r}: {server.stderr.read()}")
    return server, base + "/verifyReceipt", base + "/sandbox/verifyReceipt"


def stop(server, what):
    server.send_signal(signal.SIGTERM)
    code = server.wait(timeout=10)
    check(code == 0, f"{what}: SIGTERM stopped serve with exit {code}, expected 0")


def session(folder, environment):
    config = os.path.join(ROOT, "Configurations", "AppleSample.storekit")
    storesim("init", config, "--start", "2026-01-01T00:00:00Z", "--environment", environment, cwd=folder)
    storesim("buy", "subscription.pro", cwd=folder)
    storesim("advance", "2mo", cwd=folder)
    storesim("buy", "nonconsumable.car", cwd=folder)
    storesim("buy", "nonconsumable.car", "--customer", "kim", cwd=folder)


def sandbox_session():
    with tempfile.TemporaryDirectory() as folder:
        session(folder, "Xcode")
        printed = json.loads(storesim("receipt", "--json", cwd=folder))
        receipt_data = printed["latest_receipt"]
        server, production, sandbox = serve(folder)
        try:
            answer = verify_receipt(receipt_data, production, sandbox)
            expected = json.loads(storesim("receipt", "--endpoint", "Sandbox", "--json", cwd=folder))
            check(answer.get("status") == 0, f"sandbox receipt: status {answer.get('status')}, expected 0")
            check(answer == expected, "sandbox receipt: the answer differs from 'storesim receipt --endpoint Sandbox'")
            products = sorted(item["product_id"] for item in answer.get("receipt", {}).get("in_app", []))
            bought = sorted(t["productId"] for t in json.loads(storesim("transactions", "--json", cwd=folder)))
            check(products == bought and len(bought) >= 3, f"in_app products {products}, transactions {bought}")
            renewal = answer.get("pending_renewal_info", [{}])[0]
            check(renewal.get("auto_renew_status") == "1", f"pending_renewal_info {renewal}")
            latest = verify_receipt(receipt_data, production, sandbox, exclude_old=True)["latest_receipt_info"]
            check([e["product_id"] for e in latest] == ["nonconsumable.car", "subscription.pro"],
                  f"exclude-old-transactions kept {[e['product_id'] for e in latest]}")
            # The app receipt of a customer without a subscription: base64 of its receipt object.
            kim = json.loads(storesim("receipt", "--json", "--customer", "kim", cwd=folder))
            kim_data = base64.b64encode(json.dumps(kim["receipt"]).encode()).decode()
            kim_answer = verify_receipt(kim_data, production, sandbox)
            check(kim_answer.get("status") == 0, f"kim's receipt: status {kim_answer.get('status')}")
            check([i["product_id"] for i in kim_answer["receipt"]["in_app"]] == ["nonconsumable.car"],
                  "kim's receipt names kim's purchases")
            check("latest_receipt_info" not in kim_answer, "no latest_receipt_info without a subscription")
            for password, status in (("wrong", 21004), (None, 21003)):
                got = verify_receipt(receipt_data, production, sandbox, password=password).get("status")
                check(got == status, f"password {password!r}: status {got}, expected {status}")
            got = verify_receipt("bm90IGEgcmVjZWlwdA==", production, sandbox).get("status")
            check(got == 21002, f"a malformed receipt: status {got}, expected 21002")
            other = dict(printed["receipt"], bundle_id="com.example.other")
            got = verify_receipt(base64.b64encode(json.dumps(other).encode()).decode(), production, sandbox)
            check(got.get("status") == 21003, f"another app's receipt: status {got.get('status')}, expected 21003")
        finally:
            stop(server, "sandbox session")


def production_session():
    with tempfile.TemporaryDirectory() as folder:
        session(folder, "Production")
        receipt_data = json.loads(storesim("receipt", "--json", cwd=folder))["latest_receipt"]
        server, production, sandbox = serve(folder)
        try:
            answer = verify_receipt(receipt_data, production, sandbox)
            check(answer.get("status") == 0 and answer.get("environment") == "Production",
                  f"production receipt: status {answer.get('status')} environment {answer.get('environment')}")
            got = post_json(sandbox, {"receipt-data": receipt_data, "password": SECRET}).get("status")
            check(got == 21008, f"production receipt at the sandbox: status {got}, expected 21008")
        finally:
            stop(server, "production session")


sandbox_session()
production_session()
if failures:
    print("verifyReceipt: FAILED")
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("verifyReceipt: a server retrying at the sandbox on 21007 validates storesim's receipts; "
      "21002, 21003, 21004, 21008 as Apple answers them")
