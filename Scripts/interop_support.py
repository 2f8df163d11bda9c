"""What interop.py and serve_interop.py share: the comparison of storesim's JSON with what
Apple's library decoded, and a notification receiver on 127.0.0.1."""
import enum
import http.server
import json
import threading


def plain(value):
    """A decoded value as JSON holds it (enums as their raw values)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def compare(kind, expected, decoded, where, failures, skip=()):
    """Every key of storesim's JSON must decode to the same value (raw fields preferred)."""
    for key, want in expected.items():
        if key in skip:
            continue
        raw = "raw" + key[0].upper() + key[1:]
        got = getattr(decoded, raw, None)
        if got is None:
            got = getattr(decoded, key, None)
        if isinstance(want, dict) and got is not None and not isinstance(got, dict):
            # A nested model (commitmentInfo): compared key by key.
            compare(f"{kind}.{key}", want, got, where, failures)
            continue
        got = plain(got)
        if got != want:
            failures.append(f"{where}: {kind}.{key}: storesim {want!r}, decoded {got!r}")


class Receiver:
    """An HTTP server on 127.0.0.1 that keeps the JSON bodies POSTed to it in `received`,
    answering 500 to the first `fail_first` requests and 200 afterwards. Use as a context
    manager; `url` is where it listens."""

    def __init__(self, fail_first=0):
        self.received = []
        self.requests = 0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests += 1
                if receiver.requests <= fail_first:
                    self.send_response(500)
                else:
                    receiver.received.append(json.loads(body))
                    self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        return False
