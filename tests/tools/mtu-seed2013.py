#!/usr/bin/env python3
"""mtu-seed2013.py OUT.pcap - synthesize the 2013 splice/loopback MTU seed.

Writes a classic pcap (LINKTYPE_ETHERNET as Linux's lo, snaplen 128, frames
cut to 128 bytes, original lengths kept) with three loopback connections
reproducing the MTU numbers of ../shared/seeds/netdev-2013-splice-loopback-
mtu-regression.txt ("Major network performance regression in 3.7"):

  1. 127.0.0.1:26792 -> :8000, lo MTU 63540 (= 61492 + 2048), timestamps on:
     MSS 63500, full-size payloads 63488 = 15 pages + 2048. The response
     starts as in the seed (4096 bytes without PSH, ACKed at once, 200 ms of
     silence) and goes on with full-size segments separated by 200 ms
     sender pauses and 40 ms delayed ACKs: 12 pauses in all.
     Expected: misaligned, aligned MTUs 61492 / 65588, collapse.
  2. 127.0.0.1:26794 -> :8001, lo MTU 61492 (= 15*4096 + 52): payloads 61440,
     the same response sent back to back. Expected: aligned, nothing.
  3. 127.0.0.1:8002 -> :8000, lo MTU 16384 and no timestamps, as in the
     seed's second trace: MSS 16344 (4056 bytes into a fourth page),
     segments every ~204 ms. Expected: misaligned (n*4096 + 40: 12328 /
     16424), collapse.

Deterministic: fixed ISNs (the seed's), times, IP IDs. Payload bytes are
zeros; TCP/IP checksums are computed over the full (uncaptured) payload.
"""
import struct
import sys

from inetsum import csum  # tests/tools, this script's own folder

SNAPLEN = 128
T0 = 1357410728.071602  # 2013-01-05 18:32:08.071602, the seed's first SYN


class Writer:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, SNAPLEN, 1))

    def frame(self, t, data, wirelen):
        sec = int(t)
        usec = int(round((t - sec) * 1e6))
        if usec >= 1000000:
            sec, usec = sec + 1, usec - 1000000
        cap = data[:SNAPLEN]
        self.f.write(struct.pack("<IIII", sec, usec, len(cap), wirelen))
        self.f.write(cap)

    def close(self):
        self.f.close()


class Conn:
    """One loopback connection; sizes and option layouts as Linux sends them."""

    def __init__(self, w, cport, sport, ciss, siss, mss, ts):
        self.w, self.ts = w, ts
        self.port = {0: cport, 1: sport}
        self.nxt = {0: ciss, 1: siss}
        self.ipid = {0: 0x1000, 1: 0x2000}
        self.mss = mss
        self.tsval = {0: 1000, 1: 5000}
        self.t = 0.0

    def opts(self, syn, d):
        if syn:
            mss = struct.pack("!BBH", 2, 4, self.mss)
            if self.ts:  # mss, sackOK, TS, nop, wscale 9
                return (mss + b"\x04\x02" + struct.pack("!BBII", 8, 10, self.tsval[d], 0)
                        + b"\x01\x03\x03\x09")
            return mss + b"\x01\x01\x04\x02\x01\x03\x03\x09"  # the seed's SYN options
        if self.ts:
            return b"\x01\x01" + struct.pack("!BBII", 8, 10, self.tsval[d], self.tsval[1 - d])
        return b""

    def send(self, t, d, flags, length=0, win=16):
        """d: 0 client->server, 1 server->client. flags: S, A, P, F letters."""
        fl = 0
        for ch, bit in (("F", 1), ("S", 2), ("P", 8), ("A", 16)):
            if ch in flags:
                fl |= bit
        syn = "S" in flags
        opt = self.opts(syn, d)
        thl = 20 + len(opt)
        seq = self.nxt[d]
        ack = self.nxt[1 - d] if "A" in flags else 0
        src = dst = bytes([127, 0, 0, 1])
        sport, dport = self.port[d], self.port[1 - d]
        tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (thl // 4) << 4, fl, win, 0,
                          0) + opt
        tot = 20 + thl + length
        pseudo = src + dst + struct.pack("!BBH", 0, 6, thl + length)
        c = csum(pseudo + tcp)  # the zero payload adds nothing
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, self.ipid[d], 0x4000, 64, 6, 0, src,
                         dst)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        self.ipid[d] = (self.ipid[d] + 1) & 0xFFFF
        eth = b"\0" * 12 + b"\x08\x00"
        head = eth + ip + tcp
        self.w.frame(T0 + t, head + b"\0" * min(length, SNAPLEN), 14 + tot)
        self.nxt[d] = (seq + length + (1 if syn else 0) + (1 if "F" in flags else 0)) & 0xFFFFFFFF
        self.tsval[d] += 1


def conn_63540(w, t):
    c = Conn(w, 26792, 8000, 2036886615, 126397113, 63540 - 40, True)
    full = 63540 - 52  # 63488
    c.send(t, 0, "S")
    c.send(t + 3e-6, 1, "SA")
    c.send(t + 12e-6, 0, "A")
    c.send(t + 47e-6, 0, "PA", 122)  # GET /?s=1g HTTP/1.0
    c.send(t + 70e-6, 1, "A", 4096)  # 4096 bytes, no PSH
    c.send(t + 74e-6, 0, "A", win=250)  # ACKed at once
    t += 74e-6
    for k in range(12):
        # The seed: 200 ms of silence, then the next part of the same response.
        t += 0.2039
        c.send(t, 1, "A", full)
        c.send(t + 8e-6, 1, "PA", full)
        # ... and a delayed ACK: 40 ms before the receiver acknowledges.
        if k % 2 == 0:
            t += 0.040
        c.send(t + 16e-6, 0, "A", win=256)
        t += 16e-6
    c.send(t + 10e-6, 1, "FPA", 1000)
    c.send(t + 20e-6, 0, "FA")
    c.send(t + 30e-6, 1, "A")
    return t + 1e-3


def conn_61492(w, t):
    c = Conn(w, 26794, 8001, 3000000000, 400000000, 61492 - 40, True)
    full = 61492 - 52  # 61440 = 15 pages
    c.send(t, 0, "S")
    c.send(t + 3e-6, 1, "SA")
    c.send(t + 12e-6, 0, "A")
    c.send(t + 47e-6, 0, "PA", 122)
    t += 60e-6
    for _ in range(13):
        c.send(t, 1, "A", full)
        c.send(t + 8e-6, 1, "PA", full)
        c.send(t + 16e-6, 0, "A", win=256)
        t += 20e-6
    c.send(t + 10e-6, 1, "FPA", 1000)
    c.send(t + 20e-6, 0, "FA")
    c.send(t + 30e-6, 1, "A")
    return t + 1e-3


def conn_16384(w, t):
    # The seed's second trace: server 8000 -> client 8002, no timestamps.
    c = Conn(w, 8002, 8000, 131668745, 956153185, 16384 - 40, False)
    full = 16384 - 40  # 16344
    c.send(t, 0, "S")
    c.send(t + 3e-6, 1, "SA")
    c.send(t + 12e-6, 0, "A")
    c.send(t + 47e-6, 0, "PA", 122)
    t += 60e-6
    for k in range(10):
        c.send(t, 1, "PA", full)
        c.send(t + 5e-6, 0, "A", win=64)
        t += 0.204
    c.send(t, 1, "FPA", 1000)
    c.send(t + 10e-6, 0, "FA")
    c.send(t + 20e-6, 1, "A")
    return t + 1e-3


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: mtu-seed2013.py OUT.pcap")
    w = Writer(sys.argv[1])
    t = conn_63540(w, 0.0)
    t = conn_61492(w, t + 0.5)
    conn_16384(w, t + 0.5)
    w.close()


if __name__ == "__main__":
    main()
