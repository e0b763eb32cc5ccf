#!/usr/bin/env python3
"""holes.py N - tcpdump text (-S style) of one bulk transfer with N SACK holes.

A server (10.0.0.2:80) sends blocks of 10 segments of 1000 bytes; the
first of each block is lost past the capture point: the client ACKs the
block's start with a SACK block over the rest (3 duplicate ACKs), the
server sends the segment again, the client ACKs the whole block. Hole k
is 1000 bytes, except hole N/2 which covers two segments (the worst, 2000
bytes). Feed it to tests/tools/sack-tcpdump2pcap.py. Standard library only.
"""
import sys

n = int(sys.argv[1])
C, S = "10.0.0.1.40000", "10.0.0.2.80"
t = [0.0]


def line(src, dst, rest):
    t[0] += 0.0001
    us = int(round(t[0] * 1e6))
    print("10:00:%02d.%06d IP %s > %s: %s" % (us // 1000000, us % 1000000, src, dst, rest))


isn_c, isn_s = 1000, 500000
line(C, S, "S %d:%d(0) win 65535 <mss 1000,sackOK,nop,wscale 7>" % (isn_c, isn_c))
line(S, C, "S %d:%d(0) ack %d win 65535 <mss 1000,sackOK,nop,wscale 7>" % (isn_s, isn_s, isn_c + 1))
line(C, S, ". ack %d win 512" % (isn_s + 1))
seq = isn_s + 1
for b in range(n):
    lost = 2 if b == n // 2 else 1
    start, end = seq, seq + 10 * 1000
    for i in range(10):
        s = start + i * 1000
        line(S, C, "P %d:%d(1000) ack %d win 512" % (s, s + 1000, isn_c + 1))
        if i >= lost:
            line(C, S, ". ack %d win 512 <nop,nop,sack 1 {%d:%d}>" % (start, start + lost * 1000, s + 1000))
    for i in range(lost):
        s = start + i * 1000
        line(S, C, "P %d:%d(1000) ack %d win 512" % (s, s + 1000, isn_c + 1))
    line(C, S, ". ack %d win 512" % end)
    seq = end
line(S, C, "F %d:%d(0) ack %d win 512" % (seq, seq, isn_c + 1))
line(C, S, "F %d:%d(0) ack %d win 512" % (isn_c + 1, isn_c + 1, seq + 1))
line(S, C, ". ack %d win 512" % (isn_c + 2))
