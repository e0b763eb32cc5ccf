#!/usr/bin/env python3
"""blocks.py - read pcap and pcapng files on their own, for tests/annotate/run.sh.

  blocks.py packets FILE     one line a packet: ts_ns caplen len sha1(data)
  blocks.py comments FILE    one line a comment: frame<TAB>opt_comment, and
                             frame<TAB>custom:PEN:text for custom options 2988
  blocks.py same IN OUT      a pcapng IN and its annotated OUT: the same
                             blocks in the same order, each byte for byte,
                             but EPBs, which may only gain options 1 (comment)
                             and 2988 after their own; prints "same N M"
                             (blocks, EPBs that gained options) or the first
                             difference, exit 1
"""
import hashlib
import struct
import sys


def sections(d):
    """Yield (big, type, block bytes) for each pcapng block."""
    off = 0
    big = False
    while off + 12 <= len(d):
        if d[off:off + 4] == b"\x0a\x0d\x0d\x0a":
            big = d[off + 8:off + 12] == b"\x1a\x2b\x3c\x4d"
        e = ">" if big else "<"
        typ, ln = struct.unpack(e + "II", d[off:off + 8])
        yield big, typ, d[off:off + ln]
        off += ln


def options(b, start, big):
    """(code, value) pairs of the options in block b from start."""
    e = ">" if big else "<"
    out, off, end = [], start, len(b) - 4
    while off + 4 <= end:
        code, ln = struct.unpack(e + "HH", b[off:off + 4])
        if code == 0:
            break
        out.append((code, b[off + 4:off + 4 + ln]))
        off += 4 + ((ln + 3) & ~3)
    return out


def epb_opt_start(b, big):
    e = ">" if big else "<"
    caplen = struct.unpack(e + "I", b[20:24])[0]
    return 28 + ((caplen + 3) & ~3)


def pcapng_packets(d):
    ifs = []
    for big, typ, b in sections(d):
        e = ">" if big else "<"
        if typ == 0x0A0D0D0A:
            ifs = []
        elif typ == 1:
            res = 10**6
            for code, v in options(b, 16, big):
                if code == 9:
                    res = 2**(v[0] & 0x7f) if v[0] & 0x80 else 10**v[0]
            ifs.append(res)
        elif typ == 6:
            iface, hi, lo, cap, ln = struct.unpack(e + "IIIII", b[8:28])
            t = (hi << 32 | lo) * 10**9 // ifs[iface]
            yield t, cap, ln, b[28:28 + cap], b


def pcap_packets(d):
    magic = d[:4]
    e = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    ns = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    off = 24
    while off + 16 <= len(d):
        s, f, cap, ln = struct.unpack(e + "IIII", d[off:off + 16])
        yield s * 10**9 + f * (1 if ns else 1000), cap, ln, d[off + 16:off + 16 + cap], None
        off += 16 + cap


def packets(path):
    d = open(path, "rb").read()
    if d[:4] == b"\x0a\x0d\x0d\x0a":
        return pcapng_packets(d)
    return pcap_packets(d)


def cmd_packets(path):
    for t, cap, ln, data, _ in packets(path):
        print(t, cap, ln, hashlib.sha1(data).hexdigest())


def cmd_comments(path):
    d = open(path, "rb").read()
    frame = 0
    for big, typ, b in sections(d):
        if typ not in (2, 3, 6):
            continue
        frame += 1
        if typ != 6:
            continue
        e = ">" if big else "<"
        for code, v in options(b, epb_opt_start(b, big), big):
            if code == 1:
                print(f"{frame}\t{v.decode()}")
            elif code == 2988:
                pen = struct.unpack(e + "I", v[:4])[0]
                print(f"{frame}\tcustom:{pen}:{v[4:].decode()}")


def cmd_same(a_path, b_path):
    a = list(sections(open(a_path, "rb").read()))
    b = list(sections(open(b_path, "rb").read()))
    if len(a) != len(b):
        print(f"{len(a)} blocks in, {len(b)} out")
        return 1
    grew = 0
    for k, ((big, ta, x), (_, tb, y)) in enumerate(zip(a, b)):
        if ta != tb:
            print(f"block {k}: type {ta:#x} in, {tb:#x} out")
            return 1
        if x == y:
            continue
        if ta != 6:
            print(f"block {k} (type {ta:#x}) differs")
            return 1
        s = epb_opt_start(x, big)
        if x[8:s] != y[8:s]:
            print(f"block {k}: EPB header or packet differs")
            return 1
        ox, oy = options(x, s, big), options(y, s, big)
        if oy[:len(ox)] != ox or any(c not in (1, 2988) for c, _ in oy[len(ox):]):
            print(f"block {k}: options {ox} became {oy}")
            return 1
        grew += 1
    print(f"same {len(a)} {grew}")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "packets":
        cmd_packets(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "comments":
        cmd_comments(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "same":
        return cmd_same(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
