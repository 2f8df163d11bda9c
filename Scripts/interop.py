#!/usr/bin/env python3
"""Checks storesim's signed artifacts with Apple's app-store-server-library.

Usage: interop.py STORESIM_BINARY

1. For each environment whose signatures the library skips (Xcode, LocalTesting), runs every
   scenario in Scripts/ with `run --environment ENV --artifacts DIR`, then decodes every signed
   transaction, renewal info and notification with SignedDataVerifier and checks that each
   decoded value equals storesim's own JSON.
2. Delivery: a server on 127.0.0.1 answers 500 to the first POST and 200 afterwards; after
   `notifications deliver` and `notifications deliver --retry` every notification must have
   arrived exactly as signed, and nothing may be lost.
"""
import enum
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1])
failures = []


def plain(value):
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def compare(kind, expected, decoded, where):
    """Every key of storesim's JSON must decode to the same value (raw fields preferred)."""
    for key, want in expected.items():
        raw = "raw" + key[0].upper() + key[1:]
        got = getattr(decoded, raw, None)
        if got is None:
            got = getattr(decoded, key, None)
        got = plain(got)
        if got != want:
            failures.append(f"{where}: {kind}.{key}: storesim {want!r}, decoded {got!r}")


def check_artifacts(folder, environment):
    count = 0
    for name in sorted(os.listdir(folder)):
        doc = json.load(open(os.path.join(folder, name)))
        env = Environment(doc["environment"])
        assert env == environment, (env, environment)
        verifier = SignedDataVerifier([], False, env, doc["bundleId"])
        for i, item in enumerate(doc["artifacts"]):
            where = f"{environment.value}/{name}#{i}"
            try:
                if item["kind"] == "transaction":
                    compare("transaction", item["json"], verifier.verify_and_decode_signed_transaction(item["signed"]), where)
                elif item["kind"] == "renewalInfo":
                    compare("renewalInfo", item["json"], verifier.verify_and_decode_renewal_info(item["signed"]), where)
                else:
                    n = item["json"]
                    decoded = verifier.verify_and_decode_notification(item["signed"])
                    compare("notification", {k: v for k, v in n.items() if k != "data"}, decoded, where)
                    data = n["data"]
                    compare("notification.data", {k: data[k] for k in ("bundleId", "environment", "status", "signedTransactionInfo", "signedRenewalInfo") if k in data}, decoded.data, where)
                    if "signedTransactionInfo" in data:
                        compare("notification.transaction", data["transactionInfo"], verifier.verify_and_decode_signed_transaction(decoded.data.signedTransactionInfo), where)
                    if "signedRenewalInfo" in data:
                        compare("notification.renewalInfo", data["renewalInfo"], verifier.verify_and_decode_renewal_info(decoded.data.signedRenewalInfo), where)
                count += 1
            except Exception as error:  # a decoding failure is a finding, not a crash
                failures.append(f"{where}: {item['kind']} did not decode: {error!r}")
    return count


def run(*args, cwd):
    return subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True)


def delivery_test():
    received = []
    state = {"requests": 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state["requests"] += 1
            if state["requests"] == 1:
                self.send_response(500)
            else:
                received.append(json.loads(body))
                self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/notifications"
    try:
        with tempfile.TemporaryDirectory() as work:
            config = os.path.join(ROOT, "Configurations", "AppleSample.storekit")
            assert run("init", config, "--environment", "LocalTesting", "--bundle-id", "com.example.interop", cwd=work).returncode == 0
            for product in ("nonconsumable.car", "subscription.pro", "consumable.fuel.octane87"):
                assert run("buy", product, cwd=work).returncode == 0
            run("advance", "3mo", cwd=work)
            total = len(json.loads(run("notifications", "--json", cwd=work).stdout))
            first = run("notifications", "deliver", url, cwd=work)
            if first.returncode != 1 or "failed 1" not in first.stdout:
                failures.append(f"delivery: the 500 was not reported as a failure: {first.stdout} {first.stderr}")
            retry = run("notifications", "deliver", "--retry", cwd=work)
            if retry.returncode != 0:
                failures.append(f"delivery: retry failed: {retry.stdout} {retry.stderr}")
            again = run("notifications", "deliver", url, cwd=work)
            if "delivered 0, failed 0" not in again.stdout:
                failures.append(f"delivery: a second deliver re-sent notifications: {again.stdout}")
            verifier = SignedDataVerifier([], False, Environment.LOCAL_TESTING, "com.example.interop")
            uuids = [verifier.verify_and_decode_notification(r["signedPayload"]).notificationUUID for r in received]
            if len(received) != total or len(set(uuids)) != total:
                failures.append(f"delivery: {total} notifications, {len(received)} received, {len(set(uuids))} distinct")
            print(f"delivery: {total} notifications, first POST answered 500, all {len(set(uuids))} arrived after --retry")
    finally:
        server.shutdown()


def main():
    total = 0
    for environment in (Environment.XCODE, Environment.LOCAL_TESTING):
        with tempfile.TemporaryDirectory() as folder:
            scripts = sorted(os.path.join(ROOT, "Scripts", f) for f in os.listdir(os.path.join(ROOT, "Scripts")) if f.endswith(".storesim"))
            result = subprocess.run([BIN, "run", *scripts, "--environment", environment.value, "--artifacts", folder], capture_output=True, text=True)
            if result.returncode != 0:
                failures.append(f"{environment.value}: scenarios failed: {result.stdout}{result.stderr}")
            n = check_artifacts(folder, environment)
            print(f"{environment.value}: {n} artifacts decoded with SignedDataVerifier")
            total += n
    delivery_test()
    for f in failures[:50]:
        print("FAIL", f)
    print(f"interop: {total - len([f for f in failures if 'did not decode' in f])} of {total} artifacts decoded; {len(failures)} problems")
    print(f"{1 if not failures else 0} passed, {1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
