#!/usr/bin/env python3
"""pngstat.py - pixel statistics of a PNG, to tell a rendered page from a blank one.

    pngstat.py FILE [--min-ink F] [--min-colors N]

Prints "WIDTHxHEIGHT ink=F colors=N" (ink: the share of pixels that are not
the most common colour, the background; colors: distinct colours, counted
up to 4096) and exits 1 when ink < F or colors < N, 2 when FILE is not a
PNG this reads (8-bit greyscale, RGB or RGBA, not interlaced: what Chromium
writes). Python's standard library only (zlib), no imaging package.
"""
import argparse
import struct
import sys
import zlib
from collections import Counter


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    off, idat, hdr = 8, b"", None
    while off + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[off:off + 8])
        body = data[off + 8:off + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        off += 12 + n
    if not hdr:
        raise ValueError("no IHDR")
    w, h, depth, ctype, _, _, interlace = hdr
    channels = {0: 1, 2: 3, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
    raw = zlib.decompress(idat)
    stride = w * channels
    rows, prev, pos = [], bytearray(stride), 0
    for _ in range(h):
        ftype, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, channels, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("png")
    ap.add_argument("--min-ink", type=float, default=0.0)
    ap.add_argument("--min-colors", type=int, default=0)
    a = ap.parse_args()
    try:
        w, h, ch, rows = read_png(a.png)
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print(f"pngstat.py: {a.png}: {e}", file=sys.stderr)
        return 2
    count = Counter()
    for r in rows[::2]:  # every other row: enough for shares, twice as fast
        count.update(r[i:i + ch] for i in range(0, len(r), ch * 2))
    total = sum(count.values())
    ink = 1 - count.most_common(1)[0][1] / total
    colors = min(len(count), 4096)
    print(f"{w}x{h} ink={ink:.4f} colors={colors}")
    return 0 if ink >= a.min_ink and colors >= a.min_colors else 1


if __name__ == "__main__":
    sys.exit(main())
