#!/usr/bin/env python3
"""gen.py DIR - write the hostile capture files and DIR/cases.txt.

Each case is a file an attacker or an unlucky operator could hand to
`tcpsift analyze`, with what must happen: the exit code, a regular
expression the one stderr line must match (empty: no stderr at all), and a
Python expression over the JSON report's summary `s` that must hold (empty:
no JSON expected, the run is refused).  Generated, not stored: the files are
built from the formats' definitions here (libpcap savefile, pcapng
draft-ietf-opsawg-pcapng), so a reader change cannot silently move both the
file and its expectation.
"""
import os
import struct
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from inetsum import csum  # noqa: E402

out = sys.argv[1]
cases = []


def case(name, data, rc, err, check=""):
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        f.write(data)
    cases.append((name, str(rc), err, check))


# ---- libpcap savefile -------------------------------------------------------
def pcap_hdr(linktype=1, snaplen=65535, magic=0xA1B2C3D4, major=2, minor=4, endian="<"):
    return struct.pack(endian + "IHHiIII", magic, major, minor, 0, 0, snaplen, linktype)


def pcap_rec(data, ts=1_700_000_000, frac=0, caplen=None, wirelen=None, endian="<"):
    cl = len(data) if caplen is None else caplen
    wl = len(data) if wirelen is None else wirelen
    return struct.pack(endian + "IIII", ts, frac, cl, wl) + data


ETH = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01"


def ipv4(payload, proto=6, src=b"\x0a\0\0\x01", dst=b"\x0a\0\0\x02", ihl=5, tot=None,
         frag=0x4000, opts=b""):
    tot = 20 + len(opts) + len(payload) if tot is None else tot
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, tot, 1, frag, 64, proto, 0, src, dst) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def tcp(sport=40000, dport=80, seq=1000, ack=0, flags=0x02, win=65535, opts=b"", doff=None,
        payload=b""):
    d = (20 + len(opts)) // 4 if doff is None else doff
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, d << 4, flags, win, 0, 0) + opts + payload


def eth(l3, ethertype=0x0800):
    return ETH + struct.pack("!H", ethertype) + l3


def syn(i=0, **kw):
    return eth(ipv4(tcp(sport=40000 + i, **kw)))


def handshake(base=1000):
    """A client SYN, the server's SYN-ACK and the ACK: one connection."""
    c = dict(sport=40000, dport=80)
    s = dict(sport=80, dport=40000)
    return [
        eth(ipv4(tcp(seq=base, flags=0x02, **c))),
        eth(ipv4(tcp(seq=9000, ack=base + 1, flags=0x12, **s), src=b"\x0a\0\0\x02", dst=b"\x0a\0\0\x01")),
        eth(ipv4(tcp(seq=base + 1, ack=9001, flags=0x10, **c))),
    ]


def pcap(pkts, **kw):
    return pcap_hdr(**kw) + b"".join(pcap_rec(p, ts=1_700_000_000 + i) for i, p in enumerate(pkts))


ok3 = handshake()

# Files that are not captures, or are cut short before the first packet.
case("empty.pcap", b"", 3, r"empty", "")
case("three-bytes.pcap", b"\xd4\xc3\xb2", 3, r"(truncated|too short|not a|unknown|format)", "")
case("bad-magic.pcap", b"\xde\xad\xbe\xef" + b"\0" * 40, 3, r"(not a|unknown|format|magic)", "")
case("text.pcap", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 4, 3, r"(not a|unknown|format|magic)", "")
case("header-only.pcap", pcap_hdr(), 0, r"", "s['packets'] == 0")
case("bad-version.pcap", pcap_hdr(major=9, minor=9) + pcap_rec(ok3[0]), 3, r"(version|format)", "")

# Records that lie about their lengths.
case("cut-record-header.pcap", pcap(ok3) + b"\x01\x02\x03\x04\x05", 3, r"(truncated|cut|short)",
     "s['packets'] == 3")
case("cut-record-data.pcap", pcap(ok3) + pcap_rec(ok3[0])[:30], 3, r"(truncated|cut|short)",
     "s['packets'] == 3")
case("caplen-huge.pcap", pcap(ok3) + pcap_rec(ok3[0], caplen=0xFFFFFFF0), 3,
     r"(caplen|length|too (big|large)|snaplen|bogus|invalid)", "s['packets'] == 3")
# libpcap reads a record longer than the header's snaplen (keeping
# snaplen bytes); so does tcpsift (tests/reader compares the two).
case("caplen-over-snaplen.pcap", pcap_hdr(snaplen=64) + pcap_rec(ok3[0] + b"\0" * 200), 0, r"",
     "s['packets'] == 1")
case("caplen-zero.pcap", pcap(ok3) + pcap_rec(b"", wirelen=60), 0, r"",
     "s['packets'] == 4 and s['malformed'] == 1")
case("wirelen-below-caplen.pcap", pcap_hdr() + pcap_rec(ok3[0], wirelen=10), 0, r"",
     "s['packets'] == 1")
case("snaplen-zero.pcap", pcap(ok3, snaplen=0), 0, r"", "s['packets'] == 3")
case("snaplen-max.pcap", pcap(ok3, snaplen=0xFFFFFFFF), 0, r"", "s['packets'] == 3")
case("usec-over-second.pcap", pcap_hdr() + pcap_rec(ok3[0], frac=5_000_000), 0, r"",
     "s['packets'] == 1")
case("big-endian.pcap", pcap_hdr(endian=">") + b"".join(pcap_rec(p, endian=">") for p in ok3), 0, r"",
     "s['packets'] == 3 and s['connections'] == 1")
case("linktype-unknown.pcap", pcap(ok3, linktype=4242), 3, r"link type 4242", "")
case("linktype-raw-garbage.pcap", pcap([b"\x45" * 3, b"\x60" + b"\0" * 10, b"\xff" * 60], linktype=101), 0,
     r"", "s['packets'] == 3 and s['connections'] == 0")

# Packets built to walk decoders off their buffers or into loops.
bad_pkts = [
    eth(b""),                                             # no IP header at all
    eth(ipv4(tcp(), ihl=3)),                              # IHL below 5
    eth(ipv4(tcp(), ihl=15)),                             # IHL past the packet
    eth(ipv4(tcp(), tot=10)),                             # total length below IHL
    eth(ipv4(tcp(), tot=65535)),                          # total length past the packet
    eth(ipv4(tcp(doff=2))),                               # TCP data offset below 5
    eth(ipv4(tcp(doff=15))),                              # data offset past the packet
    eth(ipv4(tcp(opts=b"\x02\x00\x00\x00"))),            # option length 0 (a loop if trusted)
    eth(ipv4(tcp(opts=b"\x05\x01\x00\x00"))),            # option length 1
    eth(ipv4(tcp(opts=b"\x05\x03\x00\x00"))),            # SACK option of 3 bytes
    eth(ipv4(tcp(opts=b"\x05\x28" + b"\0" * 38 + b"\0" * 0)[:60])),  # SACK longer than options
    eth(ipv4(tcp(opts=b"\x03\x03\xff\x00"))),            # window scale 255
    eth(ipv4(tcp(opts=b"\x08\x0a" + b"\0" * 8 + b"\0\0"))),  # timestamps, zero
    eth(ipv4(tcp(), frag=0x2000)),                        # first fragment
    eth(ipv4(tcp(), frag=0x1FFF)),                        # last fragment at the top offset
    eth(b"\x60" + b"\0" * 39),                            # IPv6 header, no payload
    eth(b"\x60\0\0\0\xff\xff\x00\x40" + b"\0" * 32 + b"\x00\xff" + b"\0" * 6, 0x86DD),  # hop-by-hop past end
    eth(b"\x60\0\0\0\x00\x50\x2b\x40" + b"\0" * 32 + (b"\x2b\x00" + b"\0" * 6) * 10, 0x86DD),  # routing loop
    ETH + b"\x81\x00" * 40 + b"\x08\x00" + ipv4(tcp()),   # 40 VLAN tags, each naming the next
    eth(ipv4(ipv4(ipv4(tcp()), proto=4), proto=4)),       # IP in IP in IP
    eth(ipv4(b"\x03\x03\0\0\0\0\0\0" + b"\x45", proto=1)),  # ICMP error quoting a cut header
]
case("bad-packets.pcap", pcap(bad_pkts), 0, r"",
     "s['packets'] == %d and s['malformed'] >= 6" % len(bad_pkts))

# TCP that lies: SACK blocks out of any window, reversed, and a flood of
# segments on one 4-tuple alternating SYN and RST.
sack_lies = []
for i in range(200):
    blocks = struct.pack("!II", (i * 7919) & 0xFFFFFFFF, (i * 104729) & 0xFFFFFFFF) * 4
    sack_lies.append(eth(ipv4(tcp(sport=80, dport=40000, seq=9001, ack=1001, flags=0x10,
                                   opts=b"\x01\x01\x05\x22" + blocks),
                              src=b"\x0a\0\0\x02", dst=b"\x0a\0\0\x01")))
case("sack-lies.pcap", pcap(ok3 + sack_lies), 0, r"", "s['connections'] == 1")
churn = [eth(ipv4(tcp(seq=i * 1000, flags=0x02 if i % 2 == 0 else 0x04))) for i in range(2000)]
case("syn-rst-churn.pcap", pcap(churn), 0, r"", "s['packets'] == 2000")


# ---- pcapng -----------------------------------------------------------------
def blk(btype, body, total=None, trailer=None):
    n = 12 + len(body)
    t = n if total is None else total
    tr = t if trailer is None else trailer
    return struct.pack("<II", btype, t) + body + struct.pack("<I", tr)


def shb(opts=b"", major=1):
    return blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, major, 0, -1) + opts)


def idb(linktype=1, snaplen=0, opts=b""):
    return blk(1, struct.pack("<HHI", linktype, 0, snaplen) + opts)


def opt(code, val):
    pad = (-len(val)) % 4
    return struct.pack("<HH", code, len(val)) + val + b"\0" * pad


def epb(data, ifid=0, ts=1_700_000_000_000_000, caplen=None, wirelen=None):
    cl = len(data) if caplen is None else caplen
    wl = len(data) if wirelen is None else wirelen
    pad = (-len(data)) % 4
    return blk(6, struct.pack("<IIIII", ifid, ts >> 32, ts & 0xFFFFFFFF, cl, wl) + data + b"\0" * pad)


def ng(pkts, pre=b""):
    return shb() + idb() + pre + b"".join(epb(p, ts=1_700_000_000_000_000 + i) for i, p in enumerate(pkts))


# As libpcap: a section with no interface has no link type to report.
case("ng-shb-only.pcapng", shb(), 3, r"no interface description block", "")
case("ng-block-len-short.pcapng", shb() + idb() + struct.pack("<II", 6, 8) + b"\0" * 8, 3,
     r"(block|length|truncated|invalid|bogus)", "")
case("ng-block-len-odd.pcapng", ng(ok3) + blk(6, b"\0" * 21)[:-4] + b"\0\0\0", 3,
     r"(block|length|truncated|invalid|bogus|multiple)", "s['packets'] == 3")
case("ng-block-len-huge.pcapng", ng(ok3) + struct.pack("<II", 6, 0xFFFFFFF0) + b"\0" * 64, 3,
     r"(block|length|truncated|too (big|large)|invalid|bogus)", "s['packets'] == 3")
case("ng-trailer-mismatch.pcapng", ng(ok3) + blk(6, b"\0" * 20, trailer=999), 3,
     r"(block|length|trailer|mismatch|invalid|bogus)", "s['packets'] == 3")
case("ng-epb-before-idb.pcapng", shb() + epb(ok3[0]), 3, r"(interface|IDB)", "")
case("ng-epb-unknown-if.pcapng", ng(ok3) + epb(ok3[0], ifid=7), 3, r"(interface|IDB)", "s['packets'] == 3")
case("ng-epb-caplen-over-block.pcapng", ng(ok3) + epb(ok3[0], caplen=5000), 3,
     r"(caplen|length|block|invalid|bogus|larger)", "s['packets'] == 3")
case("ng-option-overrun.pcapng", shb() + idb(opts=struct.pack("<HH", 9, 200) + b"\x06\0\0\0") + epb(ok3[0]), 3,
     r"(option|block|length|invalid|bogus)", "")
case("ng-tsresol-absurd.pcapng", shb() + idb(opts=opt(9, b"\x7f") + opt(0, b"")) + b"".join(epb(p) for p in ok3),
     3, r"(tsresol|resolution|time)", "")
case("ng-unknown-blocks.pcapng", shb() + idb() + blk(0x0BAD, b"\0" * 16) + blk(0x80000001, b"x" * 8) +
     b"".join(epb(p, ts=1_700_000_000_000_000 + i) for i, p in enumerate(ok3)), 0, r"",
     "s['packets'] == 3 and s['connections'] == 1")
case("ng-spb-no-idb.pcapng", shb() + blk(3, struct.pack("<I", 60) + b"\0" * 60), 3, r"(interface|IDB)", "")
case("ng-shb-version-2.pcapng", shb(major=2) + idb() + epb(ok3[0]), 3, r"(version|format)", "")
case("ng-two-sections-endianness.pcapng", ng(ok3) +
     struct.pack(">II", 0x0A0D0D0A, 28) + struct.pack(">IHHq", 0x1A2B3C4D, 1, 0, -1) + struct.pack(">I", 28) +
     struct.pack(">II", 1, 20) + struct.pack(">HHI", 1, 0, 0) + struct.pack(">I", 20) +
     struct.pack(">II", 6, 32 + 60) + struct.pack(">IIIII", 0, 0, 0, 60, 60) + ok3[0][:54] + b"\0" * 6 +
     struct.pack(">I", 32 + 60), 0, r"", "s['packets'] == 4")
case("ng-idb-flood.pcapng", shb() + idb() * 100000 + epb(ok3[0], ifid=99999), 3,
     r"more than 65536 interfaces", "")

with open(os.path.join(out, "cases.txt"), "w") as f:
    for c in cases:
        f.write("\x1f".join(c) + "\n")  # not a tab: read would merge empty fields
