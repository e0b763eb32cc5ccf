#!/usr/bin/env python3
"""pcaptool.py - derive a second run from a classic pcap for tests/diff/run.sh.

  pcaptool.py ports IN OUT OLD NEW   every TCP port OLD (either side) becomes NEW:
                                     the same run with another ephemeral port
  pcaptool.py twice IN OUT SECONDS   the packets, then the same packets again
                                     SECONDS later: one 4-tuple used twice
  pcaptool.py cat OUT IN[@SECONDS][:OLD=NEW]...
                                     the packets of each IN, its first
                                     SECONDS (0) after the first IN's first,
                                     port OLD made NEW, in time order: a run
                                     of several connections (one link type)

Ethernet (LINKTYPE 1) with IPv4 only; the TCP checksum is updated for the
new port (RFC 1624), so the result is as valid as the input.
"""
import struct
import sys


def records(data):
    """(header fields, packet bytes) of each record, and the byte order."""
    magic = data[:4]
    end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        yield end, [sec, frac, incl, orig], bytearray(data[off + 16:off + 16 + incl])
        off += 16 + incl


def csum_update(old_sum, old_word, new_word):
    """RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')."""
    s = (~old_sum & 0xFFFF) + (~old_word & 0xFFFF) + new_word
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def rewrite_ports(pkt, old, new):
    if len(pkt) < 14 + 20 or pkt[12:14] != b"\x08\x00" or pkt[23] != 6:
        return pkt
    tcp = 14 + (pkt[14] & 0x0F) * 4
    if len(pkt) < tcp + 18:
        return pkt
    for at in (tcp, tcp + 2):
        if struct.unpack("!H", pkt[at:at + 2])[0] == old:
            pkt[at:at + 2] = struct.pack("!H", new)
            s = struct.unpack("!H", pkt[tcp + 16:tcp + 18])[0]
            pkt[tcp + 16:tcp + 18] = struct.pack("!H", csum_update(s, old, new))
    return pkt


def cat(out_path, specs):
    """One run from several: each spec IN[@SECONDS][:OLD=NEW]."""
    out, recs, base = None, [], None
    for spec in specs:
        path, _, ports = spec.partition(":")
        path, _, shift = path.partition("@")
        data = open(path, "rb").read()
        if out is None:
            out = bytearray(data[:24])
        elif data[20:24] != out[20:24] or data[:4] != out[:4]:
            sys.exit(f"{path}: another link type or byte order than {specs[0]}")
        old, _, new = ports.partition("=")
        first = None
        for end, h, pkt in records(data):
            if ports:
                pkt = rewrite_ports(pkt, int(old), int(new))
            first = h[0] if first is None else first
            base = h[0] if base is None else base
            h[0] += base + int(shift or 0) - first  # whole seconds: the fractions stay
            recs.append((h[0], h[1], len(recs), end, h, pkt))
    for _, _, _, end, h, pkt in sorted(recs, key=lambda r: r[:3]):
        out += struct.pack(end + "IIII", *h) + pkt
    open(out_path, "wb").write(out)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "cat":
        cat(sys.argv[2], sys.argv[3:])
        return
    if len(sys.argv) < 4 or sys.argv[1] not in ("ports", "twice"):
        sys.exit(__doc__)
    data = open(sys.argv[2], "rb").read()
    out = bytearray(data[:24])
    recs = list(records(data))
    if sys.argv[1] == "ports":
        old, new = int(sys.argv[4]), int(sys.argv[5])
        recs = [(e, h, rewrite_ports(p, old, new)) for e, h, p in recs]
        passes = [0]
    else:
        passes = [0, int(sys.argv[4])]
    for shift in passes:
        for end, h, pkt in recs:
            out += struct.pack(end + "IIII", h[0] + shift, h[1], h[2], h[3]) + pkt
    open(sys.argv[3], "wb").write(out)


if __name__ == "__main__":
    main()
