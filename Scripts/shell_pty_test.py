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
print("1 passed, 0 failed")
