#!/usr/bin/env python3
"""stall-tcpdump2pcap.py [--date YYYY-MM-DD] TRACE.txt OUT.pcap - tcpdump text -> pcap.

Turns a tcpdump text trace quoted in a mailing-list thread (the seeds in
../shared/seeds/) back into a classic pcap, so tcpsift can be run on the very
packets a kernel engineer once read by eye. Python 3 standard library only.

Input: one packet per line, in tcpdump's old (< 4.0) or current format, IPv4:

  18:32:08.071672 IP 127.0.0.1.8000 > 127.0.0.1.26792: . 126397114:126401210(4096) ack 2036886738 win 16
  18:32:08.071602 IP 127.0.0.1.26792 > 127.0.0.1.8000: S 2036886615:2036886615(0) win 8030 <mss 65495,nop,nop,sackOK,nop,wscale 9>
  18:32:08.071672 IP 10.0.0.1.80 > 10.0.0.2.4000: Flags [P.], seq 1:101, ack 1, win 16, length 100

Sequence and ACK numbers are taken as printed (the seeds print absolute
numbers). Options understood: mss, wscale, sackOK, sack N {l:r}..., and
timestamps ("timestamp V E" old, "TS val V ecr E" new). Other lines (quoted
prose, "==> 200ms pause here") are skipped; a line with "IP" and ">" that
does not parse is an error. Quote markers ("> ", "   ") are stripped.

Output: classic pcap, LINKTYPE_ETHERNET (what Linux's lo gives libpcap),
zero MACs, snaplen 128: frames are cut to 128 bytes, the original length is
kept, payload bytes are zeros, IP and TCP checksums are computed over the
full (uncaptured) payload. The date (not in tcpdump's output) defaults to
the day of the 2013 thread. Deterministic: IP IDs count from 1 per sender.
"""
import argparse
import calendar
import re
import struct
import sys

from inetsum import csum  # tests/tools, this script's own folder

SNAPLEN = 128

PKT = re.compile(
    r"(?P<t>\d\d:\d\d:\d\d\.\d{6}) IP (?P<src>\d+\.\d+\.\d+\.\d+)\.(?P<sport>\d+) > "
    r"(?P<dst>\d+\.\d+\.\d+\.\d+)\.(?P<dport>\d+): (?P<rest>.*)$")
OLD_FLAGS = re.compile(r"^(?P<f>[SFPRUWE.]+) ")
NEW_FLAGS = re.compile(r"^Flags \[(?P<f>[^\]]*)\],? ")
SEQ = re.compile(r"(?:seq )?(?P<a>\d+):(?P<b>\d+)(?:\((?P<n>\d+)\))?")
ACK = re.compile(r"\back (?P<a>\d+)")
WIN = re.compile(r"\bwin (?P<w>\d+)")
LEN = re.compile(r"\blength (?P<n>\d+)")
OPTS = re.compile(r"<(?P<o>[^>]*)>|options \[(?P<n>[^\]]*)\]")


def tcp_options(text, syn):
    """Encode the options tcpdump printed, padded to 4 bytes."""
    out = b""
    if not text:
        return out
    for o in (x.strip() for x in text.split(",")):
        w = o.split()
        if not w or w[0] in ("nop", "eol"):
            out += b"\x01"
        elif w[0] == "mss":
            out += struct.pack("!BBH", 2, 4, int(w[1]))
        elif w[0] == "wscale":
            out += struct.pack("!BBB", 3, 3, int(w[1]))
        elif w[0] == "sackOK":
            out += b"\x04\x02"
        elif w[0] == "timestamp":
            out += struct.pack("!BBII", 8, 10, int(w[1]), int(w[2]))
        elif w[0] == "TS":
            out += struct.pack("!BBII", 8, 10, int(w[2]), int(w[4]))
        elif w[0] == "sack":
            blocks = re.findall(r"\{(\d+):(\d+)\}", o)
            out += struct.pack("!BB", 5, 2 + 8 * len(blocks))
            for left, right in blocks:
                out += struct.pack("!II", int(left), int(right))
        else:
            raise ValueError("option not understood: %r" % o)
    while len(out) % 4:
        out += b"\x01" if not syn else b"\x00"
    return out


def parse(line, lineno):
    m = PKT.search(line)
    if not m:
        return None
    rest = m.group("rest")
    fm = NEW_FLAGS.match(rest) or OLD_FLAGS.match(rest)
    if not fm:
        raise ValueError("line %d: flags not understood: %s" % (lineno, line.strip()))
    flags = 0
    for ch in fm.group("f"):
        flags |= {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, ".": 0x10, "U": 0x20,
                  "E": 0x40, "W": 0x80}.get(ch, 0)
    body = rest[fm.end():]
    seq, length = None, 0  # old format: pure ACKs print no sequence
    sm = SEQ.match(body)
    if sm:
        seq = int(sm.group("a"))
        length = int(sm.group("n")) if sm.group("n") else int(sm.group("b")) - seq
    lm = LEN.search(body)
    if lm:
        length = int(lm.group("n"))
    am = ACK.search(body)
    ack = int(am.group("a")) if am else 0
    if am:
        flags |= 0x10
    wm = WIN.search(body)
    om = OPTS.search(body)
    opt_text = (om.group("o") or om.group("n")) if om else ""
    h, mi, s = m.group("t").split(":")
    return {
        "t": int(h) * 3600 + int(mi) * 60 + float(s),
        "src": bytes(int(x) for x in m.group("src").split(".")),
        "dst": bytes(int(x) for x in m.group("dst").split(".")),
        "sport": int(m.group("sport")),
        "dport": int(m.group("dport")),
        "flags": flags,
        "seq": seq,
        "ack": ack,
        "len": length,
        "win": int(wm.group("w")) if wm else 0,
        "opts": tcp_options(opt_text, flags & 0x02),
    }


def frame(p, ipid):
    thl = 20 + len(p["opts"])
    tot = 20 + thl + p["len"]
    if tot > 65535:
        raise ValueError("segment too large for IPv4: %d" % p["len"])
    tcp = struct.pack("!HHIIBBHHH", p["sport"], p["dport"], p["seq"], p["ack"], (thl // 4) << 4,
                      p["flags"], p["win"], 0, 0) + p["opts"]
    # Zero payload bytes add nothing to the sum; the length is in the pseudo header.
    pseudo = p["src"] + p["dst"] + struct.pack("!BBH", 0, 6, thl + p["len"])
    c = csum(pseudo + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, ipid, 0x4000, 64, 6, 0, p["src"], p["dst"])
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = b"\0" * 12 + b"\x08\x00"
    wire = eth + ip + tcp
    return wire[:SNAPLEN], len(wire) + p["len"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--date", default="2013-01-05", help="day of the trace (UTC)")
    ap.add_argument("trace")
    ap.add_argument("out")
    a = ap.parse_args()
    y, mo, d = (int(x) for x in a.date.split("-"))
    day = calendar.timegm((y, mo, d, 0, 0, 0))
    pkts = []
    with open(a.trace) as f:
        for n, line in enumerate(f, 1):
            line = re.sub(r"^[>\s]+", "", line)
            p = parse(line, n)
            if p is None:
                if " IP " in line and " > " in line and re.match(r"\d\d:", line):
                    raise SystemExit("line %d does not parse: %s" % (n, line.strip()))
                continue
            pkts.append(p)
    if not pkts:
        raise SystemExit("no packet lines in %s" % a.trace)
    ipids, nxt, acks = {}, {}, {}
    with open(a.out, "wb") as w:
        w.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, SNAPLEN, 1))
        for p in pkts:
            key = (p["src"], p["sport"])
            if p["seq"] is None:
                # Unknown yet: what the peer last acknowledged of this side.
                p["seq"] = nxt.get(key, acks.get((p["dst"], p["dport"]), 0))
            if p["flags"] & 0x10:
                acks[key] = p["ack"]
            end = p["seq"] + p["len"] + (1 if p["flags"] & 0x03 else 0)
            if key not in nxt or (end - nxt[key]) % 2**32 < 2**31:
                nxt[key] = end % 2**32
            ipids[key] = ipids.get(key, 0) + 1
            cap, wirelen = frame(p, ipids[key])
            # Whole microseconds as printed: no float rounding.
            us = round(p["t"] * 1e6)
            sec, usec = day + us // 1000000, us % 1000000
            w.write(struct.pack("<IIII", sec, usec, len(cap), wirelen) + cap)
    print("%s: %d packets" % (a.out, len(pkts)), file=sys.stderr)


if __name__ == "__main__":
    main()
