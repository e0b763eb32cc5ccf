#!/usr/bin/env python3
"""make-bad.py - write the small malformed captures in samples/bad/.

Each file is built byte by byte so the defect is exactly the one named;
tests/golden/TESTLIST expects one clear error line and exit 3 (or, for
packet-level defects, a counted rejection) for each.
"""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def pcap_header(linktype=1, snaplen=65535, magic=0xA1B2C3D4):
    return struct.pack("<IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)


def record(data, ts=1, caplen=None, wirelen=None):
    caplen = len(data) if caplen is None else caplen
    wirelen = len(data) if wirelen is None else wirelen
    return struct.pack("<IIII", ts, 0, caplen, wirelen) + data


def eth_ipv4_tcp(payload=b"", ihl=5, total=None, doff=5, flags=0x18):
    tcp = struct.pack(">HHIIBBHHH", 40000, 80, 1, 1, doff << 4, flags, 1000, 0, 0)
    ip_len = 20 + len(tcp) + len(payload) if total is None else total
    ip = struct.pack(">BBHHHBBH4s4s", 0x40 | ihl, 0, ip_len, 1, 0x4000, 64, 6, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return b"\x00" * 12 + b"\x08\x00" + ip + tcp + payload


def write(name, data):
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)


# Link type 147 (LINKTYPE_USER0): nothing in it can be decoded.
write("unknown-linktype.pcap", pcap_header(147) + record(b"abcd") + record(b"efgh", ts=2))
# A record claiming 4 GiB of captured bytes after one good packet.
write("bogus-caplen.pcap", pcap_header() + record(eth_ipv4_tcp(b"x" * 10)) +
      struct.pack("<IIII", 2, 0, 0xFFFFFFF0, 0xFFFFFFF0) + b"\x00" * 32)
# Not a capture at all.
write("not-a-capture.txt", b"GET / HTTP/1.1\r\nHost: example\r\n\r\n")
# Packets whose headers lie: IHL 3, IP total length shorter than the
# header, TCP data offset 2, TCP header cut by a 40-byte snaplen. The file
# itself is valid: these are counted as malformed, exit 0.
pkts = [eth_ipv4_tcp(ihl=3), eth_ipv4_tcp(total=10), eth_ipv4_tcp(doff=2),
        eth_ipv4_tcp(b"y" * 100)[:40]]
write("lying-headers.pcap", pcap_header() + b"".join(
    record(p, ts=i + 1, wirelen=max(len(p), 154) if i == 3 else None) for i, p in enumerate(pkts)))
# An empty file.
write("empty.pcap", b"")
