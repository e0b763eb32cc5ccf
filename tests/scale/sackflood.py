#!/usr/bin/env python3
"""sackflood.py OUT N ROUNDS - N connections in lockstep, each SACKing many holes.

Connection k: client 10.(k/65536).(k/256%256).(k%256):(1024 + k%60000) to
192.0.2.1:443. Every connection does its handshake, then ROUNDS rounds of
one 1000-byte server segment and the client's ACK; the server skips every
other segment, so the client's cumulative ACK stays at the first hole and
its 3 SACK blocks name ever more holes (up to ROUNDS). Packets go out one
connection after the other, phase by phase (SYN of all, SYN/ACK of all,
...), 10 us apart: every connection is live all the time, the worst case
for a table smaller than N. Payload is cut by a 66-byte snaplen.
Ground truth for tests/scale/run.sh: N connections, N * (3 + 2 * ROUNDS)
packets.
"""
import struct
import sys

SRV = bytes([192, 0, 2, 1])


def frame(src, dst, sport, dport, seq, ack, flags, opts=b"", paylen=0):
    opts += b"\x01" * (-len(opts) % 4)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                      (5 + len(opts) // 4) << 4, flags, 65535, 0, 0) + opts
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + paylen, 0, 0x4000, 64, 6, 0,
                     src, dst)
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + tcp, paylen


def main():
    out, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    isn_c, isn_s, mss = 1000, 5000000, 1000
    t = [1700000000 * 10**6]
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))

        def put(fr):
            b, paylen = fr
            f.write(struct.pack("<IIII", t[0] // 10**6, t[0] % 10**6, len(b), len(b) + paylen))
            f.write(b)
            t[0] += 10

        cli = [(bytes([10, (k >> 16) & 255, (k >> 8) & 255, k & 255]), 1024 + k % 60000)
               for k in range(n)]
        syn_opts = struct.pack("!BBH", 2, 4, 1460) + b"\x04\x02"  # MSS, SACK-permitted
        for c, p in cli:
            put(frame(c, SRV, p, 443, isn_c, 0, 0x02, syn_opts))
        for c, p in cli:
            put(frame(SRV, c, 443, p, isn_s, isn_c + 1, 0x12, syn_opts))
        for c, p in cli:
            put(frame(c, SRV, p, 443, isn_c + 1, isn_s + 1, 0x10))
        base = isn_s + 1
        for r in range(rounds):
            seq = base + (2 * r + 1) * mss  # segment 2r + 1; 0, 2, 4, ... never sent
            blocks = [(base + (2 * j + 1) * mss, base + (2 * j + 2) * mss)
                      for j in range(r, max(-1, r - 3), -1)]
            sack = struct.pack("!BB", 5, 2 + 8 * len(blocks))
            sack += b"".join(struct.pack("!II", a & 0xFFFFFFFF, b & 0xFFFFFFFF) for a, b in blocks)
            for c, p in cli:
                put(frame(SRV, c, 443, p, seq, isn_c + 1, 0x18, b"", mss))
            for c, p in cli:
                put(frame(c, SRV, p, 443, isn_c + 1, base, 0x10, b"\x01\x01" + sack))


if __name__ == "__main__":
    main()
