#!/usr/bin/env python3
"""The hostile and well-behaved clients of Scripts/soak.sh, beside wrk's keep-alive flood.

Usage: soak_clients.py ROLE HOST PORT TOKEN PATH SECONDS OUT.json
ROLE: "hostile" (the two pipelining clients and the slow one) or "probe" (the well-behaved
client, in a process of its own so that the others' work in Python does not delay it).

For SECONDS it runs two pipelining clients (batches of 2,000 requests sent back to back, then
their answers read), a slow client (one byte every 200 ms, so the server's 10 s request timeout
answers it 408, and again), and a well-behaved client asking one request at a time on a
kept-alive connection every 10 ms, whose latencies give the p99 the soak reports. Writes
{"p50_ms", "p99_ms", "max_ms", "well_behaved", "pipelined", "slow_408", "errors"} to OUT.json.
Python 3 standard library only.
"""

import json
import socket
import sys
import threading
import time

ROLE, HOST, PORT, TOKEN, PATH, SECONDS, OUT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[
    5], float(sys.argv[6]), sys.argv[7]
END = time.monotonic() + SECONDS
REQUEST = (f"GET {PATH} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\n\r\n").encode()
stats = {"well_behaved": 0, "pipelined": 0, "slow_408": 0, "errors": []}
latencies = []
lock = threading.Lock()


def connect():
    s = socket.create_connection((HOST, PORT), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_answers(s, count):
    """Reads `count` whole answers; returns how many arrived before the connection ended."""
    data, pos, got = bytearray(), 0, 0
    while got < count:
        chunk = s.recv(1 << 20)
        if not chunk:
            return got
        data += chunk
        while True:
            end = data.find(b"\r\n\r\n", pos)
            if end < 0:
                break
            length = 0
            for line in bytes(data[pos:end]).split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(data) < end + 4 + length:
                break
            pos, got = end + 4 + length, got + 1
        if pos > 1 << 20:
            del data[:pos]
            pos = 0
    return got


def note_error(what):
    with lock:
        if len(stats["errors"]) < 20:
            stats["errors"].append(what)


def pipelining():
    while time.monotonic() < END:
        try:
            with connect() as s:
                while time.monotonic() < END:
                    threading.Thread(target=s.sendall, args=(REQUEST * 2000,), daemon=True).start()
                    got = read_answers(s, 2000)
                    with lock:
                        stats["pipelined"] += got
                    if got < 2000:
                        break
        except OSError as e:
            note_error(f"pipelining: {e}")


def slow():
    while time.monotonic() < END:
        try:
            with connect() as s:
                for byte in REQUEST:
                    if time.monotonic() > END:
                        return
                    s.sendall(bytes([byte]))
                    time.sleep(0.2)
                answer = s.recv(100)
                if b" 408 " in answer:
                    with lock:
                        stats["slow_408"] += 1
        except OSError:
            with lock:
                stats["slow_408"] += 1  # closed by the server after its 408


def well_behaved():
    s = connect()
    while time.monotonic() < END:
        t0 = time.monotonic()
        try:
            s.sendall(REQUEST)
            if read_answers(s, 1) != 1:
                raise OSError("connection closed")
        except OSError as e:
            note_error(f"well-behaved: {e}")
            s.close()
            s = connect()
            continue
        latencies.append(time.monotonic() - t0)
        with lock:
            stats["well_behaved"] += 1
        time.sleep(0.01)
    s.close()


roles = {"hostile": (pipelining, pipelining, slow), "probe": (well_behaved,)}
threads = [threading.Thread(target=f, daemon=True) for f in roles[ROLE]]
for t in threads:
    t.start()
for t in threads:
    t.join(SECONDS + 60)
latencies.sort()


def percentile(p):
    return round(latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000, 2) if latencies else None


stats.update({"p50_ms": percentile(0.5), "p99_ms": percentile(0.99), "max_ms": percentile(1.0)})
with open(OUT, "w") as f:
    json.dump(stats, f)
