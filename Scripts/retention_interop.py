#!/usr/bin/env python3
"""Checks storesim's Retention Messaging with Apple's app-store-server-library.

Usage: retention_interop.py STORESIM_BINARY

Starts `storesim serve --port 0` on a session with a subscription (LocalTesting environment),
and a developer server on 127.0.0.1 that decodes every realtime request with
`SignedDataVerifier.verify_and_decode_realtime_request` and answers what the step asks.
Apple's `AppStoreServerAPIClient` then drives every messaging endpoint against serve: upload,
list and delete images and messages, configure, get and delete the default message and the
realtime URL, initiate a performance test and get its result; the errors Apple lists come back
as the library's `APIException` with Apple's codes. `storesim retention` must POST a request
the library decodes to the subscription's fields, show the developer's message, fall back to
the default message when the answer is invalid, and switch plans on --accept.
The client is pointed at serve as serve_interop.py does (its `_base_url`).
"""
import http.server
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import uuid
import zlib
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient
from appstoreserverlibrary.models.DefaultConfigurationRequest import DefaultConfigurationRequest
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ImageSize import ImageSize
from appstoreserverlibrary.models.PerformanceTestRequest import PerformanceTestRequest
from appstoreserverlibrary.models.RealtimeUrlRequest import RealtimeUrlRequest
from appstoreserverlibrary.models.UploadMessageImage import UploadMessageImage
from appstoreserverlibrary.models.UploadMessageRequestBody import UploadMessageRequestBody
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLE = "com.example.retention"
PRODUCT = "subscription.standard"
failures = []
calls = 0


def check(condition, message):
    if not condition:
        failures.append(message)


def storesim(*args, cwd, ok=True):
    result = subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True)
    if ok and result.returncode != 0:
        raise SystemExit(f"storesim {' '.join(args)} failed ({result.returncode}): {result.stderr}")
    return result


def png(width, height):
    """A real PNG, RGB (no alpha, no tRNS), one colour."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + b"\x20\x40\x80" * width
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height, 9)) + chunk(b"IEND", b""))


class Developer:
    """The developer's Get Retention Message endpoint: decodes each request with Apple's
    library and answers `answer` (a dict)."""

    def __init__(self):
        self.decoded = []
        self.answer = {}
        self.verifier = SignedDataVerifier([], False, Environment.LOCAL_TESTING, BUNDLE)
        developer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                try:
                    check(set(body) == {"signedPayload"}, f"the realtime request holds {sorted(body)}")
                    developer.decoded.append(developer.verifier.verify_and_decode_realtime_request(body["signedPayload"]))
                except Exception as error:  # a decoding failure is a finding
                    failures.append(f"verify_and_decode_realtime_request failed: {error!r}")
                data = json.dumps(developer.answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/retention"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def expect_api_error(call, status, code, what):
    global calls
    calls += 1
    try:
        call()
    except APIException as e:
        check(e.http_status_code == status, f"{what}: HTTP {e.http_status_code}, expected {status}")
        check(e.raw_api_error == code, f"{what}: errorCode {e.raw_api_error}, expected {code}")
        return
    failures.append(f"{what}: no APIException")


def run_checks(work, url, developer):
    global calls
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    client = AppStoreServerAPIClient(pem, "KEY123ABC", "issuer-5678", BUNDLE, Environment.LOCAL_TESTING)
    client._base_url = url
    image, bullet, plain, pictured = (uuid.uuid4() for _ in range(4))

    # Images.
    client.upload_image(image, png(3840, 160), ImageSize.FULL_SIZE)
    client.upload_image(bullet, png(1024, 1024), ImageSize.BULLET_POINT)
    calls += 2
    expect_api_error(lambda: client.upload_image(image, png(3840, 160), ImageSize.FULL_SIZE), 409, 4090000, "upload_image twice")
    expect_api_error(lambda: client.upload_image(uuid.uuid4(), png(100, 100), ImageSize.FULL_SIZE), 400, 4000161, "upload_image of the wrong size")
    listed = client.get_image_list().imageIdentifiers
    calls += 1
    check(sorted(str(i.imageIdentifier) for i in listed) == sorted([str(image), str(bullet)]), f"get_image_list: {listed}")
    check(all(i.imageState.value == "APPROVED" for i in listed), f"images not approved: {listed}")

    # Messages.
    client.upload_message(plain, UploadMessageRequestBody(header="Before you go", body="Your routes stay with you."))
    client.upload_message(pictured, UploadMessageRequestBody(
        header="New maps", body="Offline maps arrive next month.", image=UploadMessageImage(imageIdentifier=image, altText="A map")))
    calls += 2
    expect_api_error(lambda: client.upload_message(plain, UploadMessageRequestBody(header="a", body="b")), 409, 4090001, "upload_message twice")
    messages = client.get_message_list().messageIdentifiers
    calls += 1
    check(sorted(str(m.messageIdentifier) for m in messages) == sorted([str(plain), str(pictured)]), f"get_message_list: {messages}")
    check(all(m.messageState.value == "APPROVED" for m in messages), f"messages not approved: {messages}")
    expect_api_error(lambda: client.delete_image(image), 403, 4030019, "delete_image of an image in use")

    # The default message.
    expect_api_error(lambda: client.get_default_message(PRODUCT, "en-US"), 404, 4040020, "get_default_message before one is set")
    client.configure_default_message(PRODUCT, "en-US", DefaultConfigurationRequest(messageIdentifier=plain))
    calls += 1
    got = client.get_default_message(PRODUCT, "en-US")
    calls += 1
    check(str(got.messageIdentifier) == str(plain), f"get_default_message: {got}")
    expect_api_error(lambda: client.configure_default_message("nonconsumable.car", "en-US", DefaultConfigurationRequest(messageIdentifier=plain)),
                     400, 4000023, "configure_default_message of a non-subscription")
    expect_api_error(lambda: client.configure_default_message(PRODUCT, "english", DefaultConfigurationRequest(messageIdentifier=plain)),
                     400, 4000164, "configure_default_message with a bad locale")

    # The realtime URL.
    expect_api_error(lambda: client.get_realtime_url(), 404, 4040021, "get_realtime_url before one is set")
    expect_api_error(lambda: client.configure_realtime_url(RealtimeUrlRequest(realtimeURL="http://example.com/r")), 400, 4000215, "a plain http URL off loopback")
    client.configure_realtime_url(RealtimeUrlRequest(realtimeURL=developer.url))
    calls += 1
    check(client.get_realtime_url().realtimeURL == developer.url, "get_realtime_url")
    calls += 1

    # The performance test sends real requests, which the library decodes.
    original = json.loads(storesim("transactions", "--json", cwd=work).stdout)[0]["originalTransactionId"]
    developer.answer = {"message": {"messageIdentifier": str(plain)}}
    started = client.initiate_performance_test(PerformanceTestRequest(originalTransactionId=original))
    calls += 1
    result = client.get_performance_test_results(started.requestId)
    calls += 1
    check(result.result.value == "PASS" and result.successRate == 100, f"performance test: {result}")
    check(result.config.totalRequests == len(developer.decoded), f"{len(developer.decoded)} requests for {result.config.totalRequests}")
    expect_api_error(lambda: client.get_performance_test_results(str(uuid.uuid4())), 404, 4040018, "an unknown performance test")
    expect_api_error(lambda: client.initiate_performance_test(PerformanceTestRequest(originalTransactionId="x")), 400, 4000006, "a performance test on a bad id")

    # The customer opens the cancel flow: the request decodes to the subscription's fields.
    developer.decoded.clear()
    shown = json.loads(storesim("retention", PRODUCT, "--json", cwd=work).stdout)
    check(shown["outcome"] == "ok" and shown["messageIdentifier"] == str(plain), f"retention: {shown}")
    check(len(developer.decoded) == 1, f"{len(developer.decoded)} realtime requests decoded")
    if developer.decoded:
        d = developer.decoded[0]
        check(d.originalTransactionId == original and d.productId == PRODUCT and d.userLocale == "en-US", f"decoded: {d}")
        check(str(d.requestIdentifier) == shown["requestIdentifier"] and d.signedDate == shown["signedDate"], f"decoded: {d}")
        check(d.environment == Environment.LOCAL_TESTING, f"decoded environment {d.environment}")
    # A message with an image cannot come with a switch: the default message is shown.
    developer.answer = {"alternateProduct": {"messageIdentifier": str(pictured), "productId": "subscription.premium"}}
    shown = json.loads(storesim("retention", PRODUCT, "--json", cwd=work).stdout)
    check(shown["outcome"].startswith("invalid") and shown["fallback"] == "default", f"invalid answer: {shown}")
    # A switch to another plan, accepted.
    developer.answer = {"alternateProduct": {"messageIdentifier": str(plain), "productId": "subscription.premium"}}
    shown = json.loads(storesim("retention", PRODUCT, "--accept", "--json", cwd=work).stdout)
    check(shown["outcome"] == "ok" and shown["action"] == "accepted", f"accepted switch: {shown}")
    check(any(e.get("notificationType") == "DID_CHANGE_RENEWAL_PREF" for e in shown["events"]) or
          "DID_CHANGE_RENEWAL_PREF" in json.dumps(shown["events"]), f"no DID_CHANGE_RENEWAL_PREF: {shown['events']}")

    # Deleting.
    client.delete_default_message(PRODUCT, "en-US")
    client.delete_message(pictured)
    client.delete_image(image)
    client.delete_realtime_url()
    calls += 4
    expect_api_error(lambda: client.delete_default_message(PRODUCT, "en-US"), 404, 4040020, "delete_default_message twice")
    expect_api_error(lambda: client.delete_message(pictured), 404, 4040015, "delete_message twice")
    expect_api_error(lambda: client.delete_image(image), 404, 4040014, "delete_image twice")
    expect_api_error(lambda: client.get_realtime_url(), 404, 4040021, "get_realtime_url after delete")


def main():
    work = tempfile.mkdtemp(prefix="storesim-retention-")
    config = os.path.join(ROOT, "Configurations", "AppleSample.storekit")
    storesim("init", config, "--environment", "LocalTesting", "--bundle-id", BUNDLE, "--start", "2026-01-01T00:00:00Z", cwd=work)
    storesim("buy", PRODUCT, cwd=work)
    developer = Developer()
    server = subprocess.Popen([BIN, "serve", "--port", "0"], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        check(url.startswith("http://127.0.0.1:"), f"serve printed {url!r}")
        run_checks(work, url, developer)
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=20)
        developer.server.shutdown()
    check(code == 0, f"serve exited {code} after SIGTERM")
    for f in failures:
        print("FAIL", f)
    print(f"retention interop: {calls} messaging calls through AppStoreServerAPIClient; {len(failures)} problems")
    sys.exit(1 if failures else 0)


main()
