"""inetsum.py - the Internet checksum (RFC 1071) for the test generators
(tests/hostile/gen.py, gen_times.py, tests/scale/syns.py and the sample
converters in this folder), one copy."""
import struct


def csum(b):
    """The ones'-complement sum of b's 16-bit words, complemented."""
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
