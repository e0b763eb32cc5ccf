#!/usr/bin/python3
"""peer.py - a scripted TCP peer on a tun device, with an emulated path.

Used by tests/exact/cases.py inside a network namespace that run.sh made:
tun0 holds 192.0.2.1 (the kernel's side) with a route to 192.0.2.2 (this
peer). Every IPv4 packet the kernel sends to 192.0.2.2 is read here from
/dev/net/tun (IFF_TUN|IFF_NO_PI: bare IP packets), and every packet this
peer "sends" is a scapy-built IP/TCP packet written back into tun0.

The path is emulated with one event heap, never by sleeping in line:

    kernel --write--> tun0 --read (t)--> [d_in] --> peer sees it at t+d_in
    kernel <--read--- tun0 <-write (t+d_out)--- [d_out] <-- peer sends at t

so RTT = d_in + d_out (asymmetric allowed). Two captures come out:
  near.pcap  the kernel host's wire: stamped when a packet is read from or
             written to tun0 (what `tcpdump -i tun0` would stamp);
  far.pcap   the peer's own vantage: kernel packets at their delivery time
             (never, when dropped: "lost upstream of the peer"), the peer's
             packets at their logical send time.
Both are classic pcap, microsecond stamps, LINKTYPE_RAW (101), as
`tcpdump -w` writes on a tun device. truth.jsonl logs every action.

Run only with /usr/bin/python3 (Debian's scapy), never a pyenv python3.
"""
import fcntl
import heapq
import json
import os
import select
import struct
import subprocess
import time

from scapy.layers.inet import IP, TCP  # noqa: E402 (Debian python3-scapy)

KERNEL_IP = "192.0.2.1"
PEER_IP = "192.0.2.2"
PEER_PORT = 80
KERNEL_PORT = 8080  # the kernel app's listener when the peer is the client
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
MSS = 1460  # what the peer announces; the kernel's segments carry 1448 with TS


def seq_lt(a, b):
    return ((a - b) & 0xFFFFFFFF) >= 0x80000000


def seq_le(a, b):
    return a == b or seq_lt(a, b)


class Pcap:
    """Classic pcap writer (magic a1b2c3d4, µs, linktype 101 = raw IP)."""

    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101))

    def write(self, t, data):
        us = int(round(t * 1e6))
        self.f.write(struct.pack("<IIII", us // 1000000, us % 1000000, len(data), len(data)))
        self.f.write(data)

    def close(self):
        self.f.close()


class Path:
    """The tun device, the event heap and both vantage records.

    Times are CLOCK_MONOTONIC seconds; `wall()` maps them to the realtime
    clock for the pcaps. `now` is the logical time of the event being run
    (its due time), so far.pcap and the log carry the exact emulated delays
    whatever Python's scheduling jitter.
    """

    def __init__(self, outdir, d_in_ms, d_out_ms):
        self.d_in = d_in_ms / 1000.0
        self.d_out = d_out_ms / 1000.0
        self.fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(self.fd, TUNSETIFF, struct.pack("16sH", b"tun0", IFF_TUN | IFF_NO_PI))
        self.off = time.time() - time.monotonic()
        self.heap = []
        self.n_ev = 0
        self.now = time.monotonic()
        self.t0 = self.now
        self.near = Pcap(os.path.join(outdir, "near.pcap"))
        self.far = Pcap(os.path.join(outdir, "far.pcap"))
        self.logf = open(os.path.join(outdir, "truth.jsonl"), "w")
        # Per vantage: list of packet records (dicts), in capture order.
        self.rec = {"near": [], "far": []}
        self.on_kernel_read = None  # callback(pkt_record) -> deliver? (bool)
        self.on_deliver = None      # callback(pkt_record, scapy IP)
        self.n_pkt = 0
        # The most any event ran after its due time (s): a host that
        # starves this process stretches the emulated path past what the
        # case scripts (cases.py reports it, run.sh runs such a case again).
        self.late = 0.0

    def wall(self, t):
        return t + self.off

    def log(self, ev, **kw):
        kw = dict(ev=ev, t=round(self.wall(self.now), 6),
                  rel_ms=round((self.now - self.t0) * 1000, 3), **kw)
        self.logf.write(json.dumps(kw, sort_keys=True) + "\n")

    def at(self, due, fn, *args):
        self.n_ev += 1
        heapq.heappush(self.heap, (due, self.n_ev, fn, args))
        return self.n_ev

    def after(self, secs, fn, *args):
        return self.at(self.now + secs, fn, *args)

    def _record(self, vantage, t, rec):
        r = dict(rec, t=t)
        self.rec[vantage].append(r)
        return r

    # --- the kernel's packets: read now, delivered d_in later (or dropped)
    def _read_tun(self):
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            t = time.monotonic()
            self.now = t
            self.near.write(self.wall(t), data)
            ip = IP(data)
            self.n_pkt += 1
            rec = describe(ip, "k2p", self.n_pkt)
            deliver = True
            if self.on_kernel_read is not None and rec["tcp"]:
                deliver = self.on_kernel_read(rec)  # adds k, tx, rel
            rec["dropped"] = not deliver
            self._record("near", t, rec)
            if deliver:
                self.after(self.d_in, self._deliver, data, rec)

    def _deliver(self, data, rec):
        self.far.write(self.wall(self.now), data)
        self._record("far", self.now, rec)
        if self.on_deliver is not None and rec["tcp"]:
            self.on_deliver(rec, IP(data))

    # --- the peer's packets: sent now (far), written to tun d_out later
    def send(self, ip):
        data = bytes(ip)
        self.n_pkt += 1
        rec = describe(IP(data), "p2k", self.n_pkt)
        self.far.write(self.wall(self.now), data)
        self._record("far", self.now, rec)
        self.after(self.d_out, self._write_tun, data, rec)
        return rec

    def _write_tun(self, data, rec):
        os.write(self.fd, data)
        t = time.monotonic()
        self.near.write(self.wall(t), data)
        self._record("near", t, rec)

    def run(self, done, deadline):
        """Run events until done() holds or the monotonic deadline passes."""
        while not done() and time.monotonic() < deadline:
            t = time.monotonic()
            while self.heap and self.heap[0][0] <= t:
                due, _, fn, args = heapq.heappop(self.heap)
                self.late = max(self.late, t - due)
                self.now = due
                fn(*args)
                t = time.monotonic()
            wait = min(deadline - t, 0.05)
            if self.heap:
                wait = min(wait, max(0.0, self.heap[0][0] - t))
            r, _, _ = select.select([self.fd], [], [], wait)
            if r:
                self._read_tun()

    def close(self):
        self.near.close()
        self.far.close()
        self.logf.close()
        os.close(self.fd)


def describe(ip, direction, pid):
    """The facts about a packet that cases and expectations use."""
    rec = {"id": pid, "dir": direction, "tcp": False}
    if not ip.haslayer(TCP):
        return rec
    tcp = ip[TCP]
    payload = bytes(tcp.payload)
    flags = str(tcp.flags)
    rec.update(tcp=True, seq=tcp.seq, ack=tcp.ack, flags=flags, win=tcp.window,
               len=len(payload), ipid=ip.id, psh="P" in flags)
    for name, val in tcp.options:
        if name == "Timestamp":
            rec["tsval"], rec["tsecr"] = val
        elif name == "SAck":
            rec["sack"] = list(val)
    return rec


class Peer:
    """The scripted TCP endpoint at 192.0.2.2:80.

    Keeps just enough TCP state to be a correct receiver (rcv_nxt, the
    out-of-order intervals it SACKs, RFC 7323 TS.Recent) and sender of small
    replies (snd_nxt); all policy (when to ACK, what window, what to drop)
    belongs to the case, which gets every delivered segment through
    case.on_segment(peer, rec, info).
    """

    def __init__(self, path, case, role):
        self.path = path
        self.case = case
        self.role = role  # "server": the kernel connects to us; "client"
        self.iss = 0x10000000
        self.snd_nxt = self.iss
        self.irs = None
        self.rcv_nxt = None
        self.ooo = []          # [start, end) intervals above rcv_nxt
        self.last_rx = None    # (start, end) of the latest data segment
        self.dsack = None      # (start, end) pending D-SACK block
        self.ts_recent = 0
        self.last_ack_sent = None
        self.window = case.syn_window
        self.kport = None
        self.established = False
        self.fin_rcvd = False
        self.fin_acked = False
        self.delack_ev = None   # pending delayed ACK (event id)
        self.unacked_since = None  # logical time of the oldest unACKed data
        self.unacked_segs = 0
        self.data_seen = 0     # kernel data segments read from tun (k index)
        self.tx_count = {}     # seq -> transmissions read from tun
        self.rx_bytes = 0      # in-order bytes received
        self.ipid = 1
        path.on_kernel_read = self._on_read
        path.on_deliver = self._on_deliver

    # --- helpers
    def ms(self):
        return int((self.path.now - self.path.t0) * 1000) + 1000

    def rel(self, seq):
        return (seq - self.irs - 1) & 0xFFFFFFFF

    def _opts(self, syn=False):
        o = []
        if syn:
            o += [("MSS", MSS), ("SAckOK", b"")]
        o += [("Timestamp", (self.ms(), self.ts_recent))]
        if syn:
            o += [("NOP", None), ("WScale", 0)]
        elif self.established:
            blocks = self._sack_blocks()
            if blocks:
                o += [("NOP", None), ("NOP", None), ("SAck", tuple(blocks))]
        return o

    def _sack_blocks(self):
        out = []
        if self.dsack is not None:
            out += list(self.dsack)
        # RFC 2018: the block holding the latest segment first, then the rest.
        ivs = sorted(self.ooo, key=lambda iv: not (self.last_rx and iv[0] <= self.last_rx[0] < iv[1]))
        for s, e in ivs[:3 - len(out) // 2]:
            out += [s & 0xFFFFFFFF, e & 0xFFFFFFFF]
        return out

    def _ip(self, flags, payload=b"", syn=False, window=None):
        win = self.window if window is None else window
        self.ipid += 1
        pkt = IP(src=PEER_IP, dst=KERNEL_IP, id=self.ipid, ttl=64) / TCP(
            sport=PEER_PORT, dport=self.kport, seq=self.snd_nxt & 0xFFFFFFFF,
            ack=(self.rcv_nxt or 0) & 0xFFFFFFFF, flags=flags, window=min(win, 65535),
            options=self._opts(syn))
        if payload:
            pkt = pkt / payload
        return pkt

    # --- what the peer does
    def connect(self):
        """Peer as client: SYN to the kernel's listener (KERNEL_PORT)."""
        self.kport = KERNEL_PORT
        self.path.log("syn", window=self.window)
        pkt = IP(src=PEER_IP, dst=KERNEL_IP, id=1, ttl=64) / TCP(
            sport=PEER_PORT, dport=KERNEL_PORT, seq=self.iss, flags="S",
            window=self.window, options=self._opts(syn=True))
        self.snd_nxt = self.iss + 1
        self.path.send(pkt)

    def ack_now(self, why, window=None):
        if self.delack_ev is not None:
            self._cancel_delack()
        held = None if self.unacked_since is None else round((self.path.now - self.unacked_since) * 1000, 3)
        pkt = self._ip("A", window=window)
        rec = self.path.send(pkt)
        self.path.log("ack", ack=self.rel(self.rcv_nxt), why=why, held_ms=held,
                      window=self.window if window is None else window,
                      sack=[self.rel(x) for x in self._sack_blocks()], pkt=rec["id"])
        self._acked()
        return rec

    def _acked(self):
        self.last_ack_sent = self.rcv_nxt
        self.unacked_since = None
        self.unacked_segs = 0
        self.dsack = None

    def delack(self, ms, why="delayed"):
        """Arm a delayed ACK ms after now unless one is pending."""
        if self.delack_ev is None:
            self.delack_ev = self.path.after(ms / 1000.0, self._delack_fire, why)

    def _cancel_delack(self):
        self.path.heap = [e for e in self.path.heap if e[1] != self.delack_ev]
        heapq.heapify(self.path.heap)
        self.delack_ev = None

    def _delack_fire(self, why):
        self.delack_ev = None
        if self.unacked_since is not None:
            rec = self.ack_now(why)
            self.case.marks.setdefault("delayed_acks", []).append(rec["id"])

    def send_data(self, n, why="reply", psh=True):
        if self.delack_ev is not None:
            self._cancel_delack()
        pkt = self._ip("PA" if psh else "A", payload=b"r" * n)
        rec = self.path.send(pkt)
        self.path.log("data", bytes=n, why=why, seq=(self.snd_nxt - self.iss - 1), pkt=rec["id"],
                      ack=self.rel(self.rcv_nxt))
        self.snd_nxt += n
        self._acked()
        return rec

    def set_window(self, win, update=False, why="window"):
        self.window = win
        self.path.log("window", window=win, why=why)
        if update:
            return self.ack_now("window update " + why)
        return None

    def drop_log(self, rec, why):
        self.path.log("drop", pkt=rec["id"], seq=self.rel(rec["seq"]), len=rec["len"],
                      tx=self.tx_count.get(rec["seq"], 0), why=why)

    # --- kernel packets
    def _on_read(self, rec):
        """At read time (the near wire): count data segments, ask the case
        whether this one is dropped before it reaches the peer."""
        if rec["len"] == 0 or self.irs is None:
            return True
        self.data_seen += 1
        self.tx_count[rec["seq"]] = self.tx_count.get(rec["seq"], 0) + 1
        rec["k"] = self.data_seen
        rec["tx"] = self.tx_count[rec["seq"]]
        rec["rel"] = self.rel(rec["seq"])
        if self.case.drop(self, rec):
            self.drop_log(rec, "scripted drop")
            return False
        return True

    def _on_deliver(self, rec, ip):
        tcp = ip[TCP]
        flags = rec["flags"]
        if "S" in flags:
            return self._on_syn(rec, tcp)
        if self.irs is None:
            return
        # RFC 7323 4.3: TS.Recent from any segment at or below Last.ACK.sent,
        # so a delayed or stretch ACK echoes the oldest segment it covers.
        if "tsval" in rec and seq_le(tcp.seq, self.last_ack_sent) and seq_le(self.ts_recent, rec["tsval"]):
            self.ts_recent = rec["tsval"]
        if not self.established and "A" in flags:
            self.established = True
            self.path.log("established", role=self.role)
            self.case.on_established(self)
        if self.fin_rcvd and "A" in flags and tcp.ack == (self.snd_nxt & 0xFFFFFFFF):
            self.fin_acked = True  # our FIN is ACKed: the connection is over
        if rec["len"] or "F" in flags:
            self._on_data(rec, tcp)
        else:
            self.case.on_ack(self, rec)

    def _on_syn(self, rec, tcp):
        self.irs = tcp.seq
        self.rcv_nxt = tcp.seq + 1
        self.last_ack_sent = self.rcv_nxt
        self.ts_recent = rec.get("tsval", 0)
        self.kport = tcp.sport
        if "A" in rec["flags"]:        # SYN-ACK to our SYN: complete it
            self.path.log("synack", kport=tcp.sport)
            self.ack_now("handshake")
            self.established = True
            self.path.log("established", role=self.role)
            self.case.on_established(self)
            return
        self.path.log("syn_rcvd", kport=tcp.sport, window=self.window)
        pkt = IP(src=PEER_IP, dst=KERNEL_IP, id=1, ttl=64) / TCP(
            sport=PEER_PORT, dport=self.kport, seq=self.iss, ack=self.rcv_nxt & 0xFFFFFFFF,
            flags="SA", window=self.window, options=self._opts(syn=True))
        self.snd_nxt = self.iss + 1
        self.path.send(pkt)
        self.case.on_synack_sent(self)

    def _on_data(self, rec, tcp):
        start = tcp.seq
        end = start + rec["len"]
        fin = "F" in rec["flags"]
        info = {"new": 0, "dup": 0, "ooo": False, "rtx": rec.get("tx", 1) >= 2}
        if rec["len"]:
            if seq_le(end, self.rcv_nxt):
                info["dup"] = rec["len"]
                self.dsack = (start, end)
            elif seq_lt(self.rcv_nxt, start):
                info["ooo"] = True
                self._add_ooo(start, end)
            else:
                if seq_lt(start, self.rcv_nxt):  # partly duplicate
                    info["dup"] = (self.rcv_nxt - start) & 0xFFFFFFFF
                    self.dsack = (start, self.rcv_nxt)
                old = self.rcv_nxt
                self.rcv_nxt = end
                self._absorb_ooo()
                info["new"] = (self.rcv_nxt - old) & 0xFFFFFFFF
                self.rx_bytes += info["new"]
            self.last_rx = (start, end)
            if self.unacked_since is None:
                self.unacked_since = self.path.now
            self.unacked_segs += 1
        self.path.log("rx", pkt=rec["id"], seq=self.rel(start), len=rec["len"], k=rec.get("k"),
                      tx=rec.get("tx"), **info)
        if fin and seq_le(end, self.rcv_nxt) and not self.fin_rcvd:
            self.fin_rcvd = True
            self.rcv_nxt += 1
            if self.delack_ev is not None:
                self._cancel_delack()
            self.path.log("fin_rcvd")
            # Close our side at once: FIN+ACK (the kernel app has closed).
            pkt = self._ip("FA")
            self.snd_nxt += 1
            self.path.send(pkt)
            self._acked()
            return
        self.case.on_segment(self, rec, info)

    def _add_ooo(self, s, e):
        self.ooo.append([s, e])
        self.ooo.sort(key=lambda iv: (iv[0] - self.rcv_nxt) & 0xFFFFFFFF)
        merged = []
        for iv in self.ooo:
            if merged and seq_le(iv[0], merged[-1][1]):
                if seq_lt(merged[-1][1], iv[1]):
                    merged[-1][1] = iv[1]
            else:
                merged.append(list(iv))
        self.ooo = merged

    def _absorb_ooo(self):
        keep = []
        for s, e in self.ooo:
            if seq_le(s, self.rcv_nxt):
                if seq_lt(self.rcv_nxt, e):
                    self.rcv_nxt = e
            else:
                keep.append([s, e])
        self.ooo = keep


def ack_policy(peer, info, policy):
    """The ACK rules the cases share (RFC 1122 4.2.3.2 / RFC 5681 4.2, as
    Linux's __tcp_ack_snd_check applies them):
      "immediate": every data segment ACKed at once;
      ("delack", ms): out-of-order or duplicate data ACKed at once, two
          unACKed full-sized segments ACKed at once, else a timer of ms;
      "every2": every second segment ACKed at once, an odd one waits for
          the next segment (no timer): the TLP/RTO cases' receiver, so the
          tail is not ACKed on its own and the sender keeps two packets out.
          A retransmission (the path knows: it has seen the seq before) is
          ACKed at once, or a lone retransmitted tail would wait forever.
    """
    if info["ooo"] or info["dup"] or policy == "immediate":
        return peer.ack_now("out-of-order" if info["ooo"] else "duplicate" if info["dup"] else "immediate")
    if info["rtx"]:
        return peer.ack_now("retransmission")
    if policy == "every2":
        if peer.unacked_segs >= 2:
            return peer.ack_now("every 2nd segment")
        return None
    kind, ms = policy
    if peer.unacked_segs >= 2 and peer.last_rx and (peer.last_rx[1] - peer.last_rx[0]) >= 1448:
        return peer.ack_now("two full segments")
    peer.delack(ms, "delayed %d ms" % ms)
    return None


# --- ground truth from the kernel side -----------------------------------

def nstat_snapshot():
    """Absolute TcpExt/Tcp counters of this namespace (`nstat -asz`)."""
    out = subprocess.run(["nstat", "-asz"], capture_output=True, text=True,
                         env=dict(os.environ, NSTAT_HISTORY="/dev/null")).stdout
    vals = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[1].isdigit():
            vals[f[0]] = int(f[1])
    return vals


TCP_INFO_FIELDS = ("rto ato snd_mss rcv_mss unacked sacked lost retrans fackets last_data_sent "
                   "last_ack_sent last_data_recv last_ack_recv pmtu rcv_ssthresh rtt rttvar "
                   "snd_ssthresh snd_cwnd advmss reordering rcv_rtt rcv_space total_retrans").split()


def tcp_info(sock):
    """struct tcp_info (linux/tcp.h): 8 single bytes, then u32 fields."""
    import socket as so
    raw = sock.getsockopt(so.IPPROTO_TCP, so.TCP_INFO, 256)
    state, ca_state, retransmits, probes, backoff = struct.unpack_from("5B", raw, 0)
    vals = struct.unpack_from("%dI" % len(TCP_INFO_FIELDS), raw, 8)
    info = dict(zip(TCP_INFO_FIELDS, vals))
    info.update(state=state, ca_state=ca_state, retransmits=retransmits, probes=probes,
                backoff=backoff)
    return info
