#!/usr/bin/env python3
"""outage.py - a capture outage made by hand: copy a classic pcap file and
leave out every packet captured within a time window, as a capture that went
deaf for a while would. Ground truth for "a silence the capture made is not
a stall": the packets are gone from the file, not from the wire.

    tests/lab/outage.py IN.pcap OUT.pcap --at SECONDS --for MS

  --at SECONDS  the window starts SECONDS (decimal) after first_ts, the
                earliest timestamp in IN.pcap (normally its first packet's)
  --for MS      the window lasts MS milliseconds (decimal): packets with
                first_ts + at <= timestamp < first_ts + at + for are left out

IN.pcap: classic pcap, microsecond (a1b2c3d4) or nanosecond (a1b23c4d)
timestamps, either byte order (pcapng is refused). OUT.pcap gets IN.pcap's
file header and every other record unchanged, byte for byte, in file order.
Standard library only.

Prints key=value lines on stdout:
  removed          packets left out
  removed_tcp      ... of them TCP (IPv4 or IPv6, not fragments)
  removed_data     ... of them TCP segments with payload (length from the IP
                   header, so a short snaplen does not hide it)
  removed_other    removed - removed_tcp (not TCP, or not decodable)
  kept             packets written
  window_start     first_ts + at, epoch seconds (9 decimals)
  window_end       window_start + for
  window_ms        the window's length in ms
  first_ts         the earliest timestamp in IN.pcap
  silence_ms       what the output shows: the time between the last packet
                   kept before the window and the first kept after it (by
                   timestamp; empty if there is none on one side)
  linktype         IN.pcap's link type; resolution us or ns

Link types decoded for the TCP counts: Ethernet (1, with 802.1Q/QinQ
tags), raw IP (12, 14, 101, 228, 229), BSD loopback (0, 108), Linux cooked
SLL (113) and SLL2 (276), NFLOG (239); other link types count as "other".
Exit 0 done, 1 a bad or truncated input file, 2 usage.
"""
import argparse
import struct
import sys
from decimal import Decimal, InvalidOperation

MAGICS = {
    b"\xd4\xc3\xb2\xa1": ("<", 1000),  # little-endian, us
    b"\xa1\xb2\xc3\xd4": (">", 1000),
    b"\x4d\x3c\xb2\xa1": ("<", 1),  # little-endian, ns
    b"\xa1\xb2\x3c\x4d": (">", 1),
}
PCAPNG = b"\x0a\x0d\x0d\x0a"
FILE_HDR = 24
REC_HDR = 16


class BadFile(Exception):
    pass


def records(path):
    """Yield (ts_ns, record header + data bytes, data bytes) of every record;
    the first item is (endianness, unit, linktype, file header)."""
    with open(path, "rb") as f:
        hdr = f.read(FILE_HDR)
        if len(hdr) < FILE_HDR:
            raise BadFile(f"{path}: too short for a pcap file header")
        if hdr[:4] == PCAPNG:
            raise BadFile(f"{path}: pcapng, not classic pcap (convert: editcap -F pcap)")
        if hdr[:4] not in MAGICS:
            raise BadFile(f"{path}: not a pcap file (magic {hdr[:4].hex()})")
        end, unit = MAGICS[hdr[:4]]
        linktype = struct.unpack(end + "I", hdr[20:24])[0] & 0x0FFFFFFF
        yield end, unit, linktype, hdr
        n = 0
        while True:
            rh = f.read(REC_HDR)
            if not rh:
                return
            n += 1
            if len(rh) < REC_HDR:
                raise BadFile(f"{path}: record {n}: truncated header")
            sec, frac, incl, _orig = struct.unpack(end + "IIII", rh)
            if incl > 0x4000000:
                raise BadFile(f"{path}: record {n}: implausible length {incl}")
            data = f.read(incl)
            if len(data) < incl:
                raise BadFile(f"{path}: record {n}: truncated data")
            yield sec * 1_000_000_000 + frac * unit, rh + data, data


def ip_tcp(pkt, off):
    """(is_tcp, payload_len) of the IP packet at pkt[off:]."""
    if len(pkt) < off + 1:
        return False, 0
    ver = pkt[off] >> 4
    if ver == 4:
        if len(pkt) < off + 20:
            return False, 0
        ihl = (pkt[off] & 0x0F) * 4
        total = struct.unpack("!H", pkt[off + 2:off + 4])[0]
        frag = struct.unpack("!H", pkt[off + 6:off + 8])[0]
        if pkt[off + 9] != 6 or frag & 0x3FFF:  # not TCP, or a fragment
            return False, 0
        t = off + ihl
        if len(pkt) < t + 13:
            return True, 0
        thl = (pkt[t + 12] >> 4) * 4
        return True, max(total - ihl - thl, 0)
    if ver == 6:
        if len(pkt) < off + 40:
            return False, 0
        plen = struct.unpack("!H", pkt[off + 4:off + 6])[0]
        nh, t = pkt[off + 6], off + 40
        while nh in (0, 43, 60):  # hop-by-hop, routing, destination options
            if len(pkt) < t + 2:
                return False, 0
            nh, ext = pkt[t], (pkt[t + 1] + 1) * 8
            plen -= ext
            t += ext
        if nh != 6:  # not TCP (a fragment header included)
            return False, 0
        if len(pkt) < t + 13:
            return True, 0
        thl = (pkt[t + 12] >> 4) * 4
        return True, max(plen - thl, 0)
    return False, 0


def nflog_payload(pkt):
    """Offset of the packet payload TLV (type 9) of an NFLOG record."""
    off = 4
    while len(pkt) >= off + 4:
        tlen, ttype = struct.unpack("<HH", pkt[off:off + 4])
        if tlen < 4:
            return None
        if ttype & 0x7FFF == 9:
            return off + 4
        off += (tlen + 3) & ~3
    return None


def tcp_info(linktype, pkt):
    """(is_tcp, payload_len) of one record's data."""
    if linktype == 1:  # Ethernet
        off, etype = 14, struct.unpack("!H", pkt[12:14])[0] if len(pkt) >= 14 else 0
        while etype in (0x8100, 0x88A8) and len(pkt) >= off + 4:
            etype = struct.unpack("!H", pkt[off + 2:off + 4])[0]
            off += 4
        return ip_tcp(pkt, off) if etype in (0x0800, 0x86DD) else (False, 0)
    if linktype in (12, 14, 101, 228, 229):  # raw IP
        return ip_tcp(pkt, 0)
    if linktype in (0, 108):  # BSD loopback: 4-byte family
        return ip_tcp(pkt, 4)
    if linktype == 113:  # Linux SLL
        return ip_tcp(pkt, 16)
    if linktype == 276:  # Linux SLL2
        return ip_tcp(pkt, 20)
    if linktype == 239:  # NFLOG
        off = nflog_payload(pkt)
        return ip_tcp(pkt, off) if off is not None else (False, 0)
    return False, 0


def decimal_ns(ap, text, scale, what):
    """text (a decimal) x scale as an integer; a usage error (exit 2) if it
    is not a number >= 0."""
    try:
        v = Decimal(text) * scale
    except InvalidOperation:
        v = None
    if v is None or not v.is_finite() or v < 0:
        ap.error(f"{what} must be a decimal number >= 0, not {text!r}")
    return int(v)


def fmt_ts(ns):
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}"


def main():
    ap = argparse.ArgumentParser(
        prog="outage.py", description="copy a classic pcap, leaving out a time window")
    ap.add_argument("inp", metavar="IN.pcap")
    ap.add_argument("out", metavar="OUT.pcap")
    ap.add_argument("--at", required=True, metavar="SECONDS",
                    help="window start, seconds after the earliest timestamp")
    ap.add_argument("--for", dest="dur", required=True, metavar="MS",
                    help="window length in milliseconds")
    args = ap.parse_args()  # exits 2 on a usage error
    at_ns = decimal_ns(ap, args.at, 1_000_000_000, "--at")
    for_ns = decimal_ns(ap, args.dur, 1_000_000, "--for")

    try:
        # First pass: the earliest timestamp (timestamps can go backwards).
        it = records(args.inp)
        next(it)
        first = min((ts for ts, _, _ in it), default=None)
        if first is None:
            raise BadFile(f"{args.inp}: no packets")
        lo = first + at_ns
        hi = lo + for_ns

        removed = removed_tcp = removed_data = kept = 0
        before = after = None  # last kept ts < lo, first kept ts >= hi
        it = records(args.inp)
        _, unit, linktype, hdr = next(it)
        with open(args.out, "wb") as out:
            out.write(hdr)
            for ts, rec, data in it:
                if lo <= ts < hi:
                    removed += 1
                    is_tcp, plen = tcp_info(linktype, data)
                    removed_tcp += is_tcp
                    removed_data += is_tcp and plen > 0
                    continue
                out.write(rec)
                kept += 1
                if ts < lo:
                    before = ts if before is None else max(before, ts)
                else:
                    after = ts if after is None else min(after, ts)
    except (BadFile, OSError) as e:
        print(f"outage.py: {e}", file=sys.stderr)
        sys.exit(1)

    silence = "" if before is None or after is None else f"{(after - before) / 1e6:.3f}"
    print(f"removed={removed}")
    print(f"removed_tcp={removed_tcp}")
    print(f"removed_data={removed_data}")
    print(f"removed_other={removed - removed_tcp}")
    print(f"kept={kept}")
    print(f"window_start={fmt_ts(lo)}")
    print(f"window_end={fmt_ts(hi)}")
    print(f"window_ms={for_ns / 1e6:g}")
    print(f"first_ts={fmt_ts(first)}")
    print(f"silence_ms={silence}")
    print(f"linktype={linktype}")
    print(f"resolution={'us' if unit == 1000 else 'ns'}")


if __name__ == "__main__":
    main()
