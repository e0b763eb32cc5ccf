#!/usr/bin/env python3
"""gen_times.py - write hostile capture files about time and libtrace formats.

  gen_times.py OUTDIR
  gen_times.py --fuzz-seeds [CORPUS]   (re)write the hostile-* seeds of
      fuzz_tracefile, fuzz_pcapng_opts and fuzz_analyze under CORPUS
      (default tests/fuzz/corpus); repro-* files are never touched

Writes into OUTDIR one file per case and OUTDIR/MANIFEST, one line a case:

  NAME  URI-PREFIX  EXPECT  CLAMPED

NAME is the file; URI-PREFIX is what tcpsift is given before it ("-" for
none, "legacypos:" ...); EXPECT is "ok" (exit 0, no error line), "any"
(exit 0, or 3 with one error line: libtrace garbage), "abort" (libtrace
aborts after two good records: exit 3, one line naming the signal, the two
packets reported); CLAMPED is how many
packets carry a time outside 1970..2262 (summary.timestamps_clamped; "-"
for the libtrace cases, whose times are whatever the garbage says).
tests/hostile/times.sh runs them. Standard library only; the same bytes on
every run (the garbage comes from a seeded generator).

The capture cases hold one small TCP conversation (handshake, data both
ways, FIN both ways) whose packets are timed as each case says: classic pcap
at the end of its range (ts_sec 0xffffffff, us and ns magic, a fraction
beyond one second), pcapng with if_tsresol 2^-1 .. 2^-63 and 10^-0 ..
10^-19 and tick counts up to 2^64 - 1, if_tsoffset near +-2^63 s, times
going backwards by 2^62 ns, microsecond ticks of 2^60 (2^70 ns) and a step
across 2^63 ns.
"""
import os
import random
import struct
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from inetsum import csum  # noqa: E402

NS = 10**9
TS_MAX = 2**63 - 1


def frame(src, dst, sport, dport, seq, ack, flags, payload=b""):
    """Ethernet + IPv4 + TCP (no options)."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0x4000, 64, 6, 0,
                     bytes(src), bytes(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    eth = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00"
    return eth + ip + tcp


def conversation():
    """Ten frames of one connection: handshake, data both ways, FINs."""
    c, s = (10, 0, 0, 1), (10, 0, 0, 2)
    cp, sp = 40000, 80
    ci, si = 1000, 5000
    SYN, ACK, PSH, FIN = 0x02, 0x10, 0x08, 0x01
    return [
        frame(c, s, cp, sp, ci, 0, SYN),
        frame(s, c, sp, cp, si, ci + 1, SYN | ACK),
        frame(c, s, cp, sp, ci + 1, si + 1, ACK),
        frame(c, s, cp, sp, ci + 1, si + 1, PSH | ACK, b"G" * 100),
        frame(s, c, sp, cp, si + 1, ci + 101, ACK),
        frame(s, c, sp, cp, si + 1, ci + 101, PSH | ACK, b"H" * 200),
        frame(c, s, cp, sp, ci + 101, si + 201, ACK),
        frame(c, s, cp, sp, ci + 101, si + 201, FIN | ACK),
        frame(s, c, sp, cp, si + 201, ci + 102, FIN | ACK),
        frame(c, s, cp, sp, ci + 102, si + 202, ACK),
    ]


def pcap(times, nsmagic=False):
    """Classic pcap; times are (ts_sec, ts_frac) pairs."""
    out = struct.pack("<IHHiIII", 0xA1B23C4D if nsmagic else 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for f, (sec, frac) in zip(conversation(), times):
        out += struct.pack("<IIII", sec, frac, len(f), len(f)) + f
    return out


def opt(code, val):
    pad = (-len(val)) % 4
    return struct.pack("<HH", code, len(val)) + val + b"\0" * pad


def block(btype, body):
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def pcapng(ticks, tsresol=None, tsoffset=None):
    """pcapng, one interface with the given options; ticks per packet."""
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    opts = b""
    if tsresol is not None:
        opts += opt(9, bytes([tsresol]))
    if tsoffset is not None:
        opts += opt(14, struct.pack("<q", tsoffset))
    if opts:
        opts += opt(0, b"")
    out += block(0x00000001, struct.pack("<HHI", 1, 0, 0) + opts)
    for f, t in zip(conversation(), ticks):
        data = f + b"\0" * ((-len(f)) % 4)
        out += block(0x00000006, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(f), len(f)) + data)
    return out


def exact_ns(t, tsresol, tsoffset):
    """What a tick count means, exactly (the reader's arithmetic)."""
    r = 6 if tsresol is None else tsresol
    if r & 0x80:
        res = 1 << (r & 0x7F)
        sec, frac = divmod(t, res)
        ns = sec * NS + (frac * NS >> (r & 0x7F))
    else:
        res = 10**r
        sec, frac = divmod(t, res)
        ns = sec * NS + (frac * NS // res if r <= 9 else frac // (res // NS))
    return ns + (tsoffset or 0) * NS


def clamped(ns_list):
    return sum(1 for n in ns_list if n < 0 or n > TS_MAX)


def fuzz_seeds(root):
    """The same cases as fuzz inputs (tests/fuzz/fuzz_*.c give the formats)."""
    conv = conversation()
    rnd = random.Random(1313)
    seeds = {"fuzz_tracefile": {}, "fuzz_pcapng_opts": {}, "fuzz_analyze": {}}

    # fuzz_tracefile: [format index][trace bytes]; formats as in the target.
    tf = seeds["fuzz_tracefile"]
    fmts = ["legacyeth", "legacypos", "legacyatm", "erf", "rawerf", "tsh", "duck", "atmhdr", "fr+"]
    for i, f in enumerate(fmts):
        tf["hostile-garbage-" + f.replace("+", "plus")] = \
            bytes([i]) + bytes(rnd.getrandbits(8) for _ in range(600))

    def erf(times):
        out = b""
        for fr, t in zip(conv, times):
            out += struct.pack("<QBBHHH", t, 2, 0x04, 16 + 2 + len(fr), 0, len(fr) + 4) + b"\0\0" + fr
        return out
    tf["hostile-erf-conversation"] = bytes([3]) + erf([(1_700_000_000 << 32) + (k << 24) for k in range(10)])
    tf["hostile-erf-time-ends"] = bytes([3]) + erf(
        [2**64 - 1, 0, 2**63, 2**64 - 2, 5, 2**32, 7, 8, 9, 10])
    le = b""
    for fr in conv[:4]:
        le += struct.pack("<QH", 1 << 32, len(fr)) + b"\0" * 6 + fr[:48]
    tf["hostile-legacyeth-conversation"] = bytes([0]) + le

    # fuzz_pcapng_opts: [flags][chunks [len:2][bytes]]: the IDB's options,
    # then EPBs [ts:8][iface:1][options].
    po = seeds["fuzz_pcapng_opts"]

    def o(code, val, big=False):
        return struct.pack(">HH" if big else "<HH", code, len(val)) + val + b"\0" * ((-len(val)) % 4)

    def ch(b):
        return struct.pack(">H", len(b)) + b

    def epb(ts, iface=0, opts=b""):
        return ch(struct.pack(">QB", ts, iface) + opts)
    tss = [0, 1, 10**15, 2**60, 2**62, 2**63 - 1, 2**63, 2**64 - 1]
    for r in [0x81, 0x8A, 0xA0, 0xBF, 0xC0, 0xFF, 0, 3, 6, 9, 10, 12, 19, 20]:
        po["hostile-tsresol-%02x" % r] = bytes([0]) + ch(o(9, bytes([r])) + o(0, b"")) + \
            b"".join(epb(t) for t in tss)
    for off in [2**63 - 1, -2**63, 2**62, -(10**9), 9_223_372_036, -9_223_372_036, 1]:
        for big in (0, 1):
            idb = o(14, struct.pack(">q" if big else "<q", off), big) + o(9, b"\x09", big) + o(0, b"", big)
            po["hostile-tsoffset-%d-%s" % (off, "be" if big else "le")] = \
                bytes([big]) + ch(idb) + b"".join(epb(t) for t in tss)
    eo = o(2, struct.pack("<I", 1)) + o(4, struct.pack("<Q", 7)) + o(6, struct.pack("<I", 3)) + o(0, b"")
    bad = o(2, b"\1\2") + o(4, b"\1") + o(6, b"\1" * 8) + struct.pack("<HH", 2, 200)
    po["hostile-epb-options"] = bytes([6]) + ch(o(2, b"eth0\0") + o(9, b"\6") + o(0, b"")) + \
        ch(o(2, b"eth1") + o(9, b"\x89")) + epb(10**15, 0, eo) + epb(10**15 + 5, 1, eo) + \
        epb(2**64 - 1, 1, bad)
    po["hostile-idb-bad-lengths"] = bytes([0]) + ch(o(9, b"\1\2") + o(14, b"\1")) + epb(1)
    po["hostile-idb-overrun"] = bytes([0]) + ch(struct.pack("<HH", 9, 300) + b"\6") + epb(1)
    po["hostile-idb-two-tsresol"] = bytes([0]) + ch(o(9, b"\6") + o(9, b"\x09")) + epb(1)

    # fuzz_analyze, wide clock (0x40): step 255 sets the time to 8 bytes.
    def wide(times):
        out = bytearray([0x40])  # Ethernet
        for fr, t in zip(conv, times):
            out += struct.pack(">HB", len(fr), 255) + struct.pack(">q", t) + fr
        return bytes(out)
    an = seeds["fuzz_analyze"]
    an["hostile-times-end"] = wide([TS_MAX - 10**9 + k * 10**8 for k in range(10)])
    an["hostile-times-negative"] = wide([-2**63, -1, 10**18, -(10**9), 0, 2**62, -2**62, 5, TS_MAX, -7])
    an["hostile-times-back-2^62"] = wide([2**62 + k * 10**9 if k % 2 == 0 else k * 10**9 for k in range(10)])
    an["hostile-times-swing"] = wide([0, TS_MAX, 0, TS_MAX, 1, TS_MAX - 1, 2, TS_MAX - 2, 3, TS_MAX])

    for target, files in seeds.items():
        d = os.path.join(root, target)
        os.makedirs(d, exist_ok=True)
        for name in os.listdir(d):
            if name.startswith("hostile-") and name not in files:
                os.remove(os.path.join(d, name))
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "--fuzz-seeds":
        root = argv[2] if len(argv) > 2 else os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus")
        return fuzz_seeds(root)
    if len(argv) != 2:
        print("usage: gen_times.py OUTDIR", file=sys.stderr)
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    cases = []

    def put(name, data, prefix, expect, nclamped):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        cases.append((name, prefix, expect, str(nclamped)))

    # Classic pcap at the end of its range: all representable (< 2^62 ns).
    end = [(1_000_000_000 + k, 0) for k in range(3)] + [(0xFFFFFFFF, 999999)] * 4 + \
          [(0, 0), (0xFFFFFFFF, 999999), (0xFFFFFFFF, 0xFFFFFFFF)]
    put("pcap-us-end.pcap", pcap(end), "-", "ok", 0)
    endns = [(1_000_000_000 + k, 0) for k in range(3)] + [(0xFFFFFFFF, 999999999)] * 4 + \
            [(0, 0), (0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 999999999)]
    put("pcap-ns-end.pcap", pcap(endns, nsmagic=True), "-", "ok", 0)

    # pcapng resolutions, each with small, huge and maximal tick counts.
    ticks = [1, 1000, 2**32, 2**62, 2**63 - 1, 2**63, 2**64 - 1, 5, 2**64 - 2, 7]
    for r in [0x81, 0x8A, 0xA0, 0xBF, 0, 3, 6, 9, 12, 19]:
        name = "pcapng-resol-%s.pcapng" % (("2^-%d" % (r & 0x7F)) if r & 0x80 else "10^-%d" % r)
        ns = [exact_ns(t, r, None) for t in ticks]
        put(name, pcapng(ticks, tsresol=r), "-", "ok", clamped(ns))

    # if_tsoffset near +-2^63 s (and 0 ticks, as a Simple Packet Block has).
    for off in [2**63 - 1, -2**63, 2**62, -(10**9), 9_223_372_036]:
        t = [0, 1, 10**6, 2**40, 2**63, 3, 4, 2**64 - 1, 8, 9]
        ns = [exact_ns(x, None, off) for x in t]
        put("pcapng-offset-%d.pcapng" % off, pcapng(t, tsoffset=off), "-", "ok", clamped(ns))

    # Times going backwards by 2^62 ns and forth again (ns resolution).
    b = [2**62 + 10**9, 10**9, 2**62 + 2 * 10**9, 2 * 10**9, 2**62 + 3 * 10**9,
         3 * 10**9, 2**62 + 4 * 10**9, 4 * 10**9, 2**62 + 5 * 10**9, 5 * 10**9]
    put("pcapng-back-2^62.pcapng", pcapng(b, tsresol=9), "-", "ok", 0)
    # Microsecond ticks of 2^60 (2^70 ns) between sane ones.
    u = [10**15, 10**15 + 1, 2**60, 10**15 + 2, 2**60 + 1, 10**15 + 3, 2**61, 10**15 + 4,
         2**63, 10**15 + 5]
    put("pcapng-us-2^60.pcapng", pcapng(u), "-", "ok", clamped([exact_ns(x, None, None) for x in u]))
    # A step across 2^63 ns, 1 us at a time.
    a = [2**63 - 5000 + 1000 * k for k in range(10)]
    put("pcapng-across-2^63.pcapng", pcapng(a, tsresol=9), "-", "ok",
        clamped([exact_ns(x, 9, None) for x in a]))

    # legacypos records (ts 8, slen 4, wlen 4, 48 bytes): a wire length of
    # 0 trips libtrace 3's assert in legacypos_get_wire_length().
    lp = b"".join(struct.pack(">QII", (1_700_000_000 + k) << 32, 48, w) + bytes(range(48))
                  for k, w in enumerate([40, 40, 0, 70000]))
    put("legacypos-wlen-0.bin", lp, "legacypos:", "abort", "-")

    # Garbage through libtrace's formats: no abort, whatever it does.
    rnd = random.Random(13)
    for fmt in ["legacyeth", "legacypos", "legacyatm", "erf", "tsh"]:
        for k in range(3):
            data = bytes(rnd.getrandbits(8) for _ in range(4096 + 1024 * k))
            put("garbage-%s-%d.bin" % (fmt, k), data, fmt + ":", "any", "-")

    with open(os.path.join(out, "MANIFEST"), "w") as f:
        for c in cases:
            f.write(" ".join(c) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
