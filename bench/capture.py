#!/usr/bin/env python3
"""An admission webhook that admits everything and keeps what it was sent.

    bench/capture.py PORT CERT KEY OUT-DIR

Serves HTTPS on 127.0.0.1:PORT. Each POST body is written unchanged to
OUT-DIR/<path>-<kind>-<namespace>-<name>.json (kind lower-case, the last request for an
object wins) and answered `allowed: true` with the request's uid, so the API server goes on
as if no webhook were there. bench/capture-reviews.sh points zoneguard's webhook
configurations at it to record the AdmissionReviews a real kube-apiserver sends.
"""

import json
import os
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Capture(BaseHTTPRequestHandler):
    out_dir = "."

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        request = json.loads(body).get("request") or {}
        name = "-".join([
            self.path.split("?")[0].strip("/"),
            (request.get("kind") or {}).get("kind", "").lower(),
            request.get("namespace") or "cluster",
            request.get("name") or "unnamed",
        ])
        with open(os.path.join(self.out_dir, name + ".json"), "wb") as f:
            f.write(body)
        answer = json.dumps({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "response": {"uid": request.get("uid", ""), "allowed": True},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, fmt, *args):
        sys.stderr.write("capture: %s\n" % (fmt % args))


def main():
    port, cert, key, out_dir = sys.argv[1:5]
    os.makedirs(out_dir, exist_ok=True)
    Capture.out_dir = out_dir
    server = ThreadingHTTPServer(("127.0.0.1", int(port)), Capture)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
