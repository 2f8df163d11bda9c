#!/usr/bin/env python3
"""Checks `storesim serve` with Apple's own App Store Server API client.

Usage: serve_interop.py STORESIM_BINARY

Starts `storesim serve --port 0` on a session with history (LocalTesting environment), points
Apple's `AppStoreServerAPIClient` (PyPI `app-store-server-library`) at it, and calls every
method storesim serves: transaction info, transaction history v1 and v2 (every page, filters),
all subscription statuses (with status filters), refund history, order lookup, notification
history (every page), app transaction info, test notification (delivered to a receiver on
127.0.0.1) and its status, renewal-date extension, mass extension and its status, consumption
information v1 and v2 (answering a refund request), app account token. Every signed item is decoded with
`SignedDataVerifier` and compared with `storesim transactions --json` and `status --json`. A
purchase made with the CLI between two calls must show in the second; a bad token must answer
401 and unknown or invalid ids Apple's codes, each as the library's `APIException`. SIGTERM
must stop the server with exit 0.

How the client is pointed at storesim: in `Environment.LOCAL_TESTING` the library's base URL is
`https://local-testing-base-url`; the client keeps it in its `_base_url` attribute, which this
script sets to the URL `storesim serve` prints (`http://127.0.0.1:PORT`).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest, DeliveryStatus
from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

import interop_support
from interop_support import plain

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1])
BUNDLE = "com.example.serve"
failures = []
calls = 0


def check(condition, message):
    if not condition:
        failures.append(message)


def compare(kind, expected, decoded, where):
    interop_support.compare(kind, expected, decoded, where, failures, skip=("signedDate",))  # signed when answered


def storesim(*args, cwd):
    result = subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"storesim {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result.stdout


def order_id(transaction_id):
    """storesim's order id of a purchase: 'M' and the transaction id in base 36 capitals."""
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    n, out = int(transaction_id), ""
    while True:
        out = digits[n % 36] + out
        n //= 36
        if n == 0:
            return "M" + out


def expect_api_error(call, status, code, what):
    global calls
    calls += 1
    try:
        call()
    except APIException as e:
        check(e.http_status_code == status, f"{what}: HTTP {e.http_status_code}, expected {status}")
        if code is not None:
            check(e.raw_api_error == code, f"{what}: errorCode {e.raw_api_error}, expected {code}")
        return
    failures.append(f"{what}: no APIException")


BOUGHT_AFTER_THE_REFUND = {"nonRenewing.standard", "nonconsumable.racecar"}


def modified_order(transactions):
    """Transactions in the order Apple's history lists them: by the date each was last
    modified (a refund moves a transaction to the refund's date). On one virtual date, the
    order of the commands: renewals, then the refund, then the purchases made after it."""
    def key(t):
        rank = 1 if "revocationDate" in t else 2 if t["productId"] in BOUGHT_AFTER_THE_REFUND else 0
        return (max(t["purchaseDate"], t.get("revocationDate", 0)), rank)
    return [t["transactionId"] for t in sorted(transactions, key=key)]


def main():
    global calls
    work = tempfile.mkdtemp(prefix="storesim-serve-")
    config = os.path.join(ROOT, "Configurations", "AppleSample.storekit")
    storesim("init", config, "--environment", "LocalTesting", "--bundle-id", BUNDLE, "--start", "2026-01-01T00:00:00Z", cwd=work)
    storesim("buy", "subscription.standard", cwd=work)
    storesim("buy", "nonconsumable.car", cwd=work)
    storesim("buy", "consumable.fuel.octane87", cwd=work)
    storesim("advance", "2y", cwd=work)
    storesim("refund", "--product", "nonconsumable.car", cwd=work)
    storesim("buy", "nonRenewing.standard", cwd=work)

    server = subprocess.Popen([BIN, "serve", "--port", "0"], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        check(url.startswith("http://127.0.0.1:"), f"serve printed {url!r}")
        run_checks(work, url)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            code = None
        log = server.stderr.read()
        check(code == 0, f"serve exited {code} after SIGTERM")
        requests_logged = len([line for line in log.splitlines() if '"GET ' in line or '"POST ' in line or '"PUT ' in line])
        check(requests_logged >= calls, f"serve logged {requests_logged} requests for {calls} calls")
    print(f"serve interop: {calls} calls through Apple's client; {len(failures)} problems")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


def run_checks(work, url):
    global calls
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    client = AppStoreServerAPIClient(pem, "KEY123ABC", "issuer-5678", BUNDLE, Environment.LOCAL_TESTING)
    client._base_url = url  # LOCAL_TESTING's base URL is a placeholder; point it at storesim serve
    verifier = SignedDataVerifier([], False, Environment.LOCAL_TESTING, BUNDLE)

    transactions = json.loads(storesim("transactions", "--json", cwd=work))
    by_id = {t["transactionId"]: t for t in transactions}
    check(len(transactions) > 20, f"the session has only {len(transactions)} transactions")
    first = transactions[0]["transactionId"]

    # Transaction info for every transaction.
    for t in transactions:
        calls += 1
        response = client.get_transaction_info(t["transactionId"])
        compare("transaction", t, verifier.verify_and_decode_signed_transaction(response.signedTransactionInfo), f"transaction {t['transactionId']}")

    # History, v1 and v2, every page.
    def history(version, request):
        global calls
        ids, revision, pages = [], None, 0
        while True:
            calls += 1
            response = client.get_transaction_history(first, revision, request, version)
            check(response.bundleId == BUNDLE, "history bundleId")
            check(plain(response.environment) == "LocalTesting", "history environment")
            check(len(response.signedTransactions) <= 20, "a history page holds more than 20")
            for signed in response.signedTransactions:
                decoded = verifier.verify_and_decode_signed_transaction(signed)
                compare("transaction", by_id.get(decoded.transactionId, {}), decoded, f"history {version.value} {decoded.transactionId}")
                ids.append(decoded.transactionId)
            revision = response.revision
            pages += 1
            if not response.hasMore or pages > 50:
                return ids, pages

    all_ids = modified_order(transactions)
    check(all_ids != [t["transactionId"] for t in transactions], "the refund should move a transaction in history order")
    for version in (GetTransactionHistoryVersion.V1, GetTransactionHistoryVersion.V2):
        ids, pages = history(version, TransactionHistoryRequest())
        check(ids == all_ids, f"history {version.value}: {len(ids)} transactions in {pages} pages, expected {len(all_ids)}")
        check(pages == (len(all_ids) + 19) // 20, f"history {version.value}: {pages} pages")
        ids, _ = history(version, TransactionHistoryRequest(sort=Order.DESCENDING))
        check(ids == list(reversed(all_ids)), f"history {version.value} DESCENDING")
        ids, _ = history(version, TransactionHistoryRequest(productTypes=[ProductType.AUTO_RENEWABLE]))
        check(ids == modified_order([t for t in transactions if t["type"] == "Auto-Renewable Subscription"]), f"history {version.value} AUTO_RENEWABLE")
        ids, _ = history(version, TransactionHistoryRequest(productIds=["nonconsumable.car"], revoked=True))
        check(ids == [t["transactionId"] for t in transactions if t["productId"] == "nonconsumable.car" and "revocationDate" in t], f"history {version.value} revoked car")
        mid = transactions[len(transactions) // 2]["purchaseDate"]
        ids, _ = history(version, TransactionHistoryRequest(startDate=mid))
        check(ids == modified_order([t for t in transactions if t["purchaseDate"] >= mid]), f"history {version.value} startDate")

    # A purchase with the CLI between two calls is seen by the second.
    before, _ = history(GetTransactionHistoryVersion.V2, TransactionHistoryRequest())
    storesim("buy", "nonconsumable.racecar", cwd=work)
    after, _ = history(GetTransactionHistoryVersion.V2, TransactionHistoryRequest())
    check(len(after) == len(before) + 1, f"a CLI purchase between calls: {len(before)} then {len(after)} transactions")
    transactions = json.loads(storesim("transactions", "--json", cwd=work))
    by_id = {t["transactionId"]: t for t in transactions}
    check(after == modified_order(transactions), "history after the purchase equals transactions --json in modified order")

    # A kept revision returns only what changed since, with its new data: a refund of an old
    # transaction, then nothing.
    kept = None
    while True:
        calls += 1
        page = client.get_transaction_history(first, kept, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
        kept = page.revision
        if not page.hasMore:
            break
    old = [t for t in transactions if t["type"] == "Auto-Renewable Subscription"][1]["transactionId"]  # an old renewal
    storesim("refund", old, cwd=work)
    calls += 1
    since = client.get_transaction_history(first, kept, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
    changed = [verifier.verify_and_decode_signed_transaction(s) for s in since.signedTransactions]
    check([t.transactionId for t in changed] == [old] and changed[0].revocationDate is not None, f"a kept revision after a refund returned {[t.transactionId for t in changed]}")
    calls += 1
    again = client.get_transaction_history(first, since.revision, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
    check(again.signedTransactions == [] and again.hasMore is False, "a kept revision with no change since returned transactions")
    transactions = json.loads(storesim("transactions", "--json", cwd=work))
    by_id = {t["transactionId"]: t for t in transactions}

    # Subscription statuses.
    statuses = json.loads(storesim("status", "--json", cwd=work))
    calls += 1
    response = client.get_all_subscription_statuses(first)
    got = []
    for group in response.data:
        for last in group.lastTransactions:
            t = verifier.verify_and_decode_signed_transaction(last.signedTransactionInfo)
            r = verifier.verify_and_decode_renewal_info(last.signedRenewalInfo)
            got.append((group.subscriptionGroupIdentifier, last.rawStatus, t.transactionId))
            mine = [s for s in statuses if s["transaction"]["transactionId"] == t.transactionId]
            check(len(mine) == 1, f"status for {t.transactionId} not in status --json")
            if mine:
                compare("transaction", mine[0]["transaction"], t, "status transaction")
                compare("renewalInfo", mine[0]["renewalInfo"], r, "status renewalInfo")
    check(got == [(s["subscriptionGroupIdentifier"], s["status"], s["transaction"]["transactionId"]) for s in statuses], f"statuses {got}")
    calls += 1
    filtered = client.get_all_subscription_statuses(first, [Status.EXPIRED, Status.REVOKED])
    wanted = [s for s in statuses if s["status"] in (2, 5)]
    check(sum(len(g.lastTransactions) for g in filtered.data) == len(wanted), "status filter")

    # Refund history.
    calls += 1
    refunds = client.get_refund_history(first, None)
    refunded = [verifier.verify_and_decode_signed_transaction(s).transactionId for s in refunds.signedTransactions]
    check(refunded == [t["transactionId"] for t in transactions if "revocationDate" in t and t.get("revocationType") == "REFUND_FULL"], f"refund history {refunded}")
    check(refunds.hasMore is False, "refund history hasMore")

    # Order lookup: Apple's endpoint "isn't available in the sandbox environment", and this
    # session is LocalTesting, so even a real purchase's order id answers status 1 (invalid)
    # with no transactions (docs/rules.md); an unknown one too.
    purchase = next(t for t in transactions if t["transactionReason"] == "PURCHASE" and t["productId"] == "nonconsumable.racecar")
    calls += 1
    order = client.look_up_order_id(order_id(purchase["transactionId"]))
    check(order.rawStatus == 1 and not order.signedTransactions, "order lookup outside Production")
    calls += 1
    check(client.look_up_order_id("MNOSUCHORDER").rawStatus == 1, "unknown order id")

    # Notification history lists what storesim attempted to deliver, within the last 30 days
    # (sandbox and local testing): every page, then onlyFailures, then a start too far back.
    subprocess.run([BIN, "notifications", "deliver", "http://127.0.0.1:9/"], cwd=work, capture_output=True)
    notifications = json.loads(storesim("notifications", "--json", cwd=work))
    now_ms = json.loads(storesim("now", "--json", cwd=work))["now"]
    start = now_ms - 29 * 86400000
    recent = [n["notificationUUID"] for n in notifications if n["signedDate"] >= start]
    check(len(recent) > 0, "no recent notifications to list")
    seen, token, pages = [], None, 0
    while True:
        calls += 1
        response = client.get_notification_history(token, NotificationHistoryRequest(startDate=start, endDate=4102444800000))
        for item in response.notificationHistory:
            seen.append(verifier.verify_and_decode_notification(item.signedPayload).notificationUUID)
            check(item.sendAttempts and item.sendAttempts[0].sendAttemptResult is not None, "a history item without its attempts")
        pages += 1
        if not response.hasMore or pages > 100:
            break
        token = response.paginationToken
    check(seen == recent, f"notification history: {len(seen)} of {len(recent)} in {pages} pages")
    calls += 1
    failures_only = client.get_notification_history(None, NotificationHistoryRequest(startDate=start, endDate=4102444800000, onlyFailures=True))
    check(len(failures_only.notificationHistory) == min(len(recent), 20), "onlyFailures: every attempt failed")
    expect_api_error(lambda: client.get_notification_history(None, NotificationHistoryRequest(startDate=now_ms - 31 * 86400000, endDate=now_ms)), 400, 4000012, "a start date past the 30-day window")
    expect_api_error(lambda: client.get_notification_history(None, NotificationHistoryRequest(startDate=start, endDate=start)), 400, 4000013, "equal start and end dates")

    # App transaction.
    calls += 1
    app = verifier.verify_and_decode_app_transaction(client.get_app_transaction_info(first).signedAppTransactionInfo)
    check(app.bundleId == BUNDLE and app.appTransactionId == transactions[0].get("appTransactionId"), "app transaction")

    # Writing endpoints. A receiver on 127.0.0.1 takes the notifications they cause.
    with interop_support.Receiver() as receiver:
        received = receiver.received
        storesim("settings", "deliver-url", receiver.url, cwd=work)
        calls += 1
        token = client.request_test_notification().testNotificationToken
        calls += 1
        test = client.get_test_notification_status(token)
        check(plain(verifier.verify_and_decode_notification(test.signedPayload).notificationType) == "TEST", "test notification type")
        check([plain(a.sendAttemptResult) for a in test.sendAttempts] == ["SUCCESS"], f"test notification attempts {test.sendAttempts}")
        check(any(verifier.verify_and_decode_notification(r["signedPayload"]).notificationUUID == verifier.verify_and_decode_notification(test.signedPayload).notificationUUID for r in received), "the TEST notification did not arrive")
        expect_api_error(lambda: client.get_test_notification_status("no-such-token"), 404, 4040008, "unknown test notification token")

        subscription = next(s for s in statuses if s["status"] == 1)
        original = subscription["transaction"]["originalTransactionId"]
        calls += 1
        extended = client.extend_subscription_renewal_date(original, ExtendRenewalDateRequest(extendByDays=7, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="ext-1"))
        check(extended.success and extended.originalTransactionId == original, "extension success")
        check(extended.effectiveDate == subscription["transaction"]["expiresDate"] + 7 * 86400000, "extension effectiveDate")
        now_status = [s for s in json.loads(storesim("status", "--json", cwd=work)) if s["transaction"]["originalTransactionId"] == original][0]
        check(now_status["transaction"]["expiresDate"] == extended.effectiveDate, "status --json after the extension")
        check(verifier.verify_and_decode_notification(received[-1]["signedPayload"]).rawNotificationType == "RENEWAL_EXTENDED", "RENEWAL_EXTENDED delivered")
        expect_api_error(lambda: client.extend_subscription_renewal_date(original, ExtendRenewalDateRequest(extendByDays=91, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier="ext-2")), 400, 4000009, "extendByDays 91")
        product = subscription["transaction"]["productId"]
        mass_id = str(uuid.uuid4())
        calls += 1
        client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(extendByDays=3, extendReasonCode=ExtendReasonCode.SERVICE_ISSUE_OR_OUTAGE, requestIdentifier=mass_id, productId=product))
        calls += 1
        mass = client.get_status_of_subscription_renewal_date_extensions(mass_id, product)
        check(mass.complete and mass.succeededCount == 1 and mass.failedCount == 0, f"mass extension status {mass}")
        summary = verifier.verify_and_decode_notification(received[-1]["signedPayload"])
        check(summary.rawNotificationType == "RENEWAL_EXTENSION" and summary.rawSubtype == "SUMMARY" and summary.summary is not None and summary.summary.requestIdentifier == mass_id and summary.summary.succeededCount == 1, "RENEWAL_EXTENSION/SUMMARY delivered")
        expect_api_error(lambda: client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(extendByDays=3, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier="not-a-uuid", productId=product)), 400, 4000011, "a mass extension without a UUID")
        expect_api_error(lambda: client.extend_subscription_renewal_date(original, ExtendRenewalDateRequest(extendByDays=1, extendReasonCode=ExtendReasonCode.OTHER, requestIdentifier="ext-3")), 403, 4030005, "a third extension in a year")

        consumable = next(t for t in transactions if t["type"] == "Consumable")["transactionId"]
        storesim("refund", "request", consumable, cwd=work)
        calls += 1
        client.send_consumption_information(consumable, ConsumptionRequest(customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED, consumptionPercentage=25000))
        calls += 1
        client.send_consumption_data(consumable, ConsumptionRequestV1(customerConsented=True, rawConsumptionStatus=1, rawPlatform=1, sampleContentProvided=False, rawDeliveryStatus=0, appAccountToken="", rawAccountTenure=1, rawPlayTime=2, rawLifetimeDollarsRefunded=0, rawLifetimeDollarsPurchased=3, rawUserStatus=1, rawRefundPreference=2))
        recorded = json.loads(storesim("consumption", "--json", cwd=work))
        check([c["version"] for c in recorded] == [2, 1] and all(c.get("refundRequestId") for c in recorded), f"consumption records {recorded}")
        expect_api_error(lambda: client.send_consumption_information(consumable, ConsumptionRequest(customerConsented=False, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED)), 400, 4000035, "customerConsented false")

        token = str(uuid.uuid4())
        calls += 1
        client.set_app_account_token(original, UpdateAppAccountTokenRequest(appAccountToken=token))
        mine = [t for t in json.loads(storesim("transactions", "--json", cwd=work)) if t["originalTransactionId"] == original]
        check(mine and mine[-1].get("appAccountToken") == token and all(t.get("appAccountToken") != token for t in mine[:-1]), "app account token on the current renewal only, not on past transactions")
        expect_api_error(lambda: client.set_app_account_token(original, UpdateAppAccountTokenRequest(appAccountToken="")), 400, 4000183, "an empty app account token")

        # Finish Transaction: a consumable leaves history v1 and stays in v2.
        fuel = [t["transactionId"] for t in json.loads(storesim("transactions", "--unfinished", "--json", cwd=work)) if t["type"] == "Consumable"]
        check(len(fuel) > 0, "no unfinished consumable to finish")
        calls += 1
        client.finish_transaction(fuel[0])
        unfinished = [t["transactionId"] for t in json.loads(storesim("transactions", "--unfinished", "--json", cwd=work))]
        check(fuel[0] not in unfinished, "finish_transaction did not finish it for the CLI")
        v1, _ = history(GetTransactionHistoryVersion.V1, TransactionHistoryRequest(productTypes=[ProductType.CONSUMABLE]))
        v2, _ = history(GetTransactionHistoryVersion.V2, TransactionHistoryRequest(productTypes=[ProductType.CONSUMABLE]))
        check(fuel[0] not in v1 and fuel[0] in v2, "a finished consumable: out of history v1, in v2")

    # Errors as the library's APIException with Apple's codes.
    expect_api_error(lambda: client.get_transaction_info("9999"), 404, 4040010, "unknown transaction id")
    expect_api_error(lambda: client.get_transaction_info("12ab"), 400, 4000006, "invalid transaction id")
    expect_api_error(lambda: client.get_all_subscription_statuses("9999"), 404, 4040010, "statuses of an unknown transaction")
    app_transaction_id = transactions[0]["appTransactionId"]
    expect_api_error(lambda: client.get_transaction_info(app_transaction_id), 400, 4000048, "transaction info for an appTransactionId")
    expect_api_error(lambda: client.finish_transaction(app_transaction_id), 400, 4000048, "finish an appTransactionId")
    calls += 1
    check(client.get_all_subscription_statuses(app_transaction_id).data is not None, "statuses by appTransactionId")
    other = AppStoreServerAPIClient(pem, "KEY123ABC", "issuer-5678", "com.example.other", Environment.LOCAL_TESTING)
    other._base_url = url
    expect_api_error(lambda: other.get_transaction_info(first), 401, None, "a token for another bundle id")


if __name__ == "__main__":
    main()
