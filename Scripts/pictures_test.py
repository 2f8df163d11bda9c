#!/usr/bin/env python3
"""Headless Chromium renders `timeline --svg` and `report --html` (Python stdlib only).

Chromium is driven through the DevTools protocol on --remote-debugging-pipe: each page is
loaded in light and in dark, and the test fails on any console message of level error or
warning, any exception, and any request other than the page itself (the files are
self-contained); the expected labels must be in the DOM, and the screenshots (decoded here with
zlib) must be non-blank, light in light mode and dark in dark mode.

    python3 Scripts/pictures_test.py .build/debug/storesim [screenshot-folder]
"""

import base64
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


class Browser:
    """Chromium with the DevTools protocol on fds 3 (its input) and 4 (its output)."""

    def __init__(self):
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if not binary:
            raise SystemExit("chromium is not installed")
        to_browser, self.out = os.pipe()
        self.inp, from_browser = os.pipe()

        def wire():
            # Copied out of the way first: a pipe may already be fd 3 or 4 (dup2 onto itself
            # would keep its close-on-exec flag).
            read_end, write_end = os.dup(to_browser), os.dup(from_browser)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.profile = tempfile.mkdtemp()
        self.process = subprocess.Popen(
            [binary, "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe", "--hide-scrollbars",
             "--no-first-run", "--user-data-dir=" + self.profile, "about:blank"],
            preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def receive(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.inp, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, method, session):
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[i]
                    return event
            self.events.append(self.receive())

    def render(self, url, width, height, dark):
        """Loads url; returns (problems, dom text, png bytes)."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]}, session)
        self.events = [e for e in self.events if e.get("sessionId") != session]
        self.send("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        dom = self.send("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                             "returnByValue": True}, session)["result"]["value"]
        png = base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"}, session)["data"])
        problems = []
        for event in self.events:
            if event.get("sessionId") != session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                problems.append(f"console {params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                problems.append(f"log {params['entry']['level']}: {params['entry']['text']}")
            elif method == "Runtime.exceptionThrown":
                problems.append(f"exception: {params['exceptionDetails'].get('text')}")
            elif method == "Network.requestWillBeSent" and params["request"]["url"] != url:
                problems.append(f"fetched {params['request']['url']}")
            elif method == "Network.loadingFailed":
                problems.append(f"load failed: {params.get('errorText')}")
        self.send("Target.closeTarget", {"targetId": target})
        self.events = []
        return problems, dom, png

    def close(self):
        try:
            self.send("Browser.close")
        except RuntimeError:
            pass
        self.process.wait(timeout=30)
        shutil.rmtree(self.profile, ignore_errors=True)


def pixels(png):
    """Luminance of every pixel of an 8-bit RGB or RGBA PNG (filters undone by hand)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, data, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        chunk = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += chunk
        pos += 12 + length
    raw = zlib.decompress(data)
    stride = width * channels
    previous = bytearray(stride)
    values = []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        previous = line
        for x in range(0, stride, channels):
            values.append((299 * line[x] + 587 * line[x + 1] + 114 * line[x + 2]) // 1000)
    return values


def look(browser, path, labels, width, height, shots):
    url = "file://" + path
    name = os.path.basename(path)
    for dark in (False, True):
        mode = "dark" if dark else "light"
        problems, dom, png = browser.render(url, width, height, dark)
        check(not problems, f"{name} ({mode}): loads with no console error, exception or fetch {problems[:3]}")
        missing = [label for label in labels if label not in dom]
        check(not missing, f"{name} ({mode}): labels in the DOM {missing[:3]}")
        values = pixels(png)
        mean = sum(values) / len(values)
        spread = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
        distinct = len(set(values))
        check(spread > 10 and distinct > 8, f"{name} ({mode}): screenshot is not blank "
                                            f"(luminance mean {mean:.0f}, deviation {spread:.1f}, {distinct} levels)")
        check(mean > 150 if not dark else mean < 100, f"{name} ({mode}): background follows the colour scheme")
        if shots:
            with open(os.path.join(shots, f"{name}.{mode}.png"), "wb") as f:
                f.write(png)


def main():
    # A browser that stops answering fails the check instead of holding CI.
    signal.alarm(300)
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "storesim"))
    shots = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
    if shots:
        os.makedirs(shots, exist_ok=True)
    work = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(ROOT, "Configurations", "Premium.storekit"), work)

        def storesim(*args):
            return subprocess.run([binary, *args, "--session", "s.json"], cwd=work, check=True,
                                  capture_output=True, text=True).stdout

        storesim("init", "Premium.storekit", "--start", "2026-01-31T12:00:00Z")
        for line in (["buy", "com.example.premium.monthly"], ["advance", "1w"], ["settings", "billing-retry", "on"],
                     ["settings", "grace-period", "on"], ["advance", "1mo"], ["advance", "3d"],
                     ["settings", "billing-retry", "off"],
                     ["resolve", "com.example.premium.monthly"], ["buy", "com.example.premium.yearly"],
                     ["buy", "com.example.premium.monthly", "--customer", "<script>alert(1)</script>"],
                     ["refund", "--product", "com.example.premium.monthly", "--customer", "<script>alert(1)</script>"],
                     ["advance", "2mo"]):
            storesim(*line)
        svg = os.path.join(work, "timeline.svg")
        with open(svg, "w") as f:
            f.write(storesim("timeline", "--svg"))
        storesim("report", "--html", "report.html")
        report = os.path.join(work, "report.html")
        tour = os.path.join(work, "tour.html")
        subprocess.run([binary, "run", os.path.join(ROOT, "Scripts", "tour.storesim"), "--report", tour],
                       check=True, capture_output=True)
        labels = ["DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_RENEW/BILLING_RECOVERY", "SUBSCRIBED/INITIAL_BUY", "REFUND",
                  "com.example.premium.yearly", "&lt;script&gt;alert(1)&lt;/script&gt;"]
        browser = Browser()
        try:
            look(browser, svg, labels, 960, 400, shots)
            look(browser, report, labels + ["Transactions", "Subscription statuses", "Notifications"], 1100, 1400,
                 shots)
            look(browser, tour, ["subscription.pro", "DID_RENEW/BILLING_RECOVERY"], 1100, 1400, shots)
        finally:
            browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"{len(failures)} picture checks failed", file=sys.stderr)
        sys.exit(1)
    print("pictures: Chromium rendered the SVG and the HTML reports, light and dark, with no error")


main()
