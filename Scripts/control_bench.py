#!/usr/bin/env python3
"""The control API's figures for Scripts/bench.sh (issue 46, item 10), measured in one run:

  control_bench.py STORESIM SECONDS BUYS

13. a `buy` over a kept-alive connection against a `storesim buy` process on the same session
    (median of BUYS each): the ratio of their times;
14. 8 clients, each on a session of its own over a kept-alive connection, buying for SECONDS:
    commands per second together, measured with wrk (8 threads, 8 connections, each thread on
    its own session; Debian's package, as items 7 and 11 use it), whose client costs little of
    the two cores serve shares with it; serve's own CPU time per buy in that phase (user and
    system, from /proc/PID/stat, so a figure the machine's load does not change) with the rate
    it allows on two cores serve had to itself. The same 8 clients written with Python's
    standard library (a test's client, whose CPU time per buy is printed too) are measured
    beside it, printed and not judged.
Prints one JSON object. Without wrk, the judged figure is the Python clients'.
"""
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BODY = json.dumps({"arguments": ["consumable.fuel.octane87"]})


def cpu_seconds(pid):
    """User and system CPU time of a process so far (Linux; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


WRK_SCRIPT = """
local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end
function init(args)
  path = "/storesim/v1/sessions/wrk" .. id .. "/buy"
end
function request()
  return wrk.format("POST", path, {["Content-Type"] = "application/json"}, '%s')
end
""" % BODY


def wrk_phase(port, seconds, pid, work):
    """8 wrk threads, each on its own kept-alive connection and session (wrk0...wrk7), buying for
    SECONDS: {rate, serve_ms}; None without wrk, a rate of 0 when an answer was not 2xx."""
    binary = shutil.which("wrk")
    if binary is None:
        return None
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    configuration = json.load(open(os.path.join(root, "Configurations", "AppleSample.storekit")))
    connection = http.client.HTTPConnection("127.0.0.1", port)
    for i in range(8):
        body = json.dumps({"configuration": configuration, "session": f"wrk{i}", "start": "2026-01-01T00:00:00Z"})
        connection.request("POST", "/storesim/v1/sessions", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == 201, response.read()
        response.read()
    script = os.path.join(work, "buy.lua")
    with open(script, "w") as f:
        f.write(WRK_SCRIPT)
    before = cpu_seconds(pid)
    out = subprocess.run([binary, "-t", "8", "-c", "8", "-d", f"{max(1, int(seconds))}s", "-s", script,
                          f"http://127.0.0.1:{port}/"], capture_output=True, text=True).stdout
    spent = cpu_seconds(pid) - before
    total = re.search(r"(\d+) requests in", out)
    rate = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    if "Non-2xx" in out or not total or not rate:
        print(out, file=sys.stderr)
        return {"rate": 0, "serve_ms": 0}
    bought = max(int(total.group(1)), 1)
    return {"rate": int(float(rate.group(1))), "serve_ms": spent * 1000 / bought}


def main():
    binary, seconds, buys = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    work = tempfile.mkdtemp(prefix="storesim-control-bench-")
    server = subprocess.Popen(
        [binary, "serve", "--no-session", "--port", "0", "--quiet", "--sessions", work],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
        configuration = json.load(open(os.path.join(root, "Configurations", "AppleSample.storekit")))
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for i in range(8):
            body = json.dumps({"configuration": configuration, "session": f"bench{i}",
                               "start": "2026-01-01T00:00:00Z"})
            connection.request("POST", "/storesim/v1/sessions", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            assert response.status == 201, response.read()
            response.read()

        def buy(conn, session):
            conn.request("POST", f"/storesim/v1/sessions/{session}/buy", BODY, {"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            assert response.status == 200, response.status

        http_times = []
        for _ in range(buys):
            start = time.perf_counter()
            buy(connection, "bench0")
            http_times.append(time.perf_counter() - start)
        process_times = []
        for _ in range(buys):
            start = time.perf_counter()
            subprocess.run([binary, "--session", os.path.join(work, "bench0.json"), "buy", "consumable.fuel.octane87"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            process_times.append(time.perf_counter() - start)

        counts = [0] * 8
        deadline = time.perf_counter() + seconds

        def client(i):
            conn = http.client.HTTPConnection("127.0.0.1", port)
            while time.perf_counter() < deadline:
                buy(conn, f"bench{i}")
                counts[i] += 1

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        serve_before, client_before = cpu_seconds(server.pid), sum(os.times()[:2])
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        bought = max(sum(counts), 1)
        serve_ms = (cpu_seconds(server.pid) - serve_before) * 1000 / bought
        client_ms = (sum(os.times()[:2]) - client_before) * 1000 / bought
        python_rate = int(sum(counts) / elapsed)
        wrk = wrk_phase(port, seconds, server.pid, work)
        http_ms = statistics.median(http_times) * 1000
        process_ms = statistics.median(process_times) * 1000
        print(json.dumps({
            "http_buy_ms": round(http_ms, 2), "process_buy_ms": round(process_ms, 2),
            "ratio": round(process_ms / http_ms, 1),
            "commands_per_second": wrk["rate"] if wrk else python_rate,
            "client": "wrk" if wrk else "python",
            "serve_cpu_ms_per_buy": round(wrk["serve_ms"] if wrk else serve_ms, 3),
            "python_commands_per_second": python_rate,
            "python_serve_cpu_ms_per_buy": round(serve_ms, 3), "client_cpu_ms_per_buy": round(client_ms, 3),
            "serve_buys_per_second_on_two_cores":
                int(2000 / (wrk["serve_ms"] if wrk else serve_ms)) if (wrk["serve_ms"] if wrk else serve_ms) > 0 else 0,
        }))
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
