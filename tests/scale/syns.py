#!/usr/bin/env python3
"""syns.py OUT N [--idle] - a pcap of N connections, each new, 1 ms apart.

Default: N SYNs, one connection each. --idle: each connection does a
handshake (SYN, SYN/ACK, ACK), the client sends 100 bytes, the server ACKs
them, and then nothing more (no FIN): N live idle connections at the end,
with timestamps and SACK-permitted in both SYNs as a modern stack sends.

Client 10.(k/65536).(k/256%256).(k%256):(1024 + k%60000) to 192.0.2.1:80,
Ethernet + IPv4 + TCP; classic microsecond pcap.
Ground truth for tests/scale/run.sh: N connections, N (or 5 N) packets.
"""
import struct
import sys
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from inetsum import csum  # noqa: E402


SERVER = bytes([192, 0, 2, 1])


def frame(src, dst, sport, dport, seq, ack, flags, opts, payload, ipid):
    """Ethernet + IPv4 + TCP bytes of one segment."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (5 + len(opts) // 4) << 4, flags,
                      64240, 0, 0) + opts + payload
    ph = src + dst + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(ph + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ipid & 0xFFFF, 0x4000, 64, 6, 0,
                     src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip + tcp


def ts_opt(val, ecr):
    return struct.pack("!BBBBII", 1, 1, 8, 10, val, ecr)


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    idle = "--idle" in sys.argv[3:]
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))

        def put(t_us, b):
            f.write(struct.pack("<IIII", t_us // 10**6, t_us % 10**6, len(b), len(b)))
            f.write(b)

        for k in range(n):
            src = bytes([10, (k >> 16) & 255, (k >> 8) & 255, k & 255])
            sport = 1024 + k % 60000
            t = 1700000000 * 10**6 + k * 1000
            mss = struct.pack("!BBH", 2, 4, 1460)
            if not idle:
                put(t, frame(src, SERVER, sport, 80, 1000 + k, 0, 0x02, mss, b"", k))
                continue
            iss, irs = 1000 + k, 5000000 + k
            syn_opts = mss + struct.pack("!BBBB", 1, 1, 4, 2) + ts_opt(k, 0)  # NOP NOP SACKOK TS
            put(t, frame(src, SERVER, sport, 80, iss, 0, 0x02, syn_opts, b"", k))
            put(t + 100, frame(SERVER, src, 80, sport, irs, iss + 1, 0x12,
                               mss + struct.pack("!BBBB", 1, 1, 4, 2) + ts_opt(7 * k, k), b"", k))
            put(t + 200, frame(src, SERVER, sport, 80, iss + 1, irs + 1, 0x10,
                               ts_opt(k + 1, 7 * k), b"", k + 1))
            put(t + 300, frame(src, SERVER, sport, 80, iss + 1, irs + 1, 0x18,
                               ts_opt(k + 1, 7 * k), b"x" * 100, k + 2))
            put(t + 400, frame(SERVER, src, 80, sport, irs + 1, iss + 101, 0x10,
                               ts_opt(7 * k + 1, k + 1), b"", k + 1))


if __name__ == "__main__":
    main()
