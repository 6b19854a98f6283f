#!/usr/bin/env python3
"""hostile_http_server.py -- HTTP servers on 127.0.0.1 that etcd clients must
survive (slow, truncated, oversized and endless replies). Standard library only.

Modes:
  trickle   answers every request with headers promising a large body, then
            sends one byte every 0.5 s
  stall     accepts and reads the request, never answers
  notetcd   answers 404 "404 page not found" (text/plain), as a web server
            or a Go mux that is not etcd would
  chunks    speaks just enough of etcd's v3 JSON API: the key holds a valid
            manifest of 4,096 chunks of 1 MiB, and each chunk is served
            after 0.4 s; /v3/watch says "created" then stays silent; puts and
            transactions succeed (so that a publish can go through)

Run standalone: `hostile_http_server.py MODE` prints the port on stdout and
serves until killed or --lifetime seconds have passed. Imported: start(mode)
returns a running server (server.server_address[1] is its port; call
server.shutdown() and server.server_close() when done). Every connection
ends by itself (bounded sleeps, a byte cap), so nothing outlives its test.
"""
import argparse
import base64
import json
import os
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

CHUNK = 1 << 20
CHUNKS = 4096
TRICKLE_BYTES = 240          # at 2 bytes/s: 2 minutes, then the connection ends
STALL_SECONDS = 120
CHUNK_DELAY = 0.4


def b64(data):
    return base64.b64encode(data).decode()


HEADER = {"cluster_id": "1", "member_id": "2", "revision": "5", "raft_term": "2"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(min(n, 4 << 20)) if n else b""

    def reply(self, status, ctype, data):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        mode = self.server.mode
        req = self.body()
        if mode == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            self.wfile.flush()
            for _ in range(TRICKLE_BYTES):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.5)
            self.close_connection = True
        elif mode == "stall":
            deadline = time.monotonic() + STALL_SECONDS
            while time.monotonic() < deadline and not self.server.stopping.is_set():
                time.sleep(0.1)
            self.close_connection = True
        elif mode == "notetcd":
            self.reply(404, "text/plain; charset=utf-8", b"404 page not found\n")
        else:
            self.etcd(req)

    def etcd(self, req):
        try:
            doc = json.loads(req or b"{}")
        except ValueError:
            doc = {}
        path = self.path
        if path == "/v3/kv/range":
            key = base64.b64decode(doc.get("key", "")).decode("utf-8", "replace")
            out = {"header": HEADER}
            if key == self.server.key:
                manifest = json.dumps({"epoch": "9", "prefix": key + "/chunks/x/",
                                       "chunks": CHUNKS, "bytes": CHUNKS * CHUNK,
                                       "crc32c": 1})
                out["kvs"] = [{"key": doc["key"], "value": b64(manifest.encode()),
                               "mod_revision": "5"}]
                out["count"] = "1"
            elif key.startswith(self.server.key + "/chunks/x/"):
                time.sleep(CHUNK_DELAY)
                out["kvs"] = [{"key": doc["key"], "value": self.server.chunk,
                               "mod_revision": "5"}]
                out["count"] = "1"
            data = json.dumps(out).encode()
            self.reply(200, "application/json", data)
        elif path == "/v3/watch":
            created = json.dumps({"result": {"header": HEADER, "created": True}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(created), created))
            self.wfile.flush()
            deadline = time.monotonic() + STALL_SECONDS
            while time.monotonic() < deadline and not self.server.stopping.is_set():
                time.sleep(0.1)
            self.close_connection = True
        elif path == "/v3/kv/txn":
            self.reply(200, "application/json",
                       json.dumps({"header": HEADER, "succeeded": True}).encode())
        else:  # put, deleterange
            self.reply(200, "application/json", json.dumps({"header": HEADER}).encode())


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that hung up mid-trickle is the point, not an error


def start(mode, key="/hostile"):
    if mode not in ("trickle", "stall", "notetcd", "chunks"):
        raise ValueError("unknown mode " + mode)
    server = Server(("127.0.0.1", 0), Handler)
    server.mode = mode
    server.key = key
    server.stopping = threading.Event()
    server.chunk = b64(b"\0" * CHUNK) if mode == "chunks" else ""
    orig_shutdown = server.shutdown

    def shutdown():
        server.stopping.set()
        orig_shutdown()
    server.shutdown = shutdown
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["trickle", "stall", "notetcd", "chunks"])
    ap.add_argument("--key", default="/hostile")
    ap.add_argument("--lifetime", type=float, default=600)
    a = ap.parse_args()
    server = start(a.mode, a.key)
    print(server.server_address[1], flush=True)
    time.sleep(a.lifetime)
    server.shutdown()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
