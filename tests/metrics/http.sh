#!/usr/bin/env bash
# http.sh TCPSIFT [LAB_PEER] - the --metrics server against clients that
# misbehave: it answers each with its status line and goes on serving.
#
# A namespace with only lo; in it tcpsift capture -i lo --metrics
# 127.0.0.1:0 (headless). A Python client then: holds 12 idle connections
# (more than the 8 slots) and scrapes meanwhile (200: the idlest slot
# gave way); sends a 5000-byte header (431), bytes that are no request,
# a NUL first (400), HEAD (200, no body), a request head in two writes
# with a query string (200), another path (404), POST (405 with Allow);
# asks for OpenMetrics (its Content-Type, "# EOF" last) and the text
# format (Content-Length matches the body). tcpsift exits 0 on SIGINT.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init metrics-http python3 -- "$@"
lab_require_capture
lab_netns cmhttp
lab_tcpsift_start "$LAB_NS" -i lo --metrics 127.0.0.1:0 --threads 1 >"$LAB_TMP/report.txt" ||
	lab_abort "tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
target=$(sed -n 's|^tcpsift capture: metrics at http://\([^/]*\)/metrics$|\1|p' "$LAB_TCAP_LOG")
[ -n "$target" ] || lab_abort "no 'metrics at' line: $(head -n 3 "$LAB_TCAP_LOG")"

out=$(ip netns exec "$LAB_NS" timeout 30 python3 - "${target##*:}" <<'EOF'
import socket, sys, time
port, bad, seen = int(sys.argv[1]), [], []

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    return s

def ask(*parts, pause=0.0):
    s = conn()
    for k, p in enumerate(parts):
        if k:
            time.sleep(pause)
        s.sendall(p)
    data = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    except OSError as e:
        data += b"(" + type(e).__name__.encode() + b")"
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    return lines[0], {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip()
                      for l in lines[1:] if ":" in l}, body

def want(name, got, status):
    seen.append(name)
    if not got.startswith("HTTP/1.1 " + status):
        bad.append("%s: %r (want %s)" % (name, got, status))

get = b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n"
idle = [conn() for _ in range(12)]
time.sleep(0.3)
st, hdr, body = ask(get)
want("a scrape while 12 connections idle", st, "200")
for s in idle:
    s.close()
want("a 5000-byte header", ask(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 5000 + b"\r\n\r\n")[0], "431")
want("no request", ask(b"\x00\x01 garbage\r\n\r\n")[0], "400")
st, hdr, body = ask(b"HEAD /metrics HTTP/1.0\r\n\r\n")
want("HEAD", st, "200")
if body or int(hdr.get("content-length", "0")) == 0:
    bad.append("HEAD: %d body bytes, Content-Length %s" % (len(body), hdr.get("content-length")))
want("a head in two writes", ask(b"GET /metrics?x=1 HTTP/1.1\r\n", b"Host: t\r\n\r\n", pause=0.3)[0], "200")
want("another path", ask(b"GET / HTTP/1.1\r\n\r\n")[0], "404")
st, hdr, body = ask(b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
want("POST", st, "405")
if hdr.get("allow") != "GET, HEAD":
    bad.append("405 without Allow: GET, HEAD (%r)" % hdr.get("allow"))
st, hdr, body = ask(b"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0\r\n\r\n")
want("OpenMetrics", st, "200")
if not hdr.get("content-type", "").startswith("application/openmetrics-text; version=1.0.0") or \
        not body.endswith(b"# EOF\n"):
    bad.append("OpenMetrics: %r, ends %r" % (hdr.get("content-type"), body[-8:]))
st, hdr, body = ask(get)
want("text format", st, "200")
if not hdr.get("content-type", "").startswith("text/plain; version=0.0.4") or \
        int(hdr.get("content-length", "-1")) != len(body) or b"tcpsift_packets_total " not in body:
    bad.append("text format: %r, %s bytes said, %d sent" % (hdr.get("content-type"),
                                                          hdr.get("content-length"), len(body)))
print(("FAIL " + "; ".join(bad)) if bad else "ok %d requests answered as HTTP says" % len(seen))
EOF
)
lab_tcpsift_stop INT 0.2
lab_check "tcpsift exited $LAB_TCAP_RC after SIGINT (want 0)" "$LAB_TCAP_RC" -eq 0
case $out in
ok*) ;;
*) lab_fail "${out#FAIL }" ;;
esac
lab_verdict "${out#ok }; exit $LAB_TCAP_RC"
