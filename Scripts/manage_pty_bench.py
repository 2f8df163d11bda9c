#!/usr/bin/env python3
"""Measures `storesim manage` on a terminal (a pseudo-terminal of 80x24), for Scripts/bench.sh:

    python3 Scripts/manage_pty_bench.py STORESIM SESSION [--first-only]

Prints `key value` lines: first_screen_ms (start of the process to its first whole screen),
full_load_ms (to the screen with the notification log read), frame_bytes (that first screen),
and for single-row moves (j) and page moves (PgDn) the most lines and bytes one key redrew.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time

binary, session = sys.argv[1], sys.argv[2]
start = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    os.execv(binary, [binary, "manage", "--session", session])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))

def diagnosis():
    """The child's state (R running, S sleeping, T stopped ...) and where each thread waits,
    then the child killed: what a timeout leaves to go on."""
    parts = []
    try:
        for task in sorted(os.listdir(f"/proc/{pid}/task")):
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{pid}/task/{task}/wchan") as f:
                parts.append(f"thread {task} {state} {f.read() or '-'}")
    except OSError as error:
        parts.append(f"no /proc view ({error})")
    os.kill(pid, 9)
    return "child: " + ", ".join(parts)

def read_until(predicate, timeout=60):
    """Reads until predicate(bytes so far) holds; returns the bytes and the time it held."""
    data = b""
    deadline = time.monotonic() + timeout
    while not predicate(data):
        left = deadline - time.monotonic()
        if left <= 0:
            sys.exit(f"manage_pty_bench: timed out; read {data[-400:]!r}; {diagnosis()}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                data += os.read(fd, 1 << 16)
            except OSError:
                break
    return data, time.monotonic()

HINT = b"? help"
first, t_first = read_until(lambda d: HINT in d and b"Transactions (" in d)
print(f"first_screen_ms {(t_first - start) * 1000:.0f}")
# The first screen says "Notifications (...)" until the outbox is read; the next frame has the count.
full, t_full = read_until(lambda d: re.search(rb"Notifications \(\d+\)", d) is not None)
print(f"full_load_ms {(t_full - start) * 1000:.0f}")
frame = first[first.find(b"\x1b[2J"):]
print(f"frame_bytes {len(frame)}")

def settle():
    """Everything the program writes for one key: read until it is quiet for 150 ms."""
    data = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 0.15)
        if not ready:
            return data
        data += os.read(fd, 1 << 16)

settle()
if "--first-only" in sys.argv:
    os.write(fd, b"q")
    os.waitpid(pid, 0)
    sys.exit(0)
for name, key, count in (("j", b"j", 40), ("pgdn", b"\x1b[6~", 20)):
    most_lines = most_bytes = 0
    for _ in range(count):
        os.write(fd, key)
        out = settle()
        most_lines = max(most_lines, len(re.findall(rb"\x1b\[\d+;1H", out)))
        most_bytes = max(most_bytes, len(out))
    print(f"{name}_max_lines {most_lines}")
    print(f"{name}_max_bytes {most_bytes}")
os.write(fd, b"q")
_, status = os.waitpid(pid, 0)
print(f"exit {os.waitstatus_to_exitcode(status)}")
