#!/usr/bin/env python3
"""A misbehaving HTTP server for Scripts/reliability.sh. Prints its port, then serves until killed.

Usage: test_http_server.py MODE [HOST] [LOG]
  ok        answer 200 to every request and append "METHOD PATH BODY-LENGTH" lines to LOG
  silent    accept connections and never answer
  endless   answer 200 with a body that never ends
  redirect  answer 307 with Location: http://HOST:PORT/ (PORT from $REDIRECT_PORT)
"""
import os
import socket
import sys
import threading
import time

mode = sys.argv[1]
host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
log = sys.argv[3] if len(sys.argv) > 3 else None
family = socket.AF_INET6 if ":" in host else socket.AF_INET
server = socket.socket(family, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind((host, 0))
server.listen(64)
print(server.getsockname()[1], flush=True)


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head.split(b"\r\n")[0].decode(), body


def handle(conn):
    try:
        if mode == "silent":
            time.sleep(3600)
            return
        request, body = read_request(conn)
        if request is None:
            return
        if mode == "ok":
            if log:
                with open(log, "a") as f:
                    method, path, _ = request.split(" ", 2)
                    f.write(f"{method} {path} {len(body)}\n")
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        elif mode == "redirect":
            target = f"http://127.0.0.1:{os.environ['REDIRECT_PORT']}/"
            conn.sendall(f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
        elif mode == "endless":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
            chunk = b"x" * 65536
            while True:
                conn.sendall(chunk)
    except OSError:
        pass
    finally:
        conn.close()


while True:
    conn, _ = server.accept()
    threading.Thread(target=handle, args=(conn,), daemon=True).start()
