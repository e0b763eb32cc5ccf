#!/usr/bin/env python3
"""shardhash.py - tcpsift's --shard hash in Python, written from tcpsift-analyze(1) alone.

Usage: shardhash.py N ADDR PORT ADDR PORT   -> prints the hash (hex) and the shard.
Imported by tests/shard/check.py to place every connection independently.
"""
import ipaddress
import struct
import sys

MASK = (1 << 64) - 1
KEY = b"tcpsift-shard-v1"


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & MASK


def siphash24(key, msg):
    k0, k1 = struct.unpack("<QQ", key)
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rnd():
        v[0] = (v[0] + v[1]) & MASK; v[1] = _rotl(v[1], 13); v[1] ^= v[0]; v[0] = _rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & MASK; v[3] = _rotl(v[3], 16); v[3] ^= v[2]
        v[0] = (v[0] + v[3]) & MASK; v[3] = _rotl(v[3], 21); v[3] ^= v[0]
        v[2] = (v[2] + v[1]) & MASK; v[1] = _rotl(v[1], 17); v[1] ^= v[2]; v[2] = _rotl(v[2], 32)

    tail = len(msg) % 8
    padded = msg[:len(msg) - tail] + msg[len(msg) - tail:] + b"\0" * (7 - tail) + bytes([len(msg) & 0xFF])
    for (m,) in struct.iter_unpack("<Q", padded):
        v[3] ^= m
        rnd(); rnd()
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(4):
        rnd()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def conn_hash(addr_a, port_a, addr_b, port_b):
    a, b = ipaddress.ip_address(addr_a), ipaddress.ip_address(addr_b)
    ea, eb = (a.packed, port_a), (b.packed, port_b)
    lo, hi = min(ea, eb), max(ea, eb)  # bytes first, then port: tcpsift-analyze(1)
    msg = bytes([a.version]) + lo[0] + struct.pack(">H", lo[1]) + hi[0] + struct.pack(">H", hi[1])
    return siphash24(KEY, msg)


def shard_of(h, n):
    return h % n + 1


if __name__ == "__main__":
    n = int(sys.argv[1])
    h = conn_hash(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    print(f"{h:016x} {shard_of(h, n)}")
