"""The attack suite's rows for the control API (issue 46, items 7 to 9), run by Scripts/attack.py:
  control-clients  8 clients buying over the control API on one session while `storesim buy`
                   processes buy on the same file: every acknowledged purchase is in the
                   session; two other sessions made beside it see none of them.
  control-hostile  a Host that is not loopback (DNS rebinding), a foreign Origin, a path as the
                   configuration, malformed JSON, a wrong type, a session id with '../', a body of
                   9 MB claimed: each a 4xx JSON error with no file's contents and no CORS header, and
                   serve answers after.
"""

import json
import socket
import subprocess
import threading

from attack_support import BIN, PREMIUM, Server, Session, check, read_until_closed

CONSUMABLE = "com.example.coins.100"


def call(server, method, path, body=b"", headers=None, length=None):
    """One request on a new connection: (status, header text, body). `length`: a Content-Length
    claimed for a body not sent (the server refuses it on the head)."""
    fields = {"Host": f"127.0.0.1:{server.port}", **(headers or {})}
    head = f"{method} {path} HTTP/1.1\r\nConnection: close\r\n"
    for name, value in fields.items():
        head += f"{name}: {value}\r\n"
    head += f"Content-Length: {len(body) if length is None else length}\r\n\r\n"
    with socket.create_connection((server.host, server.port), timeout=60) as s:
        s.sendall(head.encode() + body)
        data = read_until_closed(s)
    top, _, rest = data.partition(b"\r\n\r\n")
    return int(top.split(b" ")[1]), top.decode(errors="replace"), rest.decode(errors="replace")


def make(server, name):
    configuration = open(PREMIUM, encoding="utf-8").read()
    body = f'{{"configuration": {configuration}, "session": "{name}", "start": "2026-01-01T00:00:00Z"}}'
    status, _, answer = call(server, "POST", "/storesim/v1/sessions", body.encode())
    check(status == 201, f"making session {name}: {status} {answer[:200]}")


def count(session, *extra):
    return len(json.loads(session.run(*extra, "transactions", "--json")))


def row_control_clients():
    session = Session()
    server = Server(session)
    try:
        make(server, "other1")
        make(server, "other2")
        acknowledged = []
        lock = threading.Lock()
        body = json.dumps({"arguments": [CONSUMABLE]}).encode()

        def client():
            for _ in range(10):
                status, _, _ = call(server, "POST", "/storesim/v1/sessions/default/buy", body)
                if status == 200:
                    with lock:
                        acknowledged.append(1)

        def command_line():
            for _ in range(5):
                r = subprocess.run([BIN, "buy", CONSUMABLE], cwd=session.folder, capture_output=True, timeout=120)
                if r.returncode == 0:
                    with lock:
                        acknowledged.append(1)

        threads = [threading.Thread(target=client) for _ in range(8)] + [threading.Thread(target=command_line)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        held = count(session)
        others = [count(session, "--session", f".storesim/sessions/{n}.json") for n in ("other1", "other2")]
        print(f"row control-clients: {len(acknowledged)} purchases acknowledged (8 clients x 10, 5 processes), "
              f"{held} in the session, {others} in the two others", flush=True)
        check(len(acknowledged) == 85, f"{85 - len(acknowledged)} purchases refused")
        check(held == len(acknowledged), f"acknowledged {len(acknowledged)}, kept {held}")
        check(others == [0, 0], f"sessions see each other: {others}")
    finally:
        server.stop()


def row_control_hostile():
    session = Session()
    server = Server(session)
    try:
        now = "/storesim/v1/sessions/default/now"
        rows = [
            ("rebinding", call(server, "POST", now, headers={"Host": "attacker.example:80"}), 403),
            ("foreign origin", call(server, "POST", now, headers={"Origin": "http://attacker.example"}), 403),
            ("path as configuration", call(server, "POST", "/storesim/v1/sessions",
                                           b'{"configuration": "/etc/passwd"}'), 400),
            ("signing key path", call(server, "POST", "/storesim/v1/sessions",
                                      b'{"configuration": {}, "signing-key": "/etc/passwd"}'), 400),
            ("malformed JSON", call(server, "POST", "/storesim/v1/sessions/default/buy", b'{"arguments": ['), 400),
            ("wrong type", call(server, "POST", "/storesim/v1/sessions/default/buy", b'{"arguments": 7}'), 400),
            ("dot-dot session", call(server, "POST", "/storesim/v1/sessions/..%2F..%2Fetc/now"), 404),
            ("9 MB body", call(server, "POST", "/storesim/v1/sessions", length=9 << 20), 413),
        ]
        for name, (status, head, body), expected in rows:
            print(f"row control-hostile: {name}: {status}", flush=True)
            check(status == expected, f"{name}: {status}, expected {expected}: {body[:200]}")
            check("root:" not in body, f"{name}: a file's contents in the answer")
            check("access-control-allow-origin" not in head.lower(), f"{name}: a CORS header")
            if status != 413:
                check("error" in json.loads(body), f"{name}: no error object: {body[:200]}")
        status, _, _ = call(server, "POST", now)
        check(status == 200, f"serve after the hostile requests: {status}")
    finally:
        server.stop()


ROWS = {"control-clients": row_control_clients, "control-hostile": row_control_hostile}
