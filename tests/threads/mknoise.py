#!/usr/bin/env python3
"""mknoise.py IN.pcap OUT.pcap - IN (Ethernet) with, next to its TCP packets,
the framings the --threads reader routes without a full decode or hands to
it: 802.1Q-tagged and QinQ copies, IPv4 fragments, IPv6 hop-by-hop options,
a bad IPv4 header length, TCP headers cut short or with a bad data offset,
non-IP frames. Deterministic; a copy's timestamp is its original's.
"""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
magic = data[:4]
end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
ghdr = data[:24]
assert struct.unpack(end + "I", data[20:24])[0] == 1, "Ethernet only"
out = [ghdr]


def rec(hdr, frame, wire=None):
    ts1, ts2, _, olen = struct.unpack(end + "IIII", hdr)
    out.append(struct.pack(end + "IIII", ts1, ts2, len(frame),
                           max(len(frame), wire if wire is not None else olen)) + frame)


def variants(k, f):
    et = struct.unpack("!H", f[12:14])[0]
    l3 = f[14:]
    v = []
    if k % 5 == 0:
        v.append(f[:12] + b"\x81\x00\x00\x07" + f[12:])  # one 802.1Q tag
    if k % 9 == 0:
        v.append(f[:12] + b"\x88\xa8\x00\x03\x81\x00\x00\x07" + f[12:])  # QinQ
    if k % 23 == 0:
        v.append(f[:12] + b"\x08\x06" + b"\0" * 28)  # ARP-ish, not IP
    if et == 0x0800 and len(l3) >= 40:
        ihl = (l3[0] & 15) * 4
        if k % 7 == 0:  # a first fragment (MF) and a later one
            v.append(f[:14] + l3[:6] + b"\x20\x00" + l3[8:])
            v.append(f[:14] + l3[:6] + b"\x00\x10" + l3[8:])
        if k % 11 == 0:  # IHL 4: ip_bad
            v.append(f[:14] + bytes([0x44]) + l3[1:])
        if k % 13 == 0:  # cut inside the TCP header: tcp_truncated
            v.append((f[:14 + ihl + 10], len(f)))
        if k % 17 == 0:  # data offset 3: tcp_bad
            t = bytearray(l3)
            t[ihl + 12] = 0x30 | (t[ihl + 12] & 15)
            v.append(f[:14] + bytes(t))
    if et == 0x86DD and len(l3) >= 60:
        if k % 3 == 0:  # a hop-by-hop options header before TCP
            plen = struct.unpack("!H", l3[4:6])[0] + 8
            h = l3[:4] + struct.pack("!H", plen) + b"\x00" + l3[7:40]
            v.append(f[:14] + h + bytes([l3[6], 0, 1, 4, 0, 0, 0, 0]) + l3[40:])
        if k % 8 == 0:  # a fragment header, M set
            plen = struct.unpack("!H", l3[4:6])[0] + 8
            h = l3[:4] + struct.pack("!H", plen) + b"\x2c" + l3[7:40]
            v.append(f[:14] + h + bytes([l3[6], 0, 0, 1, 0, 0, 0, 9]) + l3[40:])
        if k % 19 == 0:
            v.append((f[:14 + 40 + 6], len(f)))  # cut TCP header
    return v


off, k = 24, 0
while off + 16 <= len(data):
    hdr = data[off:off + 16]
    caplen = struct.unpack(end + "I", hdr[8:12])[0]
    frame = data[off + 16:off + 16 + caplen]
    off += 16 + caplen
    out.append(hdr + frame)
    k += 1
    for v in variants(k, frame):
        if isinstance(v, tuple):  # cut by the snaplen: the wire length stays
            rec(hdr, v[0], v[1])
        else:
            rec(hdr, v, len(v))
open(dst, "wb").write(b"".join(out))
