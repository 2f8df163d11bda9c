#!/usr/bin/env python3
"""The round trip of every scenario under Scripts/ through `storesim serve` and `storesim import`.

Usage: import_roundtrip.py STORESIM_BINARY

Issue 49, item 3. For each scenario: its lines run in a session file (`expect`, `echo` and
`respond` left out; a line may fail, as a scenario expects some to), and every notification is
attempted once, to a port nothing listens on, so Get Notification History lists them. Then
`storesim serve` on that session answers over HTTP, with a bearer token from `storesim token`:

- for every original transaction the notifications name: Get Transaction History v1 and v2
  (every page), Get All Subscription Statuses, Get Refund History v1 and v2, Get App
  Transaction Info, and Get Transaction Info of every transaction the history lists;
- for the app: Get Notification History over the days it keeps (every page).

The answers, saved as files (an answer's pages as one JSON array), are imported into a fresh
session of the same configuration; `serve` on it answers the same requests, and every answer
must read back the same: each JWS decoded, `signedDate` left out, and every other value, page
tokens aside. Standard library only. Exit 1 on any difference.
"""

import base64
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []


def storesim(*args, cwd, check=True):
    run = subprocess.run([BIN, *args], cwd=cwd, capture_output=True, text=True)
    if check and run.returncode != 0:
        raise SystemExit(f"storesim {' '.join(args)}: exit {run.returncode}: {run.stderr.strip()}")
    return run.stdout


def decode(jws):
    payload = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def is_jws(value):
    return isinstance(value, str) and value.startswith("eyJ") and value.count(".") == 2


def flat(value, path=""):
    """Every value of an answer by where it stands: a JWS decoded (without signedDate), page
    tokens left out."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in ("revision", "paginationToken"):
                out += flat(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += flat(v, f"{path}[{i}]")
    elif is_jws(value):
        payload = decode(value)
        payload.pop("signedDate", None)
        out += flat(payload, path + "{jws}")
    else:
        out.append(f"{path} {json.dumps(value, sort_keys=True)}")
    return sorted(out)


class Server:
    """`storesim serve` on a session, and requests to it."""

    def __init__(self, work, session):
        self.process = subprocess.Popen(
            [BIN, "serve", "--port", "0", "--session", session], cwd=work, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            raise SystemExit(f"serve printed {self.url!r}: {self.process.stderr.read()}")
        self.token = storesim("token", "--session", session, cwd=work).strip()

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def pages(self, path):
        """Every page of an answer that pages by `revision`."""
        pages, revision = [], None
        while len(pages) < 100:
            status, page = self.request("GET", path + (f"?revision={revision}" if revision else ""))
            if status != 200:
                return status, pages
            pages.append(page)
            if not page.get("hasMore"):
                break
            revision = page["revision"]
        return 200, pages

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = None
        if code != 0:
            failures.append(f"serve exited {code}")


def answers(server, originals, notification_window):
    """What `server` answers for every read request, by request: (status, body)."""
    out = {}
    for original in originals:
        for path in (f"/inApps/v1/history/{original}", f"/inApps/v2/history/{original}",
                     f"/inApps/v2/refund/lookup/{original}"):
            out[path] = server.pages(path)
        for path in (f"/inApps/v1/subscriptions/{original}", f"/inApps/v1/refund/lookup/{original}",
                     f"/inApps/v1/transactions/appTransactions/{original}"):
            out[path] = server.request("GET", path)
    ids = set()
    for path, (status, pages) in list(out.items()):
        if "/history/" in path and status == 200:
            for page in pages:
                ids.update(decode(t)["transactionId"] for t in page["signedTransactions"])
    for tid in sorted(ids):
        path = f"/inApps/v1/transactions/{tid}"
        out[path] = server.request("GET", path)
    pages, token = [], None
    while len(pages) < 100:
        path = "/inApps/v1/notifications/history" + (f"?paginationToken={token}" if token else "")
        status, page = server.request("POST", path, notification_window)
        if status != 200:
            failures.append(f"notification history: HTTP {status} {page}")
            break
        pages.append(page)
        token = page.get("paginationToken")
        if not page.get("hasMore") or not token:
            break
    out["notification history"] = (200, pages)
    return out


def replay(script, work):
    """Runs a scenario's lines in a.json; returns its configuration's path."""
    configuration = None
    with open(os.path.join(ROOT, "Scripts", script)) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            words = shlex.split(line, comments=True)
            if not words or words[0] in ("expect", "echo", "respond"):
                continue
            if words[0] == "init":
                words[1] = os.path.join(ROOT, "Configurations", os.path.basename(words[1]))
                configuration = words[1]
            storesim(*words, "--session", "a.json", cwd=work, check=False)
    return configuration


def round_trip(script):
    work = tempfile.mkdtemp(prefix="storesim-import-rt-")
    try:
        check_round_trip(script, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_round_trip(script, work):
    configuration = replay(script, work)
    storesim("notifications", "deliver", "http://127.0.0.1:9/hook", "--session", "a.json", cwd=work, check=False)
    notifications = json.loads(storesim("notifications", "--json", "--decoded", "--session", "a.json", cwd=work))
    originals = sorted({n["data"]["transactionInfo"]["originalTransactionId"]
                        for n in notifications if "transactionInfo" in n.get("data", {})})
    now = json.loads(storesim("now", "--json", "--session", "a.json", cwd=work))
    environment = notifications[0]["data"]["environment"] if notifications else "Xcode"
    now_ms = now["now"] if isinstance(now, dict) and isinstance(now.get("now"), int) else None
    if now_ms is None:
        raise SystemExit(f"{script}: `now --json` gave {now!r}")
    days = 180 if environment == "Production" else 30
    window = {"startDate": now_ms - days * 86_400_000 + 1000, "endDate": now_ms + 1000}

    server = Server(work, "a.json")
    try:
        a = answers(server, originals, window)
    finally:
        server.stop()
    files = []
    for k, (request, (status, body)) in enumerate(sorted(a.items())):
        if status != 200:
            continue
        name = os.path.join(work, f"answer{k}.json")
        with open(name, "w") as f:
            json.dump(body, f)
        files.append(name)
    storesim("init", configuration, "--environment", environment, "--session", "b.json", cwd=work)
    storesim("import", *files, "--session", "b.json", cwd=work)
    server = Server(work, "b.json")
    try:
        b = answers(server, originals, window)
    finally:
        server.stop()
    compared = 0
    for request, (status, body) in sorted(a.items()):
        other_status, other = b.get(request, (None, None))
        if other_status != status:
            failures.append(f"{script}: {request}: HTTP {other_status} after the import, {status} before")
            continue
        before, after = flat(body), flat(other)
        compared += len(before)
        if before != after:
            only = [x for x in after if x not in before][:3]
            missing = [x for x in before if x not in after][:3]
            failures.append(f"{script}: {request}: imported has {only}, lacks {missing}")
    if compared < 20:
        failures.append(f"{script}: only {compared} values compared")
    print(f"{script}: {len(a)} requests, {compared} values read back")


def main():
    scripts = sorted(f for f in os.listdir(os.path.join(ROOT, "Scripts")) if f.endswith(".storesim"))
    for script in scripts:
        round_trip(script)
    print(f"import round trip: {len(scripts)} scenarios through serve and import; {len(failures)} problems")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
