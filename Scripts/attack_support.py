"""The clients and servers of Scripts/attack.py: a session made with the CLI in a temporary
folder, `storesim serve` on an ephemeral port, raw HTTP/1.1 requests and answers on sockets,
and `manage` in a pseudo-terminal. Python 3 standard library only.
"""

import atexit
import base64
import json
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import time
import urllib.parse

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREMIUM = os.path.join(ROOT, "Configurations", "Premium.storekit")
FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAIL: " + what, flush=True)
    return ok


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token():
    header = b64url(b'{"alg":"ES256","kid":"K","typ":"JWT"}')
    claims = {"iss": "i", "aud": "appstoreconnect-v1", "bid": "com.example.app", "exp": int(time.time()) + 1800}
    return header + "." + b64url(json.dumps(claims).encode()) + ".c2ln"


class Session:
    """A session in a temporary folder, made and changed with the CLI."""

    def __init__(self, *commands):
        self.folder = tempfile.mkdtemp(prefix="storesim-attack-")
        atexit.register(shutil.rmtree, self.folder, True)
        self.run("init", PREMIUM, "--start", "2026-01-01T00:00:00Z", "--bundle-id", "com.example.app")
        for c in commands:
            self.run(*c)

    def run(self, *args, check_code=True):
        r = subprocess.run([BIN, *args], cwd=self.folder, capture_output=True, text=True, timeout=300)
        if check_code and r.returncode != 0:
            raise SystemExit(f"storesim {' '.join(args)} failed ({r.returncode}): {r.stderr}")
        return r.stdout

    def receipt_data(self):
        """The app receipt: `latest_receipt`, or the base64 of the compact `receipt` object."""
        printed = json.loads(self.run("receipt", "--json"))
        if "latest_receipt" in printed:
            return printed["latest_receipt"]
        return base64.b64encode(json.dumps(printed["receipt"], separators=(",", ":")).encode()).decode()


class Server:
    """storesim serve over a session, on an ephemeral port."""

    def __init__(self, session, nofile=None, extra=()):
        def limit():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen(
            [BIN, "serve", "--port", "0", "--quiet", *extra], cwd=session.folder, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, preexec_fn=limit)
        url = urllib.parse.urlparse(self.proc.stdout.readline().strip())
        self.host, self.port = url.hostname, url.port
        self.startup = self.proc.stderr.readline()

    def rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def connect(self, timeout=10):
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def request(path, method="GET", body=b"", close=False, auth=True):
    """One request's bytes (with the bearer token unless `auth` is false)."""
    head = f"{method} {path} HTTP/1.1\r\nHost: localhost\r\n"
    if auth:
        head += f"Authorization: Bearer {TOKEN}\r\n"
    if body or method == "POST":
        head += f"Content-Length: {len(body)}\r\n"
    if close:
        head += "Connection: close\r\n"
    return head.encode() + b"\r\n" + body


def read_answers(sock, count, deadline):
    """Reads `count` answers off a socket; returns (answers, statuses)."""
    data = bytearray()
    answers, statuses, pos = 0, [], 0
    while answers < count and time.monotonic() < deadline:
        try:
            chunk = sock.recv(1 << 20)
        except socket.timeout:
            continue
        if not chunk:
            break
        data += chunk
        while True:
            end = data.find(b"\r\n\r\n", pos)
            if end < 0:
                break
            head = bytes(data[pos:end]).decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if len(data) < end + 4 + length:
                break
            statuses.append(int(head.split(" ")[1]))
            pos = end + 4 + length
            answers += 1
        if pos > 1 << 20:
            del data[:pos]
            pos = 0
    return answers, statuses


def read_until_closed(sock):
    """Everything the peer sends until it closes the connection."""
    data = b""
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            return data
        data += chunk


def one_answer(server, path, method="GET", body=b"", auth=True, timeout=10):
    with server.connect(timeout) as s:
        s.sendall(request(path, method, body, close=True, auth=auth))
        data = read_until_closed(s)
    head, _, rest = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), rest


def verify(server, receipt_data, path="/sandbox/verifyReceipt"):
    status, body = one_answer(server, path, "POST", json.dumps({"receipt-data": receipt_data}).encode(), auth=False)
    return status, json.loads(body).get("status")


TOKEN = token()


def manage_stopped_by(session, sig):
    """Runs `manage` in a pseudo-terminal, sends `sig` once its screen is drawn; returns its exit
    code, whether the terminal is back in line mode with echo, whether its last bytes left the
    alternate screen with the cursor shown, and what it wrote after the signal."""
    master, slave = os.openpty()
    proc = subprocess.Popen([BIN, "manage"], cwd=session.folder, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True, env={**os.environ, "TERM": "xterm-256color"})
    screen, deadline = b"", time.monotonic() + 20
    while b"? help" not in screen and time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            screen += os.read(master, 65536)
    check(b"? help" in screen, f"manage never drew its screen before {signal.Signals(sig).name}: {screen[-300:]!r}")
    proc.send_signal(sig)
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = "still running"
    tail = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        tail += chunk
    lflag = termios.tcgetattr(slave)[3]
    os.close(master)
    os.close(slave)
    restored = bool(lflag & termios.ICANON) and bool(lflag & termios.ECHO)
    return code, restored, tail.endswith(b"\x1b[?25h\x1b[?1049l"), tail.decode("utf-8", "replace")
