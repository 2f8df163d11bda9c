"""The rows of Scripts/attack.py for the fifth hostile pass (issue 45): files, pictures and
sessions through the MCP server and the CLI.
  mcp-read      the MCP server's `run` reads no file outside its folders (a key in another
                folder, through `..` or a symbolic link), and a file that is not a scenario (a
                .env, a key) is refused without a word of it, by MCP and the CLI.
  mcp-write     `report` and `run`'s --junit, --report, --timeline and --artifacts create no file
                outside the folders (the target folder stays as it was); --allow-path widens them.
  svg-controls  `timeline --svg` of names holding C0 controls parses as XML.
  junit-controls `run --junit` of a product id and a file name holding C0 controls parses as XML.
  huge-date     a version 2 session with a date near the largest 64-bit value: transactions,
                buy and advance answer "corrupt" (65), never a trap (132); the MCP server answers
                a tool error and goes on.
  mcp-line      a 64 MiB line to the MCP server is refused (-32700), the next is answered, and
                the server holds no more than the 16 MiB cap of it (it grows less than 32 MiB).
  session-size  a session file past 2 GiB is refused (65) at once.
Python 3 standard library only.
"""

import atexit
import json
import os
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ElementTree

from attack_support import BIN, PREMIUM, Session, check

HEADER_V2 = ('{"codec":"compact-1","configurationDigest":"0","configurationPath":"p",'
             '"format":"storesim-session","version":2}')
SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nsekrit-line\n"


class MCP:
    """`storesim mcp` over its standard input and output: JSON-RPC 2.0, one message a line."""

    def __init__(self, folder, *extra):
        self.proc = subprocess.Popen([BIN, "mcp", *extra], cwd=folder, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.next_id = 0
        self.send("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "attack", "version": "1"}})

    def send_line(self, data):
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def send(self, method, params):
        self.next_id += 1
        return self.send_line(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                          "params": params}).encode())

    def call(self, name, **arguments):
        """The tool's result: (isError, its text and structured content as one string)."""
        result = self.send("tools/call", {"name": name, "arguments": arguments})["result"]
        text = " ".join(item.get("text", "") for item in result["content"])
        return result.get("isError", False), text + json.dumps(result.get("structuredContent"))

    def peak_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0

    def stop(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def temporary_folder(prefix):
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, True)
    return folder


def outside_folder():
    folder = temporary_folder("storesim-outside-")
    with open(os.path.join(folder, "id_rsa"), "w") as f:
        f.write(SECRET)
    return folder


def refused_outside(answer, what):
    error, text = answer
    return check(error and "is outside the folders this MCP server may use" in text and "sekrit" not in text
                 and "--allow-path" in text, f"{what}: {text[:200]!r}")


def row_mcp_read():
    session = Session()
    outside = outside_folder()
    os.symlink(outside, os.path.join(session.folder, "link"))
    with open(os.path.join(session.folder, ".env"), "w") as f:
        f.write("API_KEY=sekrit-value\nbuy sekrit-two\n")
    with open(os.path.join(session.folder, "id_rsa"), "w") as f:
        f.write(SECRET)
    mcp = MCP(session.folder)
    try:
        secret = os.path.join(outside, "id_rsa")
        climbed = os.path.join("..", os.path.basename(outside), "id_rsa")
        for path in (secret, climbed, "link/id_rsa"):
            refused_outside(mcp.call("run", arguments=[path]), f"mcp run {path}")
        refused_outside(mcp.call("validate", arguments=[secret]), "mcp validate")
        for name in (".env", "id_rsa"):
            error, text = mcp.call("run", arguments=[name])
            check(error and "not a scenario" in text and "sekrit" not in text and "API_KEY" not in text
                  and "BEGIN" not in text, f"mcp run {name}: {text[:200]!r}")
            r = subprocess.run([BIN, "run", name, "--verbose"], cwd=session.folder, capture_output=True, text=True)
            shown = r.stdout + r.stderr
            check(r.returncode == 65 and "sekrit" not in shown and "BEGIN" not in shown,
                  f"storesim run {name}: exit {r.returncode}, {shown[:200]!r}")
        print("row mcp-read: a key outside (by path, .., a symlink) refused naming the rule; a .env and a key "
              "inside refused with none of their words, by MCP and the CLI", flush=True)
    finally:
        mcp.stop()


def row_mcp_write():
    session = Session()
    outside = outside_folder()
    with open(os.path.join(session.folder, "s.storesim"), "w") as f:
        f.write("buy com.example.premium.monthly\n")
    target = os.path.join(outside, "bashrc")
    mcp = MCP(session.folder)
    try:
        refused_outside(mcp.call("report", html=target), "mcp report --html")
        for option in ("junit", "report", "timeline"):
            refused_outside(mcp.call("run", arguments=["s.storesim"], **{option: target}), f"mcp run --{option}")
        refused_outside(mcp.call("run", arguments=["s.storesim"], artifacts=os.path.join(outside, "made")),
                        "mcp run --artifacts")
        check(sorted(os.listdir(outside)) == ["id_rsa"], f"the outside folder holds {sorted(os.listdir(outside))}")
    finally:
        mcp.stop()
    widened = MCP(session.folder, "--allow-path", outside)
    try:
        error, text = widened.call("report", html=target)
        check(not error and os.path.exists(target), f"--allow-path: report answered {text[:200]!r}")
    finally:
        widened.stop()
    print("row mcp-write: report and run's four outputs refused outside the folders; --allow-path widens",
          flush=True)


def parses(xml_text, what):
    try:
        ElementTree.fromstring(xml_text)
        return True
    except ElementTree.ParseError as e:
        return check(False, f"{what} is not well-formed XML: {e}")


def row_svg_controls():
    session = Session()
    for name in ("bad\x01\x08\x1b[31mname", "tab\tand\x7f\x0b\x0cform", "rtl\u202e\u2066x"):
        session.run("buy", "com.example.premium.monthly", "--customer", name)
    svg = session.run("timeline", "--svg")
    parses(svg, "timeline --svg of names with controls")
    print("row svg-controls: the timeline of three names with C0 controls parses as XML", flush=True)


def row_junit_controls():
    folder = temporary_folder("storesim-attack-")
    name = "odd\x01\x1bname.storesim"
    with open(os.path.join(folder, name), "w") as f:
        f.write(f"init {PREMIUM} --start 2026-01-01T00:00:00Z\nbuy com.example.\x02\x1b[2Jx\n")
    r = subprocess.run([BIN, "run", name, "--junit", "junit.xml"], cwd=folder, capture_output=True, text=True)
    with open(os.path.join(folder, "junit.xml"), encoding="utf-8") as f:
        report = f.read()
    parses(report, "run --junit of controls")
    check(r.returncode == 65, f"run of an unknown product: exit {r.returncode}")
    print("row junit-controls: the JUnit report of a file name and a product id with C0 controls parses",
          flush=True)


def crafted_session(folder):
    """The session of `folder` written again as version 2 with its clock near 2^63 ms."""
    path = os.path.join(folder, ".storesim", "session.json")
    with open(path) as f:
        state = f.read().split("\n")[1]
    start = state.index('"now":') + len('"now":')
    end = start + len(state[start:].split(",")[0])
    with open(path, "w") as f:
        f.write(HEADER_V2 + "\n" + state[:start] + "9223372036854775000" + state[end:] + "\n")


def row_huge_date():
    session = Session(("buy", "com.example.premium.monthly"))
    crafted_session(session.folder)
    for command in (("transactions",), ("buy", "com.example.coins.100"), ("advance", "1d")):
        r = subprocess.run([BIN, *command], cwd=session.folder, capture_output=True, text=True)
        check(r.returncode == 65 and "corrupt" in r.stderr, f"{command[0]} on a date near 2^63: exit {r.returncode}")
    mcp = MCP(session.folder)
    try:
        error, text = mcp.call("transactions")
        check(error and "corrupt" in text, f"mcp transactions: {text[:200]!r}")
        check("result" in mcp.send("ping", {}), "the MCP server answers after a corrupt session")
    finally:
        code = mcp.stop()
    check(code == 0, f"the MCP server ended with {code}")
    print("row huge-date: transactions, buy and advance answer corrupt (65); MCP answers a tool error and goes on",
          flush=True)


def row_mcp_line():
    session = Session()
    mcp = MCP(session.folder)
    try:
        before = mcp.peak_mib()
        long_line = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * (64 << 20) + b'"}}'
        answer = mcp.send_line(long_line)
        check(answer.get("error", {}).get("code") == -32700, f"a 64 MiB line answered {str(answer)[:200]}")
        check("result" in mcp.send("ping", {}), "the line after a 64 MiB one is answered")
        grown = mcp.peak_mib() - before
        print(f"row mcp-line: a 64 MiB line refused (-32700), the next answered; peak grew {grown:.0f} MiB",
              flush=True)
        check(grown < 32, f"the MCP server grew {grown:.0f} MiB reading a 64 MiB line")
    finally:
        mcp.stop()


def row_session_size():
    session = Session()
    path = os.path.join(session.folder, ".storesim", "session.json")
    with open(path, "r+b") as f:
        f.truncate((2 << 30) + 1)  # sparse: no disk used
    t0 = time.monotonic()
    r = subprocess.run([BIN, "transactions"], cwd=session.folder, capture_output=True, text=True)
    elapsed = time.monotonic() - t0
    os.truncate(path, 0)
    check(r.returncode == 65 and "GiB" in r.stderr and elapsed < 5,
          f"a 2 GiB session: exit {r.returncode} after {elapsed:.1f} s, {r.stderr[:200]!r}")
    print(f"row session-size: a session file past 2 GiB refused (65) in {elapsed:.2f} s", flush=True)


ROWS = {
    "mcp-read": row_mcp_read, "mcp-write": row_mcp_write, "svg-controls": row_svg_controls,
    "junit-controls": row_junit_controls, "huge-date": row_huge_date, "mcp-line": row_mcp_line,
    "session-size": row_session_size,
}
