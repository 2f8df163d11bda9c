#!/usr/bin/env python3
"""Checks storesim's signed artifacts with Apple's app-store-server-library.

Usage: interop.py STORESIM_BINARY

1. For each environment whose signatures the library skips (Xcode, LocalTesting), runs every
   scenario in Scripts/ with `run --environment ENV --artifacts DIR`, then decodes every signed
   transaction, renewal info, notification and Retention Messaging realtime request with
   SignedDataVerifier (verify_and_decode_realtime_request for the last) and checks that each
   decoded value equals storesim's own JSON, that a printed notification is exactly the signed
   one, and that no payload (notification, its `data` or `appData`, transaction, renewal info,
   app transaction, either `commitmentInfo`) holds a key outside Apple's models (the library's
   model class attributes). A RESCIND_CONSENT (decoded by verify_and_decode_notification, its
   app transaction by verify_and_decode_app_transaction) and both commitmentInfo models must
   have been decoded at least once.
2. Delivery: a server on 127.0.0.1 answers 500 to the first POST and 200 afterwards; after
   `notifications deliver` and `notifications deliver --retry` every notification must have
   arrived exactly as signed, decode with the library, hold only Apple's keys, and nothing may
   be lost.
"""
import attr
import base64
import json
import os
import subprocess
import sys
import tempfile

from appstoreserverlibrary.models.AppData import AppData
from appstoreserverlibrary.models.AppTransaction import AppTransaction
from appstoreserverlibrary.models.Data import Data
from appstoreserverlibrary.models.DecodedRealtimeRequestBody import DecodedRealtimeRequestBody
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.JWSRenewalInfoDecodedPayload import JWSRenewalInfoDecodedPayload
from appstoreserverlibrary.models.JWSTransactionDecodedPayload import JWSTransactionDecodedPayload
from appstoreserverlibrary.models.RenewalCommitmentInfo import RenewalCommitmentInfo
from appstoreserverlibrary.models.ResponseBodyV2DecodedPayload import ResponseBodyV2DecodedPayload
from appstoreserverlibrary.models.TransactionCommitmentInfo import TransactionCommitmentInfo
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

import interop_support

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1])
failures = []


def allowed_keys(model):
    """The JSON keys of one of Apple's models: its attributes, without the library's raw* twins."""
    return {a.name for a in attr.fields(model) if not a.name.startswith("raw")}


ALLOWED = {
    "notification": allowed_keys(ResponseBodyV2DecodedPayload),
    "notification.data": allowed_keys(Data),
    "transaction": allowed_keys(JWSTransactionDecodedPayload),
    "renewalInfo": allowed_keys(JWSRenewalInfoDecodedPayload),
    "notification.appData": allowed_keys(AppData),
    "appTransaction": allowed_keys(AppTransaction),
    "transaction.commitmentInfo": allowed_keys(TransactionCommitmentInfo),
    "renewalInfo.commitmentInfo": allowed_keys(RenewalCommitmentInfo),
}
# What the new models decoded (RESCIND_CONSENT's appData, the commitment plan's commitmentInfo), by kind: CI fails when a kind a scenario produces was never seen.
seen = set()


def jws_payload(jws):
    """The payload of a compact JWS, as JSON, without verifying it."""
    part = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def check_keys(kind, payload, where):
    if kind in ("transaction", "renewalInfo") and "commitmentInfo" in payload:
        check_keys(f"{kind}.commitmentInfo", payload["commitmentInfo"], where)
        seen.add(f"{kind}.commitmentInfo")
    extra = sorted(set(payload) - ALLOWED[kind])
    if extra:
        failures.append(f"{where}: {kind} holds keys outside Apple's model: {extra}")


def check_notification(verifier, signed, where, printed=None):
    """Decodes a signed notification with the library and checks every payload's keys."""
    decoded = verifier.verify_and_decode_notification(signed)
    body = jws_payload(signed)
    if printed is not None and printed != body:
        failures.append(f"{where}: the printed notification is not the signed one")
    check_keys("notification", body, where)
    data = body.get("data", {})
    check_keys("notification.data", data, where)
    compare("notification", {k: v for k, v in body.items() if k not in ("data", "appData")}, decoded, where)
    compare("notification.data", data, decoded.data, where)
    if "appData" in body:
        # RESCIND_CONSENT: appData instead of data, with the customer's signed app transaction.
        app_data = body["appData"]
        check_keys("notification.appData", app_data, where)
        compare("notification.appData", app_data, decoded.appData, where)
        app = jws_payload(app_data["signedAppTransactionInfo"])
        check_keys("appTransaction", app, where)
        compare("notification.appTransaction", app, verifier.verify_and_decode_app_transaction(decoded.appData.signedAppTransactionInfo), where)
        if body.get("notificationType") != "RESCIND_CONSENT" or "data" in body:
            failures.append(f"{where}: appData on {body.get('notificationType')} or next to data")
        seen.add("RESCIND_CONSENT")
    if "signedTransactionInfo" in data:
        transaction = jws_payload(data["signedTransactionInfo"])
        check_keys("transaction", transaction, where)
        compare("notification.transaction", transaction, verifier.verify_and_decode_signed_transaction(decoded.data.signedTransactionInfo), where)
    if "signedRenewalInfo" in data:
        renewal = jws_payload(data["signedRenewalInfo"])
        check_keys("renewalInfo", renewal, where)
        compare("notification.renewalInfo", renewal, verifier.verify_and_decode_renewal_info(decoded.data.signedRenewalInfo), where)
    if body.get("notificationType") == "CONSUMPTION_REQUEST" and "consumptionRequestReason" not in data:
        failures.append(f"{where}: CONSUMPTION_REQUEST without consumptionRequestReason")
    return decoded


def compare(kind, expected, decoded, where):
    interop_support.compare(kind, expected, decoded, where, failures)


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
                    check_keys("transaction", item["json"], where)
                    compare("transaction", item["json"], verifier.verify_and_decode_signed_transaction(item["signed"]), where)
                elif item["kind"] == "renewalInfo":
                    check_keys("renewalInfo", item["json"], where)
                    compare("renewalInfo", item["json"], verifier.verify_and_decode_renewal_info(item["signed"]), where)
                elif item["kind"] == "realtimeRequest":
                    check_realtime_request(verifier, item, where)
                else:
                    check_notification(verifier, item["signed"], where, printed=item["json"])
                count += 1
            except Exception as error:  # a decoding failure is a finding, not a crash
                failures.append(f"{where}: {item['kind']} did not decode: {error!r}")
    return count


def check_realtime_request(verifier, item, where):
    """A Retention Messaging realtime request: verify_and_decode_realtime_request must give back
    every field storesim signed, and the payload must hold only DecodedRealtimeRequestBody's keys."""
    decoded = verifier.verify_and_decode_realtime_request(item["signed"])
    extra = sorted(set(item["json"]) - allowed_keys(DecodedRealtimeRequestBody))
    if extra:
        failures.append(f"{where}: realtimeRequest holds keys outside Apple's model: {extra}")
    for key, want in item["json"].items():
        got = getattr(decoded, "raw" + key[0].upper() + key[1:], None)
        if got is None:
            got = getattr(decoded, key, None)
        got = str(got) if key == "requestIdentifier" else interop_support.plain(got)
        if got != want:
            failures.append(f"{where}: realtimeRequest.{key}: storesim {want!r}, decoded {got!r}")


def run(*args, cwd):
    return subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True)


def delivery_test():
    with interop_support.Receiver(fail_first=1) as server:
        received, url = server.received, server.url + "notifications"
        with tempfile.TemporaryDirectory() as work:
            config = os.path.join(ROOT, "Configurations", "AppleSample.storekit")
            assert run("init", config, "--environment", "LocalTesting", "--bundle-id", "com.example.interop", cwd=work).returncode == 0
            for product in ("nonconsumable.car", "subscription.pro", "consumable.fuel.octane87"):
                assert run("buy", product, cwd=work).returncode == 0
            run("advance", "3mo", cwd=work)
            assert run("refund", "request", "consumable.fuel.octane87", "--reason", "legal", cwd=work).returncode == 0
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
            printed = json.loads(run("notifications", "--json", cwd=work).stdout)
            uuids = []
            for i, r in enumerate(received):
                if set(r) != {"signedPayload"}:
                    failures.append(f"delivery#{i}: the POSTed body holds {sorted(r)}, not just signedPayload")
                decoded = check_notification(verifier, r["signedPayload"], f"delivery#{i}")
                uuids.append(decoded.notificationUUID)
                mine = [p for p in printed if p["notificationUUID"] == decoded.notificationUUID]
                if mine != [jws_payload(r["signedPayload"])]:
                    failures.append(f"delivery#{i}: the delivered notification differs from the printed one")
            if len(received) != total or len(set(uuids)) != total:
                failures.append(f"delivery: {total} notifications, {len(received)} received, {len(set(uuids))} distinct")
            print(f"delivery: {total} notifications, first POST answered 500, all {len(set(uuids))} arrived after --retry")


def main():
    total = 0
    for environment in (Environment.XCODE, Environment.LOCAL_TESTING):
        with tempfile.TemporaryDirectory() as folder:
            # A scenario whose rule holds in Production only (flow 9: Apple retries there, and
            # makes one attempt elsewhere) keeps its own environment: it runs in the scenarios step.
            scripts = sorted(
                os.path.join(ROOT, "Scripts", f) for f in os.listdir(os.path.join(ROOT, "Scripts"))
                if f.endswith(".storesim")
                and "--environment Production" not in open(os.path.join(ROOT, "Scripts", f)).read())
            result = subprocess.run([BIN, "run", *scripts, "--environment", environment.value, "--artifacts", folder], capture_output=True, text=True)
            if result.returncode != 0:
                failures.append(f"{environment.value}: scenarios failed: {result.stdout}{result.stderr}")
            n = check_artifacts(folder, environment)
            print(f"{environment.value}: {n} artifacts decoded with SignedDataVerifier")
            total += n
    delivery_test()
    # The scenarios hold a consent revocation, a prorated refund and a commitment plan: each new
    # model must have decoded something.
    for kind in ("RESCIND_CONSENT", "transaction.commitmentInfo", "renewalInfo.commitmentInfo"):
        if kind not in seen:
            failures.append(f"no {kind} was decoded: a scenario must produce one")
    print(f"decoded new models: {sorted(seen)}")
    for f in failures[:50]:
        print("FAIL", f)
    print(f"interop: {total - len([f for f in failures if 'did not decode' in f])} of {total} artifacts decoded; {len(failures)} problems")
    print(f"{1 if not failures else 0} passed, {1 if failures else 0} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
