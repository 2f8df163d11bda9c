#!/usr/bin/env python3
"""Checks storesim's ES256 signatures and certificates with Apple's library and `cryptography`.

Usage: signing_interop.py STORESIM_BINARY

1. Sandbox and Production sessions (Production with --app-apple-id): Apple's SignedDataVerifier,
   online checks off, with `storesim certificate --der` as its only root, verifies every signed
   item the session prints (transactions, renewal info, statuses, notifications, the app
   transaction) at virtual dates two years on. A tampered payload, and the same data under a
   verifier holding another session's root, are refused.
2. `cryptography` both ways: it parses the chain (the two Apple OIDs, key identifiers, CA
   flags) and verifies each certificate's signature; a key it makes is read by
   `init --signing-key` (the session's root then holds that key).
3. Xcode sessions keep Xcode's shape: kid Apple_Xcode_Key, one self-signed certificate.
4. Bearer tokens: `serve --api-key AuthKey.p8 --key-id KID --issuer ISS` answers Apple's
   AppStoreServerAPIClient signing with that key (`cryptography` signs, storesim verifies), and
   answers 401 to the same client with another key or another key id; `api` does the same.
5. Offers: with a `.storekit` file holding `subscriptionOffersKeyPair` (a key `cryptography`
   made), `buy --offer promotional:ID --offer-signature` honours a compact JWS and a StoreKit 1
   signature made with that key, and refuses (invalidOfferSignature) ones made with another key.
6. A key given to the session (`init --api-key --key-id --issuer`): Apple's own signers
   (IntroductoryOfferEligibilitySignatureCreator, PromotionalOfferV2SignatureCreator,
   PromotionalOfferSignatureCreator) sign with it; `buy --intro-eligibility` grants the intro offer
   a customer has used, ignores a JWS of another key, and fails it under `settings
   strict-eligibility on`; promotional offers signed with it are honoured, another key refused;
   `serve` without --api-key checks Apple's client's tokens with it (401 for another key).
"""
import base64
import json
import os
import signal
import subprocess
import sys
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1])
BUNDLE = "com.example.signing"
APP_APPLE_ID = 1234567890
failures = []
verified = 0


def check(condition, message):
    if not condition:
        failures.append(message)


def storesim(*args, cwd, raw=False):
    result = subprocess.run([BIN, *args], cwd=cwd, capture_output=True)
    if result.returncode != 0:
        raise SystemExit(f"storesim {' '.join(args)} exited {result.returncode}: {result.stderr.decode()}")
    return result.stdout if raw else result.stdout.decode()


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def header(jws):
    return json.loads(b64url(jws.split(".")[0]))


def signed_strings(value, out):
    """Every string under a key that names signed data, found anywhere in JSON."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and key.startswith("signed") and item.count(".") == 2:
                out.append((key, item))
            else:
                signed_strings(item, out)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, str) and item.count(".") == 2:
                out.append(("signedTransaction", item))
            else:
                signed_strings(item, out)
    return out


def make_session(environment, extra=()):
    work = tempfile.mkdtemp(prefix="storesim-signing-")
    config = os.path.join(ROOT, "Configurations", "AppleSample.storekit")
    storesim("init", config, "--environment", environment, "--bundle-id", BUNDLE, "--start", "2026-01-01T00:00:00Z",
             *extra, cwd=work)
    storesim("buy", "subscription.standard", cwd=work)
    storesim("buy", "nonconsumable.car", cwd=work)
    storesim("advance", "2y", cwd=work)
    storesim("refund", "--product", "nonconsumable.car", cwd=work)
    return work


def collect(work):
    items = []
    signed_strings(json.loads(storesim("transactions", "--signed", "--json", cwd=work)), items)
    signed_strings(json.loads(storesim("status", "--signed", "--json", cwd=work)), items)
    signed_strings(json.loads(storesim("notifications", "--signed", "--json", cwd=work)), items)
    first = json.loads(storesim("transactions", "--json", cwd=work))[0]["transactionId"]
    answer = storesim("api", "GET", f"/inApps/v1/transactions/appTransactions/{first}", cwd=work)
    body = json.loads(answer.split("\n", 1)[1]) if answer.startswith("HTTP/") else json.loads(answer)
    signed_strings(body, items)
    return items


def verify(verifier, key, jws):
    if key == "signedRenewalInfo":
        return verifier.verify_and_decode_renewal_info(jws)
    if key == "signedPayload":
        return verifier.verify_and_decode_notification(jws)
    if key == "signedAppTransactionInfo":
        return verifier.verify_and_decode_app_transaction(jws)
    return verifier.verify_and_decode_signed_transaction(jws)


def refused(verifier, key, jws):
    try:
        verify(verifier, key, jws)
        return False
    except VerificationException:
        return True


def check_environment(name, environment, extra):
    global verified
    work = make_session(name, extra)
    root = storesim("certificate", "--der", cwd=work, raw=True)
    app_apple_id = APP_APPLE_ID if environment == Environment.PRODUCTION else None
    verifier = SignedDataVerifier([root], False, environment, BUNDLE, app_apple_id)
    items = collect(work)
    kinds = sorted({k for k, _ in items})
    check({"signedPayload", "signedRenewalInfo", "signedTransactionInfo", "signedAppTransactionInfo"} <= set(kinds),
          f"{name}: signed kinds printed: {kinds}")
    for key, jws in items:
        h = header(jws)
        check(h.get("alg") == "ES256" and len(h.get("x5c", [])) == 3 and "kid" not in h, f"{name}: header {h}")
        try:
            verify(verifier, key, jws)
            verified += 1
        except VerificationException as e:
            failures.append(f"{name}: {key} refused: {e.status}")
    # A tampered payload (one character of the payload changed) and another session's root.
    key, jws = next((k, j) for k, j in items if k == "signedTransactionInfo")
    head, payload, signature = jws.split(".")
    decoded = json.loads(b64url(payload))
    decoded["price"] = decoded.get("price", 0) + 1
    forged = head + "." + base64.urlsafe_b64encode(json.dumps(decoded).encode()).decode().rstrip("=") + "." + signature
    check(refused(verifier, key, forged), f"{name}: a tampered transaction was accepted")
    other = make_session(name, extra)
    other_root = storesim("certificate", "--der", cwd=other, raw=True)
    check(other_root != root, f"{name}: two sessions share a root")
    stranger = SignedDataVerifier([other_root], False, environment, BUNDLE, app_apple_id)
    check(all(refused(stranger, k, j) for k, j in items), f"{name}: a verifier with another root accepted data")
    return work, items


def check_certificates(work, items):
    """`cryptography` parses the chain and verifies each signature; the extensions are Apple's."""
    x5c = [x509.load_der_x509_certificate(base64.b64decode(c)) for c in header(items[0][1])["x5c"]]
    leaf, intermediate, root = x5c
    for cert, issuer in ((leaf, intermediate), (intermediate, root), (root, root)):
        issuer.public_key().verify(cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(hashes.SHA256()))
        check(cert.issuer == issuer.subject, f"issuer of {cert.subject}")
        ski = cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
        aki = cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value.key_identifier
        issuer_ski = issuer.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
        check(aki == issuer_ski and len(ski) == 20, f"key identifiers of {cert.subject}")
    oids = lambda c: {e.oid.dotted_string for e in c.extensions}
    check("1.2.840.113635.100.6.11.1" in oids(leaf), "leaf lacks the Receipt Signing OID")
    check("1.2.840.113635.100.6.2.1" in oids(intermediate), "intermediate lacks the WWDR OID")
    check(root.extensions.get_extension_for_class(x509.BasicConstraints).value.ca, "root is not a CA")
    check(not leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca, "leaf is a CA")
    pem_root = x509.load_pem_x509_certificate(storesim("certificate", cwd=work).encode())
    check(pem_root == root, "certificate (PEM) is not x5c's root")
    # The JWS signature with the leaf's key, r || s as JOSE writes it.
    head, payload, signature = items[0][1].split(".")
    raw = b64url(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    leaf.public_key().verify(der, f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))


def check_their_key():
    """A key `cryptography` makes (PKCS #8 PEM, and SEC1 PEM) becomes the session's root key."""
    for fmt in (serialization.PrivateFormat.PKCS8, serialization.PrivateFormat.TraditionalOpenSSL):
        key = ec.generate_private_key(ec.SECP256R1())
        work = tempfile.mkdtemp(prefix="storesim-signing-key-")
        path = os.path.join(work, "root.pem")
        with open(path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()))
        config = os.path.join(ROOT, "Configurations", "AppleSample.storekit")
        storesim("init", config, "--environment", "Sandbox", "--signing-key", path, cwd=work)
        root = x509.load_der_x509_certificate(storesim("certificate", "--der", cwd=work, raw=True))
        want = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        got = root.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        check(want == got, f"init --signing-key ({fmt}) did not use the key")


def check_xcode():
    work = make_session("Xcode")
    items = collect(work)
    h = header(items[0][1])
    check(h.get("kid") == "Apple_Xcode_Key" and len(h.get("x5c", [])) == 1, f"Xcode header {h}")
    cert = x509.load_der_x509_certificate(base64.b64decode(h["x5c"][0]))
    check(cert.subject == cert.issuer and "StoreKit Testing in Xcode" in cert.subject.rfc4514_string(),
          f"Xcode certificate {cert.subject}")
    verifier = SignedDataVerifier([], False, Environment.XCODE, BUNDLE)
    verifier.verify_and_decode_signed_transaction(next(j for k, j in items if k == "signedTransactionInfo"))


def pem_key():
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def status_of(call):
    try:
        call()
        return 200
    except APIException as e:
        return e.http_status_code


def check_bearer_tokens(work):
    global verified
    team = pem_key()
    path = os.path.join(work, "AuthKey_KEY123ABC.p8")
    with open(path, "wb") as f:
        f.write(team)
    first = json.loads(storesim("transactions", "--json", cwd=work))[0]["transactionId"]
    server = subprocess.Popen([BIN, "serve", "--port", "0", "--quiet", "--api-key", path, "--key-id", "KEY123ABC",
                               "--issuer", "issuer-5678"], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        url = server.stdout.readline().strip()
        check(url.startswith("http://127.0.0.1:"), f"serve printed {url!r}")

        def client(key, key_id, issuer="issuer-5678"):
            c = AppStoreServerAPIClient(key, key_id, issuer, BUNDLE, Environment.SANDBOX)
            c._base_url = url  # the Sandbox URL is Apple's; point the client at storesim serve
            return c

        answer = client(team, "KEY123ABC").get_transaction_info(first)
        root = storesim("certificate", "--der", cwd=work, raw=True)
        SignedDataVerifier([root], False, Environment.SANDBOX, BUNDLE).verify_and_decode_signed_transaction(
            answer.signedTransactionInfo)
        verified += 1
        for name, c in (("another key", client(pem_key(), "KEY123ABC")),
                        ("another key id", client(team, "OTHERKEY1")),
                        ("another issuer", client(team, "KEY123ABC", "issuer-0000"))):
            got = status_of(lambda: c.get_transaction_info(first))
            check(got == 401, f"serve: a token with {name} answered {got}, not 401")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
        log = server.stderr.read()
        check("bearer tokens verified with key KEY123ABC" in log, f"serve's startup line: {log!r}")
    # `api` checks the same way: a token this script signs is answered, a forged one is not.
    token = client_token(team, "KEY123ABC")
    for auth, want in ((token, 0), (client_token(pem_key(), "KEY123ABC"), 1)):
        code = subprocess.run([BIN, "api", "GET", f"/inApps/v1/transactions/{first}", "--authorization",
                               f"Bearer {token if want == 0 else auth}", "--api-key", path, "--key-id", "KEY123ABC",
                               "--issuer", "issuer-5678"], cwd=work, capture_output=True).returncode
        check(code == want, f"api with {'the team' if want == 0 else 'another'} key exited {code}")


def client_token(key_pem, key_id):
    """The token AppStoreServerAPIClient sends (its own code makes it)."""
    c = AppStoreServerAPIClient(key_pem, key_id, "issuer-5678", BUNDLE, Environment.SANDBOX)
    return c._generate_token()


def check_offers():
    import uuid
    import time as _time
    key = ec.generate_private_key(ec.SECP256R1())
    stranger = ec.generate_private_key(ec.SECP256R1())
    der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    work = tempfile.mkdtemp(prefix="storesim-offers-")
    with open(os.path.join(ROOT, "Configurations", "Premium.storekit")) as f:
        document = json.load(f)
    document["subscriptionOffersKeyPair"] = {"id": "5509FCF1", "privateKey": base64.b64encode(der).decode()}
    config = os.path.join(work, "Offers.storekit")
    with open(config, "w") as f:
        json.dump(document, f)
    start = "2026-01-01T00:00:00Z"
    now = 1767225600
    storesim("init", config, "--bundle-id", BUNDLE, "--start", start, cwd=work)
    storesim("buy", "com.example.premium.yearly", cwd=work)
    product, offer = "com.example.premium.yearly", "premium.yearly.loyalty"

    def jws(signer):
        def part(obj):
            return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")
        head = part({"alg": "ES256", "kid": "5509FCF1", "typ": "JWT"})
        body = part({"iss": "issuer", "iat": now, "aud": "promotional-offer", "bid": BUNDLE, "nonce": str(uuid.uuid4()),
                     "productId": product, "offerIdentifier": offer})
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        r, s_ = decode_dss_signature(signer.sign(f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256())))
        return f"{head}.{body}." + base64.urlsafe_b64encode(r.to_bytes(32, "big") + s_.to_bytes(32, "big")).decode().rstrip("=")

    def separated(signer):
        nonce = str(uuid.uuid4())
        timestamp = now * 1000
        text = "\u2063".join([BUNDLE, "5509FCF1", product, offer, "", nonce, str(timestamp)])
        signature = base64.b64encode(signer.sign(text.encode(), ec.ECDSA(hashes.SHA256()))).decode()
        return f"5509FCF1,{nonce},{timestamp},{signature}"

    for name, signature, want in (("JWS, another key", jws(stranger), 1), ("StoreKit 1, another key", separated(stranger), 1),
                                  ("JWS, the file's key", jws(key), 0), ("StoreKit 1, the file's key", separated(key), 0)):
        result = subprocess.run([BIN, "buy", product, "--offer", f"promotional:{offer}", "--offer-signature", signature,
                                 "--json"], cwd=work, capture_output=True, text=True)
        check(result.returncode == want, f"offer ({name}) exited {result.returncode}: {result.stdout} {result.stderr}")
        if want == 1:
            check("invalidOfferSignature" in result.stdout + result.stderr, f"offer ({name}) did not say why: {result.stdout}")


def check_session_key_offers():
    """Offers signed by Apple's own signers with the team's key given at `init --api-key`."""
    import uuid
    import time as _time
    from appstoreserverlibrary.jws_signature_creator import (IntroductoryOfferEligibilitySignatureCreator,
                                                             PromotionalOfferV2SignatureCreator)
    from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
    team, stranger = pem_key(), pem_key()
    work = tempfile.mkdtemp(prefix="storesim-team-offers-")
    path = os.path.join(work, "AuthKey_KEY123ABC.p8")
    with open(path, "wb") as f:
        f.write(team)
    config = os.path.join(ROOT, "Configurations", "Premium.storekit")
    # No --start: Apple's signers put the wall clock in iat, and the session starts there.
    storesim("init", config, "--bundle-id", BUNDLE, "--api-key", path, "--key-id", "KEY123ABC", "--issuer",
             "issuer-5678", cwd=work)
    monthly, yearly = "com.example.premium.monthly", "com.example.premium.yearly"

    def buy(*args):
        result = subprocess.run([BIN, "buy", *args, "--json"], cwd=work, capture_output=True, text=True)
        body = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
        return result.returncode, body, result.stdout + result.stderr

    def eligibility(key, allow, transaction_id, key_id="KEY123ABC"):
        return IntroductoryOfferEligibilitySignatureCreator(key, key_id, "issuer-5678", BUNDLE).create_signature(
            yearly, allow, transaction_id)

    code, first, text = buy(monthly)
    check(code == 0 and first.get("transaction", {}).get("offerType") == 1, f"first purchase: {text}")
    first_id = str(first.get("transaction", {}).get("transactionId"))
    storesim("expire", monthly, cwd=work)
    # The intro offer is used: an eligibility JWS of another key is ignored (normal eligibility).
    code, got, text = buy(yearly, "--intro-eligibility", eligibility(stranger, True, first_id))
    check(code == 0 and "offerType" not in got.get("transaction", {}), f"eligibility, another key: {text}")
    storesim("expire", yearly, cwd=work)
    code, got, text = buy(yearly, "--intro-eligibility", eligibility(team, True, first_id))
    check(code == 0 and got.get("transaction", {}).get("offerType") == 1, f"eligibility, the team's key: {text}")
    storesim("expire", yearly, cwd=work)
    storesim("settings", "strict-eligibility", "on", cwd=work)
    code, got, text = buy(yearly, "--intro-eligibility", eligibility(stranger, True, first_id))
    check(code == 1 and "invalidOfferSignature" in text, f"strict eligibility, another key: {text}")
    # Promotional offers (V2 JWS and StoreKit 1's signature) with the team's key, and another key.
    offer = "premium.yearly.loyalty"
    for name, key, want in (("another key", stranger, 1), ("the team's key", team, 0)):
        jws = PromotionalOfferV2SignatureCreator(key, "KEY123ABC", "issuer-5678", BUNDLE).create_signature(
            yearly, offer, first_id)
        code, _, text = buy(yearly, "--offer", f"promotional:{offer}", "--offer-signature", jws)
        check(code == want, f"promotional offer JWS, {name}: {text}")
        if want == 0:
            storesim("expire", yearly, cwd=work)
        nonce = uuid.uuid4()
        timestamp = int(_time.time() * 1000)
        signature = PromotionalOfferSignatureCreator(key, "KEY123ABC", BUNDLE).create_signature(
            yearly, offer, "", nonce, timestamp)
        code, _, text = buy(yearly, "--offer", f"promotional:{offer}", "--offer-signature",
                            f"KEY123ABC,{nonce},{timestamp},{signature}")
        check(code == want, f"promotional offer, StoreKit 1 signature, {name}: {text}")
    # serve without --api-key checks bearer tokens with the session's key.
    server = subprocess.Popen([BIN, "serve", "--port", "0", "--quiet"], cwd=work, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        for name, key, want in (("the session's key", team, 200), ("another key", stranger, 401)):
            c = AppStoreServerAPIClient(key, "KEY123ABC", "issuer-5678", BUNDLE, Environment.SANDBOX)
            c._base_url = url
            got = status_of(lambda: c.get_transaction_info(first_id))
            check(got == want, f"serve with the session's key: a token by {name} answered {got}, not {want}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
        log = server.stderr.read()
        check("bearer tokens verified with the session's key KEY123ABC" in log, f"serve's startup line: {log!r}")


def main():
    work, items = check_environment("Sandbox", Environment.SANDBOX, ())
    check_bearer_tokens(work)
    check_certificates(work, items)
    check_environment("Production", Environment.PRODUCTION, ("--app-apple-id", str(APP_APPLE_ID)))
    check_their_key()
    check_xcode()
    check_offers()
    check_session_key_offers()
    print(f"signing interop: {verified} signed items verified by Apple's SignedDataVerifier; {len(failures)} problems")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
