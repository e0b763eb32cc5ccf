#!/usr/bin/env python3
"""syns.py OUT N - a pcap of N SYNs, each a new connection, 1 ms apart.

Client 10.(k/65536).(k/256%256).(k%256):(1024 + k%60000) to 192.0.2.1:80,
Ethernet + IPv4 + TCP with an MSS option; classic microsecond pcap.
Ground truth for tests/scale/run.sh: N connections, N packets.
"""
import struct
import sys


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    dst = bytes([192, 0, 2, 1])
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for k in range(n):
            src = bytes([10, (k >> 16) & 255, (k >> 8) & 255, k & 255])
            sport = 1024 + k % 60000
            tcp = struct.pack("!HHIIBBHHH", sport, 80, 1000 + k, 0, 6 << 4, 0x02, 64240, 0, 0)
            tcp += struct.pack("!BBH", 2, 4, 1460)
            ph = src + dst + struct.pack("!BBH", 0, 6, len(tcp))
            tcp = tcp[:16] + struct.pack("!H", csum(ph + tcp)) + tcp[18:]
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), k & 0xFFFF, 0x4000, 64, 6,
                             0, src, dst)
            ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
            frame = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip + tcp
            t = 1700000000 * 10**6 + k * 1000
            f.write(struct.pack("<IIII", t // 10**6, t % 10**6, len(frame), len(frame)))
            f.write(frame)


if __name__ == "__main__":
    main()
