#!/usr/bin/env python3
"""sack-tcpdump2pcap.py - turn tcpdump text lines (old -S style) into a pcap.

    sack-tcpdump2pcap.py [--port P] [--date YYYY-MM-DD] [--snaplen N] IN.txt OUT.pcap

Reads lines like the ones quoted in ../shared/seeds/*.txt:

  18:45:16.699951 IP 127.0.0.1.8000 > 127.0.0.1.8002: P 956153186:956169530(16344) ack 131668746 win 16
  18:45:17.516150 IP 127.0.0.1.8002 > 127.0.0.1.8000: . ack 959503678 win 9926 <nop,nop,sack 1 {959405614:959421958}>

and writes one Ethernet frame per line (zero MACs, as Linux `lo` captures
are), IPv4 (DF, TTL 64, IP ID 0: tcpdump's text does not show it), TCP with
the flags, absolute sequence/ACK numbers (a pure ACK's sequence, which
tcpdump does not print, is taken from the peer's last ACK), raw window and options shown (mss,
wscale, sackOK, sack blocks, timestamps), correct checksums. Payload bytes
are zeros and cut at --snaplen (default 128), with the wire length kept, so
a 16344-byte segment costs ~128 bytes in the file. Lines quoted in replies
("> 18:45...") and repeated lines are skipped; --port keeps only the lines
of connections using that port. Times are UTC on --date (tcpdump printed no
date or zone). python3 standard library only.
"""

import argparse
import datetime
import re
import struct
import sys

from inetsum import csum  # tests/tools, this script's own folder

LINE = re.compile(
    r"^\s*(\d\d):(\d\d):(\d\d)\.(\d{6}) IP (\d+\.\d+\.\d+\.\d+)\.(\d+) > "
    r"(\d+\.\d+\.\d+\.\d+)\.(\d+): ([SFPR.]+|[SFPR]*\.?)\s*"
    r"(?:(\d+):(\d+)\((\d+)\)\s*)?(?:ack (\d+)\s*)?win (\d+)\s*(?:<([^>]*)>)?\s*$"
)


def tcp_options(text):
    """tcpdump's option list -> bytes, in the order it printed them."""
    out = b""
    if not text:
        return out
    for tok in re.findall(r"sack \d+ (?:\{\d+:\d+\})+|[^,]+", text):
        tok = tok.strip()
        if tok == "nop":
            out += b"\x01"
        elif tok == "eol":
            out += b"\x00"
        elif tok == "sackOK":
            out += b"\x04\x02"
        elif tok.startswith("mss "):
            out += struct.pack("!BBH", 2, 4, int(tok[4:]))
        elif tok.startswith("wscale "):
            out += struct.pack("!BBB", 3, 3, int(tok[7:]))
        elif tok.startswith("sack "):
            blocks = re.findall(r"\{(\d+):(\d+)\}", tok)
            out += struct.pack("!BB", 5, 2 + 8 * len(blocks))
            for left, right in blocks:
                out += struct.pack("!II", int(left), int(right))
        elif tok.startswith("timestamp ") or tok.startswith("TS val "):
            nums = re.findall(r"\d+", tok)
            out += struct.pack("!BBII", 8, 10, int(nums[0]), int(nums[1]))
        else:
            raise ValueError("unknown TCP option %r" % tok)
    while len(out) % 4:
        out += b"\x00"  # EOL padding
    return out


def frame(m, snaplen, peer_ack):
    src, sport, dst, dport = m.group(5), int(m.group(6)), m.group(7), int(m.group(8))
    flags_txt = m.group(9)
    seq = int(m.group(10)) if m.group(10) else 0
    length = int(m.group(12)) if m.group(12) else 0
    ack = int(m.group(13)) if m.group(13) else None
    win = int(m.group(14))
    opts = tcp_options(m.group(15))
    flags = 0
    for ch, bit in (("F", 0x01), ("S", 0x02), ("R", 0x04), ("P", 0x08)):
        if ch in flags_txt:
            flags |= bit
    if ack is not None:
        flags |= 0x10
    if not m.group(10) and flags & 0x02 == 0:
        # tcpdump did not print the seq of a pure ACK: it is the sender's
        # snd_nxt, which the peer's last ACK shows (0 before any).
        seq = peer_ack.get((dst, dport, src, sport), 0)
    if ack is not None:
        peer_ack[(src, sport, dst, dport)] = ack
    thl = 20 + len(opts)
    payload = bytes(length)
    saddr = bytes(int(x) for x in src.split("."))
    daddr = bytes(int(x) for x in dst.split("."))
    tcp = struct.pack(
        "!HHIIBBHHH", sport, dport, seq, ack or 0, (thl // 4) << 4, flags, win, 0, 0
    ) + opts
    pseudo = saddr + daddr + struct.pack("!BBH", 0, 6, thl + length)
    tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp + payload)) + tcp[18:]
    tot = 20 + thl + length
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, 0, 0x4000, 64, 6, 0, saddr, daddr)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = bytes(12) + b"\x08\x00"
    pkt = eth + ip + tcp + payload
    return pkt[:snaplen], len(pkt)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, help="keep only connections using this port")
    ap.add_argument("--date", default="2013-01-05", help="UTC date of the trace")
    ap.add_argument("--snaplen", type=int, default=128)
    ap.add_argument("input")
    ap.add_argument("output")
    a = ap.parse_args()
    day = datetime.datetime.strptime(a.date, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    base = int(day.timestamp())
    seen = set()
    records = []
    peer_ack = {}
    with open(a.input, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.lstrip().startswith(">"):
                continue  # quoted in a reply
            m = LINE.match(line)
            if not m:
                continue
            key = line.strip()
            if key in seen:
                continue
            seen.add(key)
            if a.port and a.port not in (int(m.group(6)), int(m.group(8))):
                continue
            secs = base + int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
            data, wire = frame(m, a.snaplen, peer_ack)
            records.append((secs, int(m.group(4)), data, wire))
    if not records:
        sys.exit("no tcpdump lines matched")
    with open(a.output, "wb") as o:
        o.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, a.snaplen, 1))
        for secs, usec, data, wire in records:
            o.write(struct.pack("<IIII", secs, usec, len(data), wire))
            o.write(data)
    print("%s: %d packets" % (a.output, len(records)))


if __name__ == "__main__":
    main()
