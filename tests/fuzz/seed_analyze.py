#!/usr/bin/env python3
"""seed_analyze.py - write the committed fuzz seed corpus, tests/fuzz/corpus/.

    tests/fuzz/seed_analyze.py           rewrite tests/fuzz/corpus/*/seed-*
    tests/fuzz/seed_analyze.py --check   exit 1 if they differ from what it writes
    tests/fuzz/seed_analyze.py --out DIR [--decode] [--max-bytes N] [--per-file N] CAPTURE...
                                         ad hoc: seeds from other captures (a long session)
    tests/fuzz/seed_analyze.py --to-pcap INPUT OUT.pcap
                                         a fuzz_analyze input as a pcap, to read it

Python 3 standard library only; the same inputs give the same bytes (no
clock, no randomness, samples in name order), so a reviewer reads the diff.

Two sources:

  synthetic  TCP conversations built here byte by byte, so each thing the
             engine must cope with is certainly in the corpus: the handshake
             with MSS/SACK-permitted/timestamps/window scale, a loss with
             dup ACKs and 1-3 SACK blocks, fast and RTO retransmissions,
             D-SACK, reordering, zero window and probes, keep-alive, FIN and
             RST, sequence wrap, IPv6 with extension headers, 802.1Q, QinQ,
             PPPoE, ICMP/ICMPv6 "packet too big", snaplen-cut and GSO frames,
             more flows than fuzz_analyze's table of 8, port reuse, a clock
             jump, and packets whose headers lie (IHL, lengths, data offset,
             option lengths, too many VLAN tags or IPv6 extension headers).
  samples    samples/*.pcap* and samples/bad/*.pcap (real Linux traffic),
             turned into the targets' own input formats.

Outputs, one folder per target (tests/fuzz/run.sh replays each):

  fuzz_analyze/   the conversations, also re-framed for every link type the
                  target knows, and windows of the samples. Format (see
                  fuzz_records.h): byte 0 = index into its fz_linktypes[]
                  (| 0x80: records carry a 2-byte wire extra); records of
                  [len:2][ms step:1][extra:2 if 0x80][bytes], big endian.
  fuzz_decode/    single packets, one per distinct header shape. Format (see
                  fuzz_decode.c): [link type index][wire extra code][packet].
  fuzz_savefile/  capture files around the same packets: pcap in both byte
                  orders and both resolutions, a snaplen-cut pcap, a pcapng
                  with two sections, three interfaces (if_name, if_tsresol
                  decimal and binary, if_tsoffset, if_description), EPBs with
                  options, an SPB, an obsolete PB, ISB, NRB and an unknown
                  block, and capture files with lying headers. (The reader's
                  own samples/ are replayed besides these.)

Generated files are named seed-*; a rewrite removes stale seed-* files and
leaves every other file (repro-*: minimised crash reproducers) alone.
"""
import argparse
import filecmp
import glob
import os
import re
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TARGETS = ("fuzz_analyze", "fuzz_decode", "fuzz_savefile", "fuzz_tui")


# ---- the targets' link type tables, read from their sources ----

def c_linktypes(path, array):
    """The PKT_LINKTYPE_* names (or numbers) of a C array, as LINKTYPE values,
    so the seeds follow the fuzz targets' tables instead of a copy of them."""
    with open(os.path.join(ROOT, "common/pkt.h")) as f:
        values = {m[0]: int(m[1]) for m in re.findall(r"(PKT_LINKTYPE_\w+)\s*=\s*(\d+)", f.read())}
    with open(os.path.join(HERE, path)) as f:
        src = f.read()
    body = re.search(re.escape(array) + r"\[\]\s*=\s*\{(.*?)\};", src, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    out = []
    for item in (x.strip() for x in body.split(",")):
        if item:
            out.append(values[item] if item in values else int(item))
    return out


ANALYZE_LT = c_linktypes("fuzz_records.h", "fz_linktypes")
DECODE_LT = c_linktypes("fuzz_decode.c", "fuzz_linktypes")


def c_key_names(path, array):
    """The curses key names of fuzz_tui.c's table, in order: key byte 0x80 + i."""
    with open(os.path.join(HERE, path)) as f:
        body = re.search(re.escape(array) + r"\[\]\s*=\s*\{(.*?)\};", f.read(), re.S).group(1)
    return [x.strip() for x in body.split(",") if x.strip()]


TUI_KEYS = c_key_names("fuzz_tui.c", "fz_keys")


def tui_keys(*parts):
    """Key bytes for fuzz_tui: strings are typed as they are, KEY_* names
    become 0x80 + their index in fz_keys[]."""
    out = b""
    for p in parts:
        out += bytes([0x80 + TUI_KEYS.index(p)]) if p.startswith("KEY_") else p.encode()
    return out


def tui_input(cols, rows, flags, keys, records):
    """[cols - 20][rows - 3][flags][nkeys][keys] + a fuzz_analyze input (fuzz_tui.c)."""
    assert 20 <= cols <= 275 and 3 <= rows <= 72 and len(keys) < 256
    return bytes([cols - 20, rows - 3, flags, len(keys)]) + keys + records


# ---- packet building ----

def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f">{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def tcp_options(*opts):
    """Options as Linux lays them out; ("raw", bytes) for anything else.
    Padded with NOPs in front of the last option to a multiple of 4."""
    out = b""
    for o in opts:
        kind = o[0]
        if kind == "mss":
            out += struct.pack(">BBH", 2, 4, o[1])
        elif kind == "sackok":
            out += b"\x04\x02"
        elif kind == "ts":
            out += struct.pack(">BBII", 8, 10, o[1] & 0xFFFFFFFF, o[2] & 0xFFFFFFFF)
        elif kind == "ws":
            out += struct.pack(">BBB", 3, 3, o[1])
        elif kind == "nop":
            out += b"\x01"
        elif kind == "sack":
            out += struct.pack(">BB", 5, 2 + 8 * len(o[1]))
            out += b"".join(struct.pack(">II", l & 0xFFFFFFFF, r & 0xFFFFFFFF) for l, r in o[1])
        elif kind == "raw":
            out += o[1]
    return out + b"\0" * (-len(out) % 4)


FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10, "U": 0x20, "E": 0x40, "C": 0x80}


def tcp(src, dst, sport, dport, seq, ack, flags, win, opts=b"", payload=b"", doff=None, urg=0):
    """A TCP segment with a correct checksum over the IPv4/IPv6 pseudo-header
    (addresses as bytes), unless doff lies."""
    fl = sum(FLAGS[c] for c in flags)
    hlen = 20 + len(opts)
    doff = hlen // 4 if doff is None else doff
    hdr = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                      doff << 4, fl, win, 0, urg) + opts
    seg = hdr + payload
    if len(src) == 4:
        pseudo = src + dst + struct.pack(">BBH", 0, 6, len(seg))
    else:
        pseudo = src + dst + struct.pack(">IxxxB", len(seg), 6)
    c = csum(pseudo + seg)
    return seg[:16] + struct.pack(">H", c) + seg[18:]


def ipv4(src, dst, proto, payload, ttl=64, ident=0, df=True, ihl=5, total=None, opts=b"",
         frag=0, version=4):
    hlen = 20 + len(opts)
    total = hlen + len(payload) if total is None else total
    fo = (0x4000 if df else 0) | frag
    hdr = struct.pack(">BBHHHBBH4s4s", version << 4 | ihl, 0, total & 0xFFFF, ident, fo, ttl,
                      proto, 0, src, dst) + opts
    return hdr[:10] + struct.pack(">H", csum(hdr)) + hdr[12:] + payload


def ipv6(src, dst, nh, payload, hlim=64, plen=None, flow=0x12345):
    plen = len(payload) if plen is None else plen
    return struct.pack(">IHBB16s16s", 6 << 28 | flow, plen & 0xFFFF, nh, hlim, src, dst) + payload


def ip6_ext(nh, body=b""):
    """A hop-by-hop / destination options / routing header: next header,
    length in 8-byte units beyond the first, PadN to fill."""
    n = len(body) + 2
    pad = -n % 8
    if pad == 1:
        body += b"\x00"
    elif pad:
        body += bytes([1, pad - 2]) + b"\0" * (pad - 2)
    return bytes([nh, (len(body) + 2) // 8 - 1]) + body


V4 = {"c": bytes([10, 0, 0, 1]), "s": bytes([10, 0, 0, 2])}
V6 = {"c": bytes.fromhex("fd000000000000000000000000000001"),
      "s": bytes.fromhex("fd000000000000000000000000000002")}
MAC = {"c": bytes.fromhex("020000000001"), "s": bytes.fromhex("020000000002")}


class Pkt:
    """One packet as captured: IP bytes (or a whole frame when l3 is None),
    the ms since the previous packet (255: fuzz_analyze's clock jump), how
    many bytes the capture kept (None: all) and the wire bytes beyond the
    IP packet (GSO frames report more than the IP length says)."""

    def __init__(self, step, ip, d="c", cut=None, frame=None, wire_extra=0, vlans=()):
        self.step, self.ip, self.d, self.cut = step, ip, d, cut
        self.frame, self.wire_extra, self.vlans = frame, wire_extra, vlans


class Conv:
    """One TCP connection; sequence and ACK numbers are given relative to
    each side's ISN (rel 0 = the SYN), as Wireshark shows them. Timestamps
    follow the packets' time; ecr echoes the peer's last value."""

    def __init__(self, ver=4, cport=40000, sport=80, isn=(1000000, 2000000), ts=True,
                 ws=7, mss=1460, vlans=()):
        self.ver, self.ts, self.ws, self.mss, self.vlans = ver, ts, ws, mss, vlans
        self.port = {"c": cport, "s": sport}
        self.isn = {"c": isn[0], "s": isn[1]}
        self.tsval = {"c": 100000, "s": 700000}
        self.last = {"c": 0, "s": 0}
        self.now = 0
        self.pkts = []

    def seg(self, d, flags, seq, n=0, ack=None, sack=(), win=None, step=1, extra_opts=(),
            opts=None, payload=None, cut=None, **ip_kw):
        """Append one segment from side d ("c" or "s"); returns it."""
        peer = "s" if d == "c" else "c"
        self.now += step
        tsval = self.tsval[d] + self.now
        if opts is None:
            o = []
            if "S" in flags:
                o = [("mss", self.mss), ("sackok",)]
                if self.ts:
                    o.append(("ts", tsval, self.last[peer]))
                if self.ws is not None:
                    o += [("nop",), ("ws", self.ws)]
            else:
                if self.ts:
                    o += [("nop",), ("nop",), ("ts", tsval, self.last[peer])]
                if sack:
                    o += [("nop",), ("nop",),
                          ("sack", [(self.isn[peer] + l, self.isn[peer] + r) for l, r in sack])]
            opts = tcp_options(*o, *extra_opts)
        self.last[d] = tsval
        if payload is None:
            payload = bytes((0x41 + (seq + i) % 26) for i in range(n))
        win = (65535 if "S" in flags else 502) if win is None else win
        a = 0 if ack is None else self.isn[peer] + ack
        if ack is not None and "A" not in flags:
            flags += "A"
        addr = V4 if self.ver == 4 else V6
        seg = tcp(addr[d], addr[peer], self.port[d], self.port[peer], self.isn[d] + seq, a, flags,
                  win, opts, payload)
        if self.ver == 4:
            ip = ipv4(addr[d], addr[peer], 6, seg, ident=len(self.pkts) & 0xFFFF, **ip_kw)
        else:
            ip = ipv6(addr[d], addr[peer], 6, seg, **ip_kw)
        p = Pkt(step, ip, d, cut=cut, vlans=self.vlans)
        self.pkts.append(p)
        return p

    def handshake(self, step=0):
        self.seg("c", "S", 0, step=step)
        self.seg("s", "SA", 0, ack=1)
        self.seg("c", "A", 1, ack=1)

    def close(self):
        c_end = self.c_next
        s_end = self.s_next
        self.seg("c", "FA", c_end, ack=s_end)
        self.seg("s", "FA", s_end, ack=c_end + 1)
        self.seg("c", "A", c_end + 1, ack=s_end + 1)

    c_next = s_next = 1


# ---- the conversations ----

def conv_loss_sack(ver=4):
    """Client upload of 100-byte segments: a loss with three dup ACKs and
    growing SACK blocks, fast retransmit, reordering, three holes at once
    (3 SACK blocks beside timestamps), an RTO retransmission answered with a
    D-SACK, zero window with probes and update, server data, keep-alive,
    FIN close."""
    c = Conv(ver=ver)
    c.handshake()
    sz = 100
    c.seg("c", "PA", 1, sz, ack=1, step=0)
    c.seg("c", "PA", 101, sz, ack=1, step=0)
    c.seg("s", "A", 1, ack=201)
    # 201 lost before the capture point; 301.. arrive
    for s in (301, 401, 501):
        c.seg("c", "PA", s, sz, ack=1, step=0)
    c.seg("s", "A", 1, ack=201, sack=[(301, 401)])
    c.seg("s", "A", 1, ack=201, sack=[(301, 501)], step=0)
    c.seg("s", "A", 1, ack=201, sack=[(301, 601)], step=0)
    c.seg("c", "PA", 201, sz, ack=1)  # fast retransmit
    c.seg("s", "A", 1, ack=601)
    # reordering: 801 overtakes 701
    c.seg("c", "PA", 601, sz, ack=1, step=0)
    c.seg("c", "PA", 801, sz, ack=1, step=0)
    c.seg("c", "PA", 701, sz, ack=1, step=0)
    c.seg("s", "A", 1, ack=701, sack=[(801, 901)])
    c.seg("s", "A", 1, ack=901, step=0)
    # three holes: 1001, 1201, 1401
    for s in (1101, 1301, 1501):
        c.seg("c", "PA", s, sz, ack=1, step=0)
    c.seg("s", "A", 1, ack=1001, sack=[(1101, 1201)])
    c.seg("s", "A", 1, ack=1001, sack=[(1301, 1401), (1101, 1201)], step=0)
    c.seg("s", "A", 1, ack=1001, sack=[(1501, 1601), (1301, 1401), (1101, 1201)], step=0)
    for s in (1001, 1201, 1401):
        c.seg("c", "PA", s, sz, ack=1)
    c.seg("s", "A", 1, ack=1201, sack=[(1301, 1401), (1501, 1601)])
    c.seg("s", "A", 1, ack=1401, sack=[(1501, 1601)], step=0)
    c.seg("s", "A", 1, ack=1601, step=0)
    # RTO: no ACK for 1601 within 220 ms, then a spurious retransmission
    c.seg("c", "PA", 1601, sz, ack=1, step=5)
    c.seg("c", "PA", 1601, sz, ack=1, step=220)
    c.seg("s", "A", 1, ack=1701, step=1)
    c.seg("s", "A", 1, ack=1701, sack=[(1601, 1701)], step=0)  # D-SACK (RFC 2883)
    # zero window: the receiver stops reading
    c.seg("c", "PA", 1701, sz, ack=1)
    c.seg("s", "A", 1, ack=1801, win=0)
    c.seg("c", "A", 1800, ack=1, step=200)  # probe: snd_una - 1 (Linux)
    c.seg("s", "A", 1, ack=1801, win=0)
    c.seg("c", "A", 1800, ack=1, step=250)
    c.seg("s", "A", 1, ack=1801, win=64)  # window update
    c.seg("c", "PA", 1801, sz, ack=1)
    # the server answers; the client idles and sends a keep-alive
    c.seg("s", "PA", 1, 300, ack=1901)
    c.seg("c", "A", 1901, ack=301)
    c.seg("c", "A", 1900, ack=301, step=254)
    c.seg("s", "A", 301, ack=1901)
    c.c_next, c.s_next = 1901, 301
    c.close()
    return c.pkts


def conv_ipv6_ext():
    """IPv6: hop-by-hop and destination options, an atomic fragment header
    (ends the walk), routing header; a loss and SACK; an ICMPv6 packet too
    big quoting a data segment."""
    c = Conv(ver=6, cport=40001, sport=443, isn=(0x7FFFFF00, 0x10))
    c.handshake()
    c.seg("c", "PA", 1, 200, ack=1, step=0)
    c.seg("c", "PA", 201, 200, ack=1, step=0)
    c.seg("c", "PA", 401, 200, ack=1, step=0)
    c.seg("s", "A", 1, ack=201, sack=[(401, 601)])
    c.seg("c", "PA", 201, 200, ack=1)
    c.seg("s", "A", 1, ack=601)
    big = c.seg("c", "PA", 601, 1200, ack=1, step=0)
    # ICMPv6 type 2: MTU 1280, quoting as much of the packet as fits
    quote = big.ip[:1232]
    icmp = struct.pack(">BBHI", 2, 0, 0, 1280) + quote
    src = bytes.fromhex("fd000000000000000000000000000005")
    pseudo = src + V6["c"] + struct.pack(">IxxxB", len(icmp), 58)
    icmp = icmp[:2] + struct.pack(">H", csum(pseudo + icmp)) + icmp[4:]
    c.pkts.append(Pkt(1, ipv6(src, V6["c"], 58, icmp), "s"))
    c.seg("c", "PA", 601, 1000, ack=1)
    c.seg("c", "PA", 1601, 200, ack=1, step=0)
    c.seg("s", "A", 1, ack=1801)
    # extension headers before TCP: hop-by-hop (router alert), destination
    # options, routing type 4 (segment routing) with segments left 0
    c.seg("s", "PA", 1, 50, ack=1801)
    tcp_part = c.pkts[-1].ip[40:]
    hbh = ip6_ext(60, b"\x05\x02\x00\x00")
    dst = ip6_ext(43, b"")
    rt = bytes([6, 2, 4, 0, 0, 0, 0, 0]) + V6["s"]
    c.pkts[-1].ip = ipv6(V6["s"], V6["c"], 0, hbh + dst + rt + tcp_part)
    c.seg("c", "A", 1801, ack=51)
    # atomic fragment (RFC 6946): offset 0, M = 0
    c.seg("s", "PA", 51, 50, ack=1801)
    tcp_part = c.pkts[-1].ip[40:]
    frag = struct.pack(">BBHI", 6, 0, 0, 0x1234)
    c.pkts[-1].ip = ipv6(V6["s"], V6["c"], 44, frag + tcp_part)
    c.seg("c", "A", 1801, ack=101)
    c.c_next, c.s_next = 1801, 101
    c.close()
    return c.pkts


def conv_vlan():
    """802.1Q VID 100, then 802.1ad S-VID 200 outside 802.1Q C-VID 300,
    then the old 0x9100 outer tag, then PPPoE session (RFC 2516) carrying
    IPv4: one short exchange each on its own ports."""
    out = []
    for k, vlans in enumerate([((0x8100, 100),), ((0x88A8, 200), (0x8100, 300)),
                               ((0x9100, 7), (0x8100, 8)), "pppoe"]):
        c = Conv(cport=41000 + k, sport=5001 + k, isn=(3000 + k, 9000 + k),
                 vlans=() if vlans == "pppoe" else vlans)
        c.handshake(step=1)
        c.seg("c", "PA", 1, 120, ack=1, step=0)
        c.seg("s", "A", 1, ack=121)
        c.seg("s", "PA", 1, 80, ack=121, step=0)
        c.seg("c", "A", 121, ack=81)
        c.c_next, c.s_next = 121, 81
        c.close()
        if vlans == "pppoe":
            for p in c.pkts:
                p.frame = pppoe(p.ip, p.d)
        out += c.pkts
    return out


def conv_snaplen():
    """A capture with snaplen 96: 1448-byte segments cut inside the payload,
    a 4344-byte GSO frame with IP total length 0 (captured before
    segmentation; the decoder presumes the length from the wire), an
    ICMP fragmentation-needed quoting a segment, and frames cut inside the
    TCP and the IP header."""
    c = Conv(cport=40002, sport=8080, isn=(5, 0xFFFFF000))
    c.handshake()
    for s in (1, 1449, 2897):
        c.seg("c", "PA", s, 1448, ack=1, step=0, cut=96)
    c.seg("s", "A", 1, ack=4345, cut=96)
    gso = c.seg("c", "PA", 4345, 4344, ack=1, step=0, cut=96, total=0)
    gso.wire_extra = 0
    c.seg("s", "A", 1, ack=8689, cut=96)
    big = c.seg("c", "PA", 8689, 1448, ack=1, step=0, cut=96)
    router = bytes([10, 0, 0, 254])
    icmp = struct.pack(">BBHHH", 3, 4, 0, 0, 1400) + big.ip[:28]
    icmp = icmp[:2] + struct.pack(">H", csum(icmp)) + icmp[4:]
    c.pkts.append(Pkt(1, ipv4(router, V4["c"], 1, icmp, df=False), "s"))
    c.seg("c", "PA", 8689, 1348, ack=1, cut=96)
    c.seg("c", "PA", 10037, 100, ack=1, step=0, cut=96)
    c.seg("s", "A", 1, ack=10137, cut=96)
    c.seg("c", "PA", 10137, 500, ack=1, cut=14 + 20 + 10)  # inside the TCP header
    c.seg("c", "PA", 10637, 500, ack=1, step=0, cut=14 + 12)  # inside the IP header
    c.seg("s", "A", 1, ack=11137, cut=96)
    c.c_next, c.s_next = 11137, 1
    c.close()
    return c.pkts


def conv_seq_wrap():
    """Both sequence spaces cross 2^32 mid-stream, SACK blocks straddling
    the wrap, no timestamps, no window scale."""
    c = Conv(cport=40003, sport=5004, isn=(0xFFFFFE00, 0xFFFFFFA0), ts=False, ws=None)
    c.handshake()
    for s in range(1, 1001, 100):
        if s != 401:
            c.seg("c", "PA", s, 100, ack=1, step=0)
    c.seg("s", "A", 1, ack=401, sack=[(501, 1001)])
    c.seg("c", "PA", 401, 100, ack=1)
    c.seg("s", "A", 1, ack=1001)
    c.seg("s", "PA", 1, 200, ack=1001, step=0)
    c.seg("c", "A", 1001, ack=201)
    c.c_next, c.s_next = 1001, 201
    c.close()
    return c.pkts


def conv_flows():
    """Twelve short connections against fuzz_analyze's table of 8 (eviction),
    the first 4-tuple reused after it closed with a new ISN, a simultaneous
    open, a SYN nobody answers (retransmitted), a RST with data, a
    half-open connection reset, and a 2^50 ns clock jump (step 255)."""
    pkts = []
    for k in range(12):
        c = Conv(cport=42000 + k, sport=9000, isn=(k * 7919, k * 104729))
        c.handshake(step=1)
        c.seg("c", "PA", 1, 40, ack=1, step=0)
        c.seg("s", "PA", 1, 60, ack=41)
        if k % 3 == 0:
            c.seg("c", "RA", 41, ack=61)
        else:
            c.c_next, c.s_next = 41, 61
            c.close()
        pkts += c.pkts
    c = Conv(cport=42000, sport=9000, isn=(0xDEADBEEF, 0x0BADCAFE))  # port reuse
    c.handshake(step=2)
    c.seg("c", "PA", 1, 40, ack=1, step=0)
    c.seg("s", "RA", 1, ack=41)
    pkts += c.pkts
    c = Conv(cport=6000, sport=6001, isn=(11, 22))  # simultaneous open
    c.seg("c", "S", 0, step=1)
    c.seg("s", "S", 0, step=0)
    c.seg("c", "SA", 0, ack=1)
    c.seg("s", "SA", 0, ack=1, step=0)
    c.seg("c", "PA", 1, 10, ack=1)
    c.seg("s", "A", 1, ack=11)
    pkts += c.pkts
    c = Conv(cport=43000, sport=22, isn=(77, 0))  # unanswered SYN
    for step in (1, 254, 254, 254, 254):
        c.seg("c", "S", 0, step=step)
    pkts += c.pkts
    c = Conv(cport=43001, sport=25, isn=(500, 600))
    c.handshake(step=1)
    c.seg("s", "RA", 1, 20, ack=1)  # RST carrying data (RFC 9293 3.5.3)
    c.seg("c", "PA", 1, 10, ack=1, step=255)  # half-open, days later
    c.seg("s", "R", 1, step=0)
    pkts += c.pkts
    return pkts


def conv_lying():
    """Packets whose headers lie, among good packets of one connection so
    they reach the flow's state: option lengths 0/1/past the header, a SACK
    length that is not 2 + 8n, SACK blocks inverted or far away, MSS and
    timestamps of the wrong length, window scale 15, data offsets 2 and 15,
    IHL 3 and 15, IPv4 total length too short and too long, IPv4 options,
    fragments, version 5, IPv6 payload length too long, an extension
    header chain running off the packet and one longer than the decoder
    walks, 9 VLAN tags, a bad PPPoE version, runt and ARP frames, odd flag
    combinations and an urgent pointer."""
    c = Conv(cport=44000, sport=80, isn=(1 << 31, (1 << 31) + 5))
    c.handshake()
    c.seg("c", "PA", 1, 50, ack=1, step=0)
    c.seg("s", "A", 1, ack=51)
    bad_opts = [
        ("raw", b"\x08\x00" + b"\0" * 10),               # kind 8, length 0
        ("raw", b"\x02\x01\x00\x00"),                     # MSS, length 1
        ("raw", b"\x05\x22" + b"\0" * 10),                # SACK of 34 bytes in 12
        ("raw", b"\x05\x0b" + b"\0" * 9 + b"\0"),         # SACK length 11
        ("raw", b"\x02\x03\x05"),                         # MSS length 3
        ("raw", b"\x08\x09" + b"\0" * 7),                 # timestamps length 9
        ("raw", b"\x03\x03\x0f"),                         # wscale 15 (> 14)
        ("raw", b"\x1e\x04\x00\x00"),                     # MPTCP-ish unknown kind
        ("raw", b"\x00" + b"\x02\x04\x05\xb4"),           # EOL, then an MSS
    ]
    s = 51
    for o in bad_opts:
        c.seg("c", "PA", s, 10, ack=1, opts=tcp_options(o))
        s += 10
    c.seg("s", "A", 1, ack=s, sack=[(s + 500, s + 100)])                  # inverted
    c.seg("s", "A", 1, ack=s, sack=[(s + 0x40000000, s + 0x40000010)])    # far away
    c.seg("s", "A", 1, ack=s, sack=[(s - 0x1000, s - 0x0800)])            # way below
    c.seg("s", "A", 1, ack=s, sack=[(1, 11), (21, 31), (41, 51), (61, 71)],
          opts=tcp_options(("sack", [(c.isn["c"] + 1, c.isn["c"] + 11)] * 4)))
    c.seg("s", "A", 1, ack=s + 100000)                                     # ACKs unseen data
    c.seg("c", "PUA", s, 10, ack=1)                                        # urgent
    c.pkts[-1].ip = c.pkts[-1].ip[:20] + c.pkts[-1].ip[20:38] + b"\x00\x05" + c.pkts[-1].ip[40:]
    c.seg("c", "FSRPAUEC", s + 10, 10, ack=1)                              # every flag
    c.seg("c", "SF", s + 20, 10)                                           # SYN+FIN with data
    good = c.seg("c", "PA", s + 30, 10, ack=1)
    tcp_hdr = good.ip[20:]
    a, b = V4["c"], V4["s"]
    lies = [
        ipv4(a, b, 6, tcp_hdr, ihl=3),
        ipv4(a, b, 6, tcp_hdr, ihl=15),
        ipv4(a, b, 6, tcp_hdr, total=10),
        ipv4(a, b, 6, tcp_hdr, total=1400),
        ipv4(a, b, 6, tcp_hdr, ihl=7, opts=b"\x01\x01\x01\x00" + b"\x94\x04\x00\x00"),
        ipv4(a, b, 6, tcp_hdr, df=False, frag=0x2000),                    # MF
        ipv4(a, b, 6, tcp_hdr, df=False, frag=0x0010),                    # offset 128
        ipv4(a, b, 6, tcp_hdr, version=5),
        ipv4(a, b, 6, tcp_hdr[:12] + b"\x20" + tcp_hdr[13:]),             # data offset 2
        ipv4(a, b, 6, tcp_hdr[:12] + b"\xf0" + tcp_hdr[13:]),             # data offset 15
        ipv4(a, b, 6, tcp_hdr[:10]),                                      # TCP header cut
        ipv4(a, b, 1, b"\x03\x04\x00\x00\x00\x00\x05\x78" + b"\x45\x00"),  # ICMP quote cut
        ipv4(a, b, 1, b"\x03"),                                           # ICMP cut
        ipv4(a, b, 17, b"\x00\x35\x00\x35\x00\x08\x00\x00"),              # UDP
        ipv6(V6["c"], V6["s"], 6, tcp_hdr, plen=1400),
        ipv6(V6["c"], V6["s"], 0, ip6_ext(60) + b"\x06\x05"),             # chain off the end
        ipv6(V6["c"], V6["s"], 60, b"".join(ip6_ext(60) for _ in range(16)) + ip6_ext(6) + tcp_hdr),
        ipv6(V6["c"], V6["s"], 44, struct.pack(">BBHI", 6, 0, 0x0009, 1) + tcp_hdr),  # frag 8+M
        ipv6(V6["c"], V6["s"], 59, b""),                                  # no next header
    ]
    pkts = c.pkts
    for ip in lies:
        pkts.append(Pkt(1, ip, "c"))
    eth = MAC["s"] + MAC["c"]
    frames = [
        eth + b"".join(struct.pack(">HH", 0x8100, v) for v in range(1, 10)) + b"\x08\x00" + good.ip,
        eth + b"\x88\x64" + b"\x21\x00\x00\x01\x00\x16\x00\x21" + good.ip,  # PPPoE ver 2
        eth + b"\x88\x64" + b"\x11\x00\x00\x01\xff\xff\x00\x21" + good.ip,  # PPPoE length lies
        eth + b"\x81\x00",                                                  # tag cut
        eth[:10],                                                           # runt
        b"",
        eth + b"\x08\x06" + bytes.fromhex("0001080006040001") + MAC["c"] + V4["c"] + b"\0" * 6 + V4["s"],
        eth + b"\x88\xcc" + b"\x02\x07\x04" + MAC["c"] + b"\x00\x00",       # LLDP
        eth + b"\x00\x40" + b"\xaa" * 64,                                   # 802.3 length
    ]
    for f in frames:
        pkts.append(Pkt(1, None, "c", frame=f))
    c.c_next, c.s_next = s + 40, 1
    c.close()
    return pkts


CONVERSATIONS = [
    ("v4-loss-sack", lambda: conv_loss_sack(4)),
    ("v6-loss-sack", lambda: conv_loss_sack(6)),
    ("v6-ext-ptb", conv_ipv6_ext),
    ("vlan-qinq-pppoe", conv_vlan),
    ("snaplen-gso-icmp", conv_snaplen),
    ("seq-wrap", conv_seq_wrap),
    ("flows-evict-reuse", conv_flows),
    ("lying-headers", conv_lying),
]


# ---- framing ----

def pppoe(ip, d):
    ppp = b"\x00\x21" + ip
    return (MAC["s" if d == "c" else "c"] + MAC[d] + b"\x88\x64" +
            struct.pack(">BBHH", 0x11, 0, 0x0001, len(ppp)) + ppp)


def frame(p, lt):
    """The link-layer frame of p for LINKTYPE lt, or None when p cannot be
    carried there (a prebuilt Ethernet frame, a VLAN tag without Ethernet)."""
    if p.frame is not None:
        return p.frame if lt == 1 else None
    if p.vlans and lt != 1:
        return None
    ip = p.ip
    ver = ip[0] >> 4 if ip else 4
    etype = 0x86DD if ver == 6 else 0x0800
    if lt == 1:
        dst, src = (MAC["s"], MAC["c"]) if p.d == "c" else (MAC["c"], MAC["s"])
        tags = b"".join(struct.pack(">HH", tpid, vid) for tpid, vid in p.vlans)
        return dst + src + tags + struct.pack(">H", etype) + ip
    if lt in (101, 12, 14, 228, 229):
        if (lt == 228 and ver != 4) or (lt == 229 and ver != 6):
            return None
        return ip
    if lt == 0:  # BSD loopback, AF in host order: Linux's 10, or Darwin's 30
        return struct.pack("<I", 2 if ver == 4 else 30) + ip
    if lt == 108:  # OpenBSD loopback, network order; AF_INET6 24
        return struct.pack(">I", 2 if ver == 4 else 24) + ip
    if lt == 113:  # Linux cooked v1: packet type, ARPHRD_ETHER, address
        ptype = 4 if p.d == "c" else 0
        return struct.pack(">HHH8sH", ptype, 1, 6, MAC[p.d], etype) + ip
    if lt == 276:  # Linux cooked v2: protocol, ifindex, ARPHRD_ETHER, type
        ptype = 4 if p.d == "c" else 0
        return struct.pack(">HHIHBB8s", etype, 0, 2, 1, ptype, 6, MAC[p.d]) + ip
    return None


def captured(p, lt):
    """(caplen bytes, wirelen) of p on link type lt, or None."""
    f = frame(p, lt)
    if f is None:
        return None
    wire = len(f) + p.wire_extra
    if p.cut is not None and p.cut < len(f):
        return f[: p.cut + (len(f) - len(p.ip) - 14 if p.ip is not None else 0)], wire
    return f, wire


# ---- capture files: the samples, and the synthetic ones written here ----

def read_pcap(buf):
    """[(linktype, ts_ns, data, wirelen)] of a classic pcap, [] if not one."""
    for endian in "<>":
        magic = struct.unpack(endian + "I", buf[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            nano = magic == 0xA1B23C4D
            break
    else:
        return []
    linktype = struct.unpack(endian + "I", buf[20:24])[0] & 0x0FFFFFFF
    out, off = [], 24
    while off + 16 <= len(buf):
        sec, frac, incl, orig = struct.unpack(endian + "IIII", buf[off : off + 16])
        off += 16
        data = buf[off : off + min(incl, 0x40000)]
        off += incl
        out.append((linktype, sec * 10**9 + frac * (1 if nano else 1000), data, orig))
    return out


def read_pcapng(buf):
    """The same from a pcapng: EPBs and SPBs, each section's IDBs, integer
    time (if_tsresol decimal or binary)."""
    out, off, endian, ifaces = [], 0, "<", []
    while off + 12 <= len(buf):
        btype = struct.unpack(endian + "I", buf[off : off + 4])[0]
        if btype == 0x0A0D0D0A:  # SHB: the byte-order magic decides
            endian = "<" if buf[off + 8 : off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            ifaces = []
        blen = struct.unpack(endian + "I", buf[off + 4 : off + 8])[0]
        if blen < 12 or off + blen > len(buf):
            break
        body = buf[off + 8 : off + blen - 4]
        if btype == 1 and len(body) >= 8:  # IDB: link type, then options
            lt = struct.unpack(endian + "H", body[:2])[0]
            per_s, o = 10**6, 8
            while o + 4 <= len(body):
                code, olen = struct.unpack(endian + "HH", body[o : o + 4])
                if code == 0:
                    break
                if code == 9 and olen >= 1:
                    v = body[o + 4]
                    per_s = 1 << (v & 0x7F) if v & 0x80 else 10**v
                o += 4 + (olen + 3) // 4 * 4
            ifaces.append((lt, per_s))
        elif btype == 6 and len(body) >= 20:  # EPB
            ifid, hi, lo, cap, orig = struct.unpack(endian + "IIIII", body[:20])
            if ifid < len(ifaces):
                lt, per_s = ifaces[ifid]
                out.append((lt, ((hi << 32) | lo) * 10**9 // per_s, body[20 : 20 + cap], orig))
        elif btype == 3 and ifaces and len(body) >= 4:  # SPB: interface 0, no time
            orig = struct.unpack(endian + "I", body[:4])[0]
            out.append((ifaces[0][0], out[-1][1] if out else 0, body[4 : 4 + orig], orig))
        off += blen
    return out


def read_capture(path):
    with open(path, "rb") as f:
        buf = f.read()
    if len(buf) < 24:
        return []
    if buf[:4] == b"\x0a\x0d\x0d\x0a":
        return read_pcapng(buf)
    return read_pcap(buf)


def timeline(pkts, base=1700000000 * 10**9):
    """Capture times in ns from the packets' ms steps (255: one second here)."""
    t, out = base, []
    for k, p in enumerate(pkts):
        t += (1000 if p.step == 255 else p.step) * 10**6 + 1000 * (k % 7)
        out.append(t)
    return out


def pcap_file(pkts, lt, endian="<", nano=False, snaplen=262144):
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, lt)
    for p, t in zip(pkts, timeline(pkts)):
        c = captured(p, lt)
        if c is None:
            continue
        data, wire = c
        data = data[:snaplen]
        frac = t % 10**9 if nano else t % 10**9 // 1000
        out += struct.pack(endian + "IIII", t // 10**9, frac, len(data), wire) + data
    return out


def ng_opt(e, code, val):
    return struct.pack(e + "HH", code, len(val)) + val + b"\0" * (-len(val) % 4)


def ng_opts(e, opts):
    return b"".join(ng_opt(e, c, v) for c, v in opts) + (struct.pack(e + "HH", 0, 0) if opts else b"")


def ng_block(e, btype, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack(e + "II", btype, n) + body + struct.pack(e + "I", n)


def ng_shb(e, opts=()):
    return ng_block(e, 0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1) + ng_opts(e, opts))


def ng_idb(e, lt, snaplen=0, opts=()):
    return ng_block(e, 1, struct.pack(e + "HHI", lt, 0, snaplen) + ng_opts(e, opts))


def ng_epb(e, ifid, ticks, data, wire, opts=()):
    return ng_block(e, 6, struct.pack(e + "IIIII", ifid, ticks >> 32, ticks & 0xFFFFFFFF,
                                      len(data), wire) + data + b"\0" * (-len(data) % 4)
                    + ng_opts(e, opts))


def pcapng_multi():
    """Two sections. The first, little endian: an SHB with options, three
    IDBs (Ethernet in ns with if_tsoffset, raw IP in 2^-20 s, Linux SLL2 in
    the default us, each with if_name; one with if_description and a
    snaplen of 128), EPBs on all three with opt_comment, epb_flags (in and
    outbound), epb_dropcount, epb_queue, epb_hash and a custom option; an
    SPB, an obsolete PB, an NRB, an ISB and an unknown block. The second,
    big endian, one Ethernet IDB and EPBs."""
    e = "<"
    v4 = conv_loss_sack(4)
    v6 = conv_ipv6_ext()
    out = ng_shb(e, [(2, b"x86_64"), (3, b"Linux 6.1"), (4, b"seed_analyze.py"), (1, b"section 1")])
    out += ng_idb(e, 1, 0, [(2, b"eth0"), (3, b"uplink"), (9, b"\x09"),
                            (14, struct.pack(e + "q", 1700000000))])
    out += ng_idb(e, 101, 0, [(2, b"tun0"), (9, b"\x94")])
    out += ng_idb(e, 276, 128, [(2, b"any")])
    t4, t6 = timeline(v4), timeline(v6)
    # interleave: v4 on eth0 (and a copy of every 4th on tun0), v6 on any
    for k, (p, t) in enumerate(zip(v4, t4)):
        data, wire = captured(p, 1)
        t_rel = t - 1700000000 * 10**9  # eth0 has if_tsoffset 1700000000 s
        opts = [(2, struct.pack(e + "I", 1 if p.d == "c" else 2))]
        if k % 5 == 0:
            opts += [(1, b"packet %d" % k), (4, struct.pack(e + "Q", k)), (6, struct.pack(e + "I", k % 4))]
        if k == 3:
            opts += [(3, b"\x02" + struct.pack(">I", 0xDEADBEEF)), (2988, struct.pack(">I", 32473) + b"x")]
        out += ng_epb(e, 0, t_rel, data, wire, opts)
        if k % 4 == 0:
            data, wire = captured(p, 101)
            out += ng_epb(e, 1, t * (1 << 20) // 10**9, data, wire)
        if k < len(v6):
            c6 = captured(v6[k], 276)
            if c6 is not None:
                data, wire = c6
                out += ng_epb(e, 2, t6[k] // 1000, data[:128], wire)
        if k == 6:  # SPB: interface 0, whole packet, no time
            data, wire = captured(p, 1)
            out += ng_block(e, 3, struct.pack(e + "I", wire) + data)
        if k == 7:  # obsolete PB: interface 16 bits, drops 16 bits
            data, wire = captured(p, 1)
            out += ng_block(e, 2, struct.pack(e + "HHIIII", 0, 3, t_rel >> 32, t_rel & 0xFFFFFFFF,
                                              len(data), wire) + data + b"\0" * (-len(data) % 4))
        if k == 9:  # NRB: one IPv4 record, end
            nrb = struct.pack(e + "HH", 1, 4 + 8) + V4["s"] + b"server\0\0" + struct.pack(e + "HH", 0, 0)
            out += ng_block(e, 4, nrb)
        if k == 10:  # unknown block type, skipped
            out += ng_block(e, 0x00000BAD, b"local block data")
    isb = struct.pack(e + "III", 0, t4[-1] >> 32, t4[-1] & 0xFFFFFFFF)
    isb += ng_opts(e, [(4, struct.pack(e + "Q", len(v4))), (5, struct.pack(e + "Q", 2)),
                       (8, struct.pack(e + "Q", 1))])
    out += ng_block(e, 5, isb)
    e = ">"
    out += ng_shb(e, [(1, b"section 2, big endian")])
    out += ng_idb(e, 1, 262144, [(2, b"eth1")])
    sw = conv_seq_wrap()
    for p, t in zip(sw, timeline(sw)):
        data, wire = captured(p, 1)
        out += ng_epb(e, 0, t // 1000, data, wire)
    return out


def bad_captures():
    """Capture files that lie about themselves: name -> bytes."""
    v4 = conv_loss_sack(4)[:6]
    good = pcap_file(v4, 1)
    le = "<"
    rec = good[24:]
    first_len = 16 + struct.unpack("<I", rec[8:12])[0]
    out = {}
    # pcap: caplen above the header's snaplen; wirelen below caplen;
    # file cut inside a record header; reserved link-type bits set
    hdr = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 40, 1)
    out["bad-caplen-over-snaplen.pcap"] = hdr + rec
    r0 = bytearray(rec[:first_len])
    r0[12:16] = struct.pack("<I", 20)
    out["bad-wirelen-under-caplen.pcap"] = good[:24] + bytes(r0) + rec[first_len:]
    out["bad-cut-in-record-header.pcap"] = good[: 24 + first_len + 9]
    out["bad-linktype-reserved.pcap"] = good[:20] + struct.pack("<I", 1 | 0x00300000) + rec
    out["bad-version.pcap"] = good[:4] + struct.pack("<HH", 3, 0) + good[8:]
    # pcapng
    shb = ng_shb(le)
    idb = ng_idb(le, 1, 0, [(2, b"eth0")])
    data, wire = captured(v4[0], 1)
    epb = ng_epb(le, 0, 1, data, wire)
    trailer_lies = epb[:-4] + struct.pack("<I", len(epb) + 4)
    out["bad-ng-trailer-length.pcapng"] = shb + idb + trailer_lies
    cap_lies = bytearray(epb)
    cap_lies[20:24] = struct.pack("<I", len(data) + 400)
    out["bad-ng-epb-caplen-past-block.pcapng"] = shb + idb + bytes(cap_lies)
    out["bad-ng-unknown-interface.pcapng"] = shb + idb + ng_epb(le, 5, 1, data, wire)
    out["bad-ng-no-idb.pcapng"] = shb + epb
    over = ng_block(le, 1, struct.pack(le + "HHI", 1, 0, 0) + struct.pack(le + "HH", 2, 200) + b"eth0")
    out["bad-ng-idb-option-overrun.pcapng"] = shb + over + epb
    out["bad-ng-tsresol-too-fine.pcapng"] = shb + ng_idb(le, 1, 0, [(9, b"\x1e")]) + epb
    out["bad-ng-two-tsresol.pcapng"] = shb + ng_idb(le, 1, 0, [(9, b"\x06"), (9, b"\x09")]) + epb
    epb_opt_over = bytearray(ng_epb(le, 0, 1, data, wire, [(1, b"comment")]))
    o = 8 + 20 + len(data) + (-len(data) % 4)
    epb_opt_over[o + 2 : o + 4] = struct.pack("<H", 0x400)
    out["bad-ng-epb-option-overrun.pcapng"] = shb + idb + bytes(epb_opt_over)
    unaligned = bytearray(epb)
    unaligned[4:8] = struct.pack("<I", len(epb) - 2)
    out["bad-ng-block-length-unaligned.pcapng"] = shb + idb + bytes(unaligned)
    v2 = bytearray(shb)
    v2[12:14] = struct.pack("<H", 2)
    out["bad-ng-shb-version-2.pcapng"] = bytes(v2) + idb + epb
    out["bad-ng-cut-in-block.pcapng"] = (shb + idb + epb)[:-7]
    return out


# ---- the targets' input formats ----

def analyze_input(records, lt):
    """records: [(step ms, data, wirelen)] -> a fuzz_analyze input; the wire
    extra form (0x80) only when a record was cut."""
    head = ANALYZE_LT.index(lt)
    cut = any(w > len(d) for _, d, w in records)
    out = bytearray([head | (0x80 if cut else 0)])
    for step, data, wire in records:
        data = data[:0xFFFF]
        out += struct.pack(">HB", len(data), min(step, 255))
        if cut:
            out += struct.pack(">H", min(max(wire - len(data), 0), 0xFFFF))
        out += data
    return bytes(out)


def analyze_to_pcap(buf):
    """A fuzz_analyze input as a classic pcap (ns), read as the target reads
    it, so tcpsift or tshark can show what a seed or a crasher holds."""
    if not buf:
        return b""
    lt = ANALYZE_LT[(buf[0] & 0x3F) % len(ANALYZE_LT)]
    rec_hdr = 5 if buf[0] & 0x80 else 3
    wide = buf[0] & 0x40  # step 255 sets the clock to the next 8 bytes
    out = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 0x40000, lt)
    off, ts = 1, 1000 * 10**9
    while off + rec_hdr <= len(buf):
        n, step = struct.unpack(">HB", buf[off : off + 3])
        extra = struct.unpack(">H", buf[off + 3 : off + 5])[0] if rec_hdr == 5 else 0
        off += rec_hdr
        if step == 255 and wide:
            v = int.from_bytes(buf[off : off + 8], "big")
            off += min(8, len(buf) - off)
            ts = v - (1 << 64) if v >> 63 else v
        else:
            ts += (1 << 50) if step == 255 else step * 10**6
        ts = min(max(ts, 0), (1 << 63) - 1)  # as the engine and a reader saturate
        # classic pcap holds 32-bit seconds: later times wrap there (tcpsift
        # would read 2106 at most), so this view is exact only up to 2106
        data = buf[off : off + n]
        off += len(data)
        out += struct.pack("<IIII", ts // 10**9 & 0xFFFFFFFF, ts % 10**9, len(data), len(data) + extra) + data
    return out


def decode_input(lt, data, wire):
    """fuzz_decode: link type index, wire extra code (0..127 as is, above in
    1 KiB steps), the packet's first 256 bytes (headers)."""
    data = data[:256]
    extra = max(0, wire - len(data))
    code = extra if extra < 128 else min(255, 127 + (extra + 1023) // 1024)
    return bytes([DECODE_LT.index(lt), code]) + data


def shape(lt, data):
    """What makes two packets different for the decoder, as a key: the link
    type, the encapsulations crossed, the IP version, header lengths,
    fragment bits and how the IP length relates to the capture, the TCP data
    offset, flags, option kinds and lengths, whether there is payload. Not
    addresses, ports, numbers or checksums, which only vary."""
    key = [lt]
    if lt == 1:
        off, et = 12, None
        while off + 2 <= len(data):
            et = struct.unpack(">H", data[off : off + 2])[0]
            key.append(et)
            off += 2
            if et in (0x8100, 0x88A8, 0x9100) and len(key) < 12:
                off += 2
            elif et == 0x8864:
                key.append(data[off : off + 2])
                off += 8
                et = 0x0800
                break
            else:
                break
    else:
        off = {0: 4, 108: 4, 113: 16, 276: 20}.get(lt, 0)
    ip = data[off:]
    key.append(len(data) == off)
    if len(ip) >= 20 and ip[0] >> 4 == 4:
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack(">H", ip[2:4])[0]
        fo = struct.unpack(">H", ip[6:8])[0] & 0x3FFF
        key += [4, ihl, fo != 0, ip[9], (tot > len(ip)) - (tot < len(ip)), tot == 0]
        l4, proto = ip[ihl:], ip[9]
    elif len(ip) >= 40 and ip[0] >> 4 == 6:
        nh, o, plen = ip[6], 40, struct.unpack(">H", ip[4:6])[0]
        key += [6, (plen + 40 > len(ip)) - (plen + 40 < len(ip))]
        while nh in (0, 43, 44, 60) and o + 8 <= len(ip) and len(key) < 40:
            key.append(nh)
            nh, o = ip[o], o + (8 if nh == 44 else (ip[o + 1] + 1) * 8)
        l4, proto = ip[o:], nh
        key.append(nh)
    else:
        return tuple(key + [len(ip), bytes(ip[:2])])
    if proto == 6 and len(l4) >= 14:
        doff = (l4[12] >> 4) * 4
        key += [doff, l4[13], len(l4) > doff]
        o = 20
        while o < min(doff, len(l4)) and len(key) < 60:
            kind = l4[o]
            key.append(kind)
            if kind in (0, 1):
                o += 1
                continue
            if o + 1 >= len(l4):
                break
            key.append(l4[o + 1])
            o += max(l4[o + 1], 2)
    elif proto in (1, 58) and l4:
        key += [l4[0], len(l4) // 32]
    else:
        key.append(len(l4))
    return tuple(key)


def sample_windows(pkts, max_bytes, per_file):
    """fuzz_analyze inputs from a capture: windows of consecutive packets of
    the first packet's link type, the first from the first packet (the
    handshakes), the rest evenly spread."""
    if not pkts or pkts[0][0] not in ANALYZE_LT:
        return []
    lt = pkts[0][0]
    pkts = [p for p in pkts if p[0] == lt]
    cut = any(orig > len(data) for _, _, data, orig in pkts)
    windows, cur, size, prev = [], [], 1, None
    for _, ts, data, orig in pkts:
        step = 0 if prev is None else min(254, max(0, (ts - prev) // 10**6))
        prev = ts
        rec = 3 + (2 if cut else 0) + min(len(data), 0xFFFF)
        if rec + 1 > max_bytes:
            continue
        if size + rec > max_bytes:
            windows.append(cur)
            cur, size = [], 1
        cur.append((step, data, orig))
        size += rec
    if cur:
        windows.append(cur)
    if len(windows) > per_file:
        pick = [round(k * (len(windows) - 1) / (per_file - 1)) for k in range(per_file)] if per_file > 1 else [0]
        windows = [windows[k] for k in pick]
    return [analyze_input(w, lt) for w in windows]


def sample_decode(pkts, per_file, seen):
    out = []
    for lt, _, data, orig in pkts:
        if lt not in DECODE_LT:
            continue
        key = shape(lt, bytes(data))
        if key in seen:
            continue
        seen.add(key)
        out.append(decode_input(lt, data, orig))
        if len(out) >= per_file:
            break
    return out


# ---- the corpus ----

def corpus_files():
    """{target: {name: bytes}} of every generated seed."""
    out = {t: {} for t in TARGETS}
    an, de, sf = out["fuzz_analyze"], out["fuzz_decode"], out["fuzz_savefile"]
    seen = set()
    for name, make in CONVERSATIONS:
        pkts = make()
        for lt in ANALYZE_LT:
            recs = [(p.step, *c) for p in pkts if (c := captured(p, lt)) is not None]
            # Ethernet carries every conversation; the others the two
            # plain ones, so each link type has real flows in the corpus.
            if recs and (lt == 1 or name in ("v4-loss-sack", "v6-loss-sack")):
                an[f"seed-synth-{name}-lt{lt}"] = analyze_input(recs, lt)
        # Every header shape once on Ethernet; on the other link types
        # (their framing is a few bytes) the first few of the plain flows.
        for lt in DECODE_LT:
            k = 0
            for p in pkts:
                c = captured(p, lt)
                if c is None or (lt != 1 and (k >= 3 or "loss-sack" not in name)):
                    continue
                key = shape(lt, c[0])
                if key in seen:
                    continue
                seen.add(key)
                de[f"seed-synth-{name}-lt{lt}-{k}"] = decode_input(lt, *c)
                k += 1
    # a link type the decoder does not know, and nothing but the header
    unknown = [lt for lt in DECODE_LT if lt not in (0, 1, 12, 14, 101, 108, 113, 228, 229, 276)]
    if unknown:
        de["seed-synth-unknown-linktype"] = bytes([DECODE_LT.index(unknown[0]), 0]) + b"\x45" * 40
    de["seed-synth-empty"] = bytes([DECODE_LT.index(1), 0])
    an["seed-synth-empty"] = bytes([0])

    # The dashboard: a few conversations at the usual sizes, in the small
    # and the wide, with the keys people press (move, open the detail, sort,
    # filter by BPF and by substring, freeze, help, resize).
    tu = out["fuzz_tui"]
    scripts = {
        "none": (80, 24, 0x03, b""),
        "move-detail": (80, 24, 0x03, tui_keys("jjj\n", "KEY_DOWN", "KEY_UP", "\x1b", "G\n")),
        "sort-freeze": (132, 40, 0x01, tui_keys("sssS", "f", "KEY_NPAGE", "KEY_PPAGE", "s", "f")),
        "filter-bpf": (100, 30, 0x07, tui_keys("/port 80\n", "j\n", "/tcp and host 10.0.0.1\n")),
        "filter-substring": (90, 24, 0x2b, tui_keys("/10.0\n", "/\x7f\x7f\x7fzz", "\x1b", "/\n")),
        "help-resize": (250, 60, 0xe3, tui_keys("?", "x", "KEY_RESIZE", "jj\n", "KEY_RESIZE", "KEY_END")),
        "tiny": (20, 3, 0x12, tui_keys("j\n", "?", "q", "/a\n", "KEY_HOME")),
    }
    for conv, lt in (("v4-loss-sack", 1), ("v6-loss-sack", 1), ("flows-evict-reuse", 1), ("seq-wrap", 1)):
        recs = an.get(f"seed-synth-{conv}-lt{lt}")
        if recs is None:
            continue
        for key, (cols, rows, flags, keys) in scripts.items():
            tu[f"seed-synth-{conv}-{key}"] = tui_input(cols, rows, flags, keys, recs)
    tu["seed-synth-empty"] = tui_input(80, 24, 0, b"", b"")

    sf["seed-synth-v4-le-us.pcap"] = pcap_file(conv_loss_sack(4), 1)
    sf["seed-synth-v6-be-ns.pcap"] = pcap_file(conv_ipv6_ext(), 1, endian=">", nano=True)
    sf["seed-synth-snaplen96.pcap"] = pcap_file(conv_snaplen(), 1, snaplen=96)
    sf["seed-synth-v6-sll2.pcap"] = pcap_file(conv_loss_sack(6), 276)
    sf["seed-synth-lying-headers.pcap"] = pcap_file(conv_lying(), 1)
    sf["seed-synth-multi.pcapng"] = pcapng_multi()
    for name, data in bad_captures().items():
        sf["seed-" + name] = data

    samples = sorted(glob.glob(os.path.join(ROOT, "samples/*.pcap")) +
                     glob.glob(os.path.join(ROOT, "samples/*.pcapng")) +
                     glob.glob(os.path.join(ROOT, "samples/bad/*.pcap")))
    for path in samples:
        rel = os.path.relpath(path, os.path.join(ROOT, "samples")).replace("/", "-")
        pkts = read_capture(path)
        for k, s in enumerate(sample_windows(pkts, 4096, 2)):
            an[f"seed-sample-{rel}-{k}"] = s
        for k, s in enumerate(sample_decode(pkts, 4, seen)):
            de[f"seed-sample-{rel}-{k}"] = s
    return out


def self_check(files):
    """The synthetic captures read back as the packets written (the readers
    above are what turns samples into seeds)."""
    for name in ("seed-synth-v4-le-us.pcap", "seed-synth-v6-be-ns.pcap"):
        pk = read_pcap(files["fuzz_savefile"][name])
        assert len(pk) > 20 and all(len(d) == w for _, _, d, w in pk), name
    ng = read_pcapng(files["fuzz_savefile"]["seed-synth-multi.pcapng"])
    assert len({lt for lt, _, _, _ in ng}) == 3, "pcapng: three link types"
    assert all(b >= a for a, b in zip(
        [t for lt, t, _, _ in ng if lt == 101], [t for lt, t, _, _ in ng if lt == 101][1:])), \
        "pcapng: binary if_tsresol times increase"


def write_corpus(root, files):
    for target, seeds in files.items():
        d = os.path.join(root, target)
        os.makedirs(d, exist_ok=True)
        for old in glob.glob(os.path.join(d, "seed-*")):
            if os.path.basename(old) not in seeds:
                os.remove(old)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="compare with the committed corpus instead of writing it")
    ap.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--out", help="ad hoc: write seeds from CAPTURE... into this folder")
    ap.add_argument("--decode", action="store_true", help="ad hoc: fuzz_decode's format")
    ap.add_argument("--max-bytes", type=int, default=8192)
    ap.add_argument("--per-file", type=int, default=8)
    ap.add_argument("--to-pcap", nargs=2, metavar=("INPUT", "PCAP"),
                    help="write a fuzz_analyze input (a seed, a crasher) as a pcap")
    ap.add_argument("captures", nargs="*")
    a = ap.parse_args()

    if a.to_pcap:
        with open(a.to_pcap[0], "rb") as f:
            pcap = analyze_to_pcap(f.read())
        with open(a.to_pcap[1], "wb") as f:
            f.write(pcap)
        return 0

    if a.out:
        os.makedirs(a.out, exist_ok=True)
        total, seen = 0, set()
        for path in a.captures:
            try:
                pkts = read_capture(path)
            except (OSError, struct.error) as e:
                print(f"seed_analyze.py: {path}: {e}", file=sys.stderr)
                continue
            seeds = (sample_decode(pkts, a.per_file, seen) if a.decode
                     else sample_windows(pkts, a.max_bytes, a.per_file))
            for k, s in enumerate(seeds):
                with open(os.path.join(a.out, f"{os.path.basename(path)}-{k}"), "wb") as f:
                    f.write(s)
            total += len(seeds)
        print(f"seed_analyze.py: {total} seeds in {a.out}", file=sys.stderr)
        return 0
    if a.captures:
        ap.error("captures only with --out")

    files = corpus_files()
    self_check(files)
    if a.check:
        with tempfile.TemporaryDirectory() as tmp:
            write_corpus(tmp, files)
            bad = 0
            for t in TARGETS:
                want = sorted(os.listdir(os.path.join(tmp, t)))
                have_dir = os.path.join(a.corpus, t)
                have = sorted(f for f in os.listdir(have_dir) if f.startswith("seed-")) \
                    if os.path.isdir(have_dir) else []
                for n in sorted(set(want) | set(have)):
                    if n not in have:
                        print(f"missing: {t}/{n}")
                    elif n not in want:
                        print(f"stale: {t}/{n}")
                    elif filecmp.cmp(os.path.join(tmp, t, n), os.path.join(have_dir, n), shallow=False):
                        continue
                    else:
                        print(f"differs: {t}/{n}")
                    bad += 1
            print(f"seed_analyze.py: {'corpus up to date' if not bad else f'{bad} files differ'}",
                  file=sys.stderr)
            return 1 if bad else 0
    write_corpus(a.corpus, files)
    n = sum(len(s) for s in files.values())
    size = sum(len(d) for s in files.values() for d in s.values())
    print(f"seed_analyze.py: {n} seeds, {size} bytes in {a.corpus}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
