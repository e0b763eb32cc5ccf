#!/usr/bin/env python3
"""mkcap.py OUT.pcap - a deterministic capture of many connections for the shard test.

300 TCP connections (IPv4 and IPv6, handshakes, data, a retransmission, FINs),
interleaved; some pause longer than --idle-timeout 2 and resume; UDP, ARP,
ICMP errors quoting TCP segments (and one quoting UDP), cut packets. Enough
connections that every shard of 4 gets many, and every kind of packet the
shard rule places.
"""
import random
import struct
import sys

rng = random.Random(12)
pkts = []  # (ts_ns, frame bytes)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth(t, payload):
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + struct.pack("!H", t) + payload


def ip4(src, dst, proto, payload, ident=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000, 64, proto, 0,
                    bytes(src), bytes(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ip6(src, dst, proto, payload):
    return struct.pack("!IHBB16s16s", 6 << 28, len(payload), proto, 64, bytes(src),
                       bytes(dst)) + payload


def tcp(sport, dport, seq, ack, flags, data=b""):
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + data


def frame(c, to_server, seq, ack, flags, data=b""):
    s, d = (c["cli"], c["srv"]) if to_server else (c["srv"], c["cli"])
    sp, dp = (c["cport"], c["sport"]) if to_server else (c["sport"], c["cport"])
    seg = tcp(sp, dp, seq, ack, flags, data)
    if c["v6"]:
        return eth(0x86DD, ip6(s, d, 6, seg))
    return eth(0x0800, ip4(s, d, 6, seg, ident=rng.randrange(65536)))


SYN, ACK, FIN, PSH = 0x02, 0x10, 0x01, 0x08
T0 = 1_700_000_000 * 10**9
conns = []
for k in range(300):
    v6 = k % 5 == 0
    if v6:
        cli = [0x20, 0x01, 0x0D, 0xB8] + [0] * 11 + [k % 250 + 1]
        srv = [0x20, 0x01, 0x0D, 0xB8, 0, 1] + [0] * 9 + [k % 3 + 1]
    else:
        cli = [10, 0, k // 250, k % 250 + 1]
        srv = [10, 1, 0, k % 3 + 1]
    c = dict(v6=v6, cli=cli, srv=srv, cport=32768 + 4 * k, sport=(80, 443, 8080)[k % 3],
             cseq=rng.randrange(2**32), sseq=rng.randrange(2**32))
    conns.append(c)
    t = T0 + k * 7_000_000 + rng.randrange(1_000_000)
    rtt = 200_000 + rng.randrange(2_000_000)
    cs, ss = c["cseq"], c["sseq"]
    pkts.append((t, frame(c, True, cs, 0, SYN)))
    pkts.append((t + rtt, frame(c, False, ss, cs + 1, SYN | ACK)))
    t += rtt * 2
    pkts.append((t, frame(c, True, cs + 1, ss + 1, ACK)))
    cs, ss = cs + 1, ss + 1
    rounds = 3 + rng.randrange(6)
    for r in range(rounds):
        if k % 7 == 3 and r == 2:
            t += 3_000_000_000  # idle past --idle-timeout 2: ends, comes back
        req = bytes(100 + rng.randrange(200))
        pkts.append((t, frame(c, True, cs, ss, PSH | ACK, req)))
        if r == 1 and k % 4 == 1:  # a retransmission of the request
            pkts.append((t + 2 * rtt, frame(c, True, cs, ss, PSH | ACK, req)))
            if k % 8 == 1:  # and an ICMP error quoting it
                q = ip4(c["cli"], c["srv"], 6, tcp(c["cport"], c["sport"], cs, ss, ACK))[:28]
                if not v6:
                    icmp = struct.pack("!BBHHH", 3, 4, 0, 0, 1400) + q
                    pkts.append((t + rtt, eth(0x0800, ip4([10, 9, 9, 9], c["cli"], 1, icmp))))
        cs += len(req)
        t += rtt
        resp = bytes(500 + rng.randrange(1400))
        pkts.append((t, frame(c, False, ss, cs, PSH | ACK, resp)))
        ss += len(resp)
        t += rtt // 2
        pkts.append((t, frame(c, True, cs, ss, ACK)))
        t += rng.randrange(50_000_000)
    if k % 6 != 5:  # the rest stay open to the end
        pkts.append((t, frame(c, True, cs, ss, FIN | ACK)))
        pkts.append((t + rtt, frame(c, False, ss, cs + 1, FIN | ACK)))
        pkts.append((t + 2 * rtt, frame(c, True, cs + 1, ss + 1, ACK)))

# Not TCP: UDP (DNS-like), ARP, an ICMP error quoting UDP, cut frames.
for k in range(40):
    t = T0 + rng.randrange(2_500_000_000)
    udp = struct.pack("!HHHH", 5353, 53, 8 + 20, 0) + bytes(20)
    pkts.append((t, eth(0x0800, ip4([10, 0, 0, 9], [10, 1, 0, 53], 17, udp))))
    if k % 4 == 0:
        pkts.append((t + 1, eth(0x0806, bytes(28))))
    if k % 10 == 0:
        q = ip4([10, 0, 0, 9], [10, 1, 0, 53], 17, udp)[:28]
        icmp = struct.pack("!BBHI", 3, 3, 0, 0) + q
        pkts.append((t + 2, eth(0x0800, ip4([10, 1, 0, 53], [10, 0, 0, 9], 1, icmp))))
    if k % 10 == 5:
        pkts.append((t + 3, eth(0x0800, ip4([10, 0, 0, 9], [10, 1, 0, 1], 6, b"")[:16])))

pkts.sort(key=lambda p: p[0])
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
    for ts, b in pkts:
        f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(b), len(b)) + b)
