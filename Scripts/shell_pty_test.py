#!/usr/bin/env python3
"""Drives `storesim shell` in a pseudo-terminal: Tab completes commands and product ids, the up
arrow recalls history, and the prompt shows the virtual date. Usage: shell_pty_test.py STORESIM"""
import os
import shutil
import sys
import tempfile

import pexpect

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with tempfile.TemporaryDirectory() as work:
    shutil.copy(os.path.join(ROOT, "Configurations", "AppleSample.storekit"), work)
    child = pexpect.spawn(os.path.abspath(sys.argv[1]), ["shell"], cwd=work, encoding="utf-8", timeout=10)
    child.expect("no session> ")
    child.send("init AppleSample.storekit --start 2026-01-01T00:00:00Z\r")
    child.expect("storesim 2026-01-01T00:00:00Z> ")
    child.send("ent\t")
    child.expect("entitlements ")
    child.send("\r")
    child.expect(r"\(none\)")
    child.send("buy nonconsumable.ca\t")
    child.expect("nonconsumable.car ")
    child.send("\r")
    child.expect("purchased  nonconsumable.car")
    child.expect("> ")
    child.send("\x1b[A")
    child.expect("buy nonconsumable.car")
    child.sendcontrol("c")
    child.send("exit\r")
    child.expect(pexpect.EOF)
print("shell pty: completion, history and prompt work")

# With a session file: Ctrl-C at the prompt clears the line, Ctrl-C during a command abandons it,
# another process's purchase made while the shell is open is kept and seen, and SIGTERM leaves
# the terminal as it was.
import signal
import subprocess
import time

BIN = os.path.abspath(sys.argv[1])
with tempfile.TemporaryDirectory() as work:
    premium = os.path.join(ROOT, "Configurations", "Premium.storekit")
    run = lambda *a: subprocess.run([BIN, *a], cwd=work, capture_output=True, text=True, check=True).stdout
    run("init", premium, "--start", "2026-01-01T00:00:00Z")
    run("settings", "time-rate", "oneRenewalEveryTwoSeconds")
    run("buy", "com.example.premium.monthly")
    child = pexpect.spawn(BIN, ["shell"], cwd=work, encoding="utf-8", timeout=20)
    child.logfile_read = sys.stdout if os.environ.get("PTY_LOG") else None
    child.expect("storesim 2026-01-01T00:00:00Z> ")
    child.send("buy nonsense-typed-then-abandoned")
    child.sendcontrol("c")
    child.expect(r"\^C")
    child.send("now\r")
    child.expect("2026-01-01T00:00:00Z\r\n")
    # Another process buys while the shell waits at its prompt.
    run("buy", "com.example.premium.yearly", "--customer", "other")
    child.send("transactions --customer other\r")
    child.expect("com.example.premium.yearly")
    child.expect("> ")
    # A long advance (over four hundred thousand renewals), interrupted.
    child.send("advance 10d\r")
    time.sleep(1.0)
    child.sendcontrol("c")
    child.expect("interrupted: the command was abandoned")
    child.expect("storesim 2026-01-01T00:00:00Z> ")
    child.send("buy com.example.premium.quarterly\r")
    child.expect("> ")
    child.send("exit\r")
    child.expect(pexpect.EOF)
    listing = run("notifications")
    assert "DID_CHANGE_RENEWAL_PREF/DOWNGRADE" in listing, listing
    assert run("now").strip() == "2026-01-01T00:00:00Z", "the interrupted advance was saved"
    assert "premium.yearly" in run("transactions", "--customer", "other")
    print("shell pty: Ctrl-C at the prompt and during a command; another process's purchase kept")

    # SIGTERM at the prompt: the terminal is restored (stty after the shell shows canonical mode).
    child = pexpect.spawn("/bin/sh", ["-c", f"'{BIN}' shell; stty -a"], cwd=work, encoding="utf-8", timeout=20)
    child.expect("> ")
    time.sleep(0.3)
    shell_pid = int(subprocess.run(["pgrep", "-P", str(child.pid)], capture_output=True, text=True).stdout.split()[0])
    os.kill(shell_pid, signal.SIGTERM)
    child.expect(pexpect.EOF)
    modes = child.before
    assert " icanon" in modes and " echo" in modes and "-icanon" not in modes, modes
    print("shell pty: SIGTERM at the prompt leaves the terminal in line mode with echo")
print("3 passed, 0 failed")
