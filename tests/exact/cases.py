#!/usr/bin/python3
"""cases.py - the exact cases: a kernel app, a scripted peer, the truth.

    /usr/bin/python3 cases.py NAME D_IN_MS D_OUT_MS OUTDIR     (inside the namespace)
    /usr/bin/python3 cases.py --list

Runs case NAME once: the kernel side is a socket in this process's child
(fork), the far side is peer.Peer on tun0 with one-way delays D_IN (kernel
to peer) and D_OUT (peer to kernel). Writes OUTDIR/near.pcap, far.pcap,
truth.jsonl (every action of the peer and the path), kernel.json (the app's
TCP_INFO and write times, nstat deltas of the namespace) and expect.json:
what tcpsift must find at each vantage, derived from that ground truth
(nstat counts, the peer's log, the silences in each capture), never from
tcpsift. judge.py compares a report with expect.json.
"""
import json
import os
import socket
import sys
import termios
import time
import fcntl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer as P  # noqa: E402

SEG = 1448  # the kernel's payload per segment: MSS 1460 - 12 (timestamps)
# tcpsift analyze's --stall-min default: a silence shorter than this is no
# stall, whatever ended it (a 2 ms path's probe timer fires at 8-12 ms).
# Within a timer tick (HZ=250: 4 ms) of it the capture's clock and the
# peer's may disagree on which side a silence falls: such a stall may be
# reported or not ("maybe", judge.py).
STALL_MIN_MS = 10.0
STALL_MIN_SLACK_MS = 1.0
SO_MAX_PACING_RATE = 47  # asm-generic/socket.h (Python's socket module lacks it)


def timer_stall(cls, gap):
    """The stall a timer's silence of gap ms makes, None when it is below
    --stall-min."""
    if gap < STALL_MIN_MS - STALL_MIN_SLACK_MS:
        return None
    st = stall(cls, "s2c", tol(gap))
    if gap < STALL_MIN_MS + STALL_MIN_SLACK_MS:
        st["maybe"] = True
    return st


def tol(ms, pct=10, floor=5):
    """Duration tolerance: ±pct %, at least ±floor ms (HZ=250: 4 ms ticks)."""
    d = max(ms * pct / 100.0, floor)
    return [round(max(0.0, ms - d), 1), round(ms + d, 1)]


class Case:
    role = "server"        # the peer's role; "server": the kernel app connects
    syn_window = 65535
    policy = ("delack", 40)
    rounds = 0

    def __init__(self, d_in, d_out):
        self.d_in, self.d_out = d_in, d_out
        self.rtt = d_in + d_out
        self.marks = {}

    # --- kernel side (runs in the child)
    def app(self, s, env):
        pass

    def sockopts(self, s):
        pass

    # --- peer side (hooks called by peer.Peer)
    def drop(self, peer, rec):
        return False

    def on_established(self, peer):
        pass

    def on_synack_sent(self, peer):
        pass

    def on_ack(self, peer, rec):
        pass

    def on_segment(self, peer, rec, info):
        P.ack_policy(peer, info, self.policy)

    def expect(self, run):
        raise NotImplementedError


def wait_drained(s, secs=5.0):
    """Until everything written is ACKed (SIOCOUTQ = unsent + unACKed = 0)."""
    end = time.time() + secs
    while time.time() < end:
        if int.from_bytes(fcntl.ioctl(s, termios.TIOCOUTQ, b"\0" * 4), "little") == 0:
            return True
        time.sleep(0.002)
    return False


def recv_exact(s, n):
    got = 0
    while got < n:
        b = s.recv(n - got)
        if not b:
            break
        got += len(b)
    return got


# --- gaps in one vantage's record ------------------------------------------

class Run:
    """What a finished run knows: records per vantage, marks, nstat, app."""

    def __init__(self, case, path, kernel):
        self.case, self.rec, self.kernel = case, path.rec, kernel
        self.nstat = kernel.get("nstat", {})
        self.rtt = case.rtt

    def ns(self, name):
        return self.nstat.get("TcpExt" + name, self.nstat.get(name, 0))

    def pkt(self, vantage, pid):
        for r in self.rec[vantage]:
            if r["id"] == pid:
                return r
        return None

    def gap_before(self, vantage, pid):
        """Silence at VANTAGE ending at packet pid (ms); None if not there."""
        prev = None
        for r in self.rec[vantage]:
            if r["id"] == pid:
                return None if prev is None else (r["t"] - prev) * 1000
            if r["tcp"]:
                prev = r["t"]
        return None

    def t(self, vantage, pid):
        r = self.pkt(vantage, pid)
        return None if r is None else r["t"]


def stall(cls, d, dur, **kw):
    e = {"class": cls if isinstance(cls, list) else [cls], "dir": d, "dur_ms": dur}
    e.update(kw)
    return e


# --- Nagle x delayed ACK ---------------------------------------------------

class NagleDelack(Case):
    """Kernel client, Nagle on: send(100); send(100); recv(100) x 5. The
    peer delays ACKs 40 ms (Linux's TCP_DELACK_MIN) except at the start:
    like Linux it quick-ACKs until it has sent data (tcp_in_quickack_mode:
    no pingpong yet), so request 1 is ACKed at once. From request 2 on,
    Nagle (tcp_nagle_check: a small segment unACKed) holds the 2nd 100
    bytes until the peer's delayed ACK: one delayed_ack stall per request
    after the first, the ACK held 40 ms after the path RTT."""
    rounds = 5
    nodelay = False

    def sockopts(self, s):
        if self.nodelay:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def app(self, s, env):
        for _ in range(self.rounds):
            s.send(b"a" * 100)
            s.send(b"b" * 100)
            recv_exact(s, 100)

    def on_segment(self, peer, rec, info):
        done = peer.rx_bytes // 200
        if info["new"] and peer.rx_bytes % 200 == 0 and done > self.marks.get("replies", 0):
            self.marks["replies"] = done
            peer.send_data(100, "reply %d" % done)
        elif peer.snd_nxt == peer.iss + 1 and not info["dup"]:
            peer.ack_now("quick-ACK at connection start (no reply sent yet)")
        else:
            P.ack_policy(peer, info, self.policy)

    def expect(self, run):
        dacks = self.marks.get("delayed_acks", [])
        out = {}
        for v in ("near", "far"):
            st = []
            for pid in dacks:
                g = run.gap_before(v, pid)
                held = 40.0
                if v == "near":
                    st.append(stall("delayed_ack", "c2s", tol(g), ack_delay_ms=tol(held)))
                else:  # the hold itself, or hold + the RTT to the next data
                    st.append(stall("delayed_ack", "c2s", [tol(g)[0], tol(g + self.rtt)[1]],
                                    ack_delay_ms=tol(held)))
            out[v] = {"stalls": st}
        return out, {"delayed_acks_sent": len(dacks), "rounds": self.rounds}


class NodelayControl(NagleDelack):
    """NagleDelack with TCP_NODELAY: both halves leave at once, the peer
    answers the whole request (its reply carries the ACK): no stall."""
    nodelay = True

    def expect(self, run):
        return {"near": {"stalls": []}, "far": {"stalls": []}}, {
            "delayed_acks_sent": len(self.marks.get("delayed_acks", []))}


class PushedReplyDelack(Case):
    """Control: TCP_NODELAY, one 200-byte request write, the peer replies
    100 bytes at once; the kernel app reads it, thinks 4 ms, writes the
    next request. The reply is ACKed by the kernel's ordinary delayed ACK,
    which rides on the next request (tcp_send_delayed_ack is cancelled by
    the data segment): nobody waits, zero stalls."""
    rounds = 5

    def sockopts(self, s):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def app(self, s, env):
        for r in range(self.rounds):
            s.send(b"q" * 200)
            recv_exact(s, 100)
            if r < self.rounds - 1:
                time.sleep(0.004)

    def on_segment(self, peer, rec, info):
        if info["new"] and peer.rx_bytes % 200 == 0:
            peer.send_data(100, "reply")
        else:
            P.ack_policy(peer, info, "immediate")

    def expect(self, run):
        return {"near": {"stalls": []}, "far": {"stalls": []}}, {}


# --- tail loss: TLP and RTO -----------------------------------------------

class Response(Case):
    """The peer connects, sends a 100-byte request; the kernel app (server)
    answers NSEG full segments in one write and waits until all is ACKed."""
    role = "client"
    nseg = 10
    policy = "every2"

    def app(self, s, env):
        recv_exact(s, 100)
        s.sendall(b"x" * (self.nseg * SEG))
        wait_drained(s)

    def on_established(self, peer):
        peer.send_data(100, "request")

    def timer_stalls(self, run):
        """The stalls the kernel's timers made, from the near record and
        nstat. A retransmission right after a peer packet (< 1 ms at near)
        is ACK-clocked (fast retransmit, or the rest of a loss recovery);
        any other one was sent by a timer: the first TcpExtTCPLossProbes of
        them are tail-loss probes (tcp_send_loss_probe), the rest RTOs
        (tcp_retransmit_timer). Each ends a stall: near, the silence before
        it; far, the silence before it there (when it was delivered: a
        dropped probe is invisible at far, its silence merges into the
        next). At far a copy of a seq never seen there before looks like
        new data: the class cannot be proven (tlp|unknown, rto|unknown)."""
        n_tlp = run.ns("TCPLossProbes")
        near, far, timed = [], [], []
        prev = None
        for r in run.rec["near"]:
            if r["dir"] == "k2p" and r.get("len") and r.get("tx", 1) >= 2:
                clocked = prev is not None and prev["dir"] == "p2k" and r["t"] - prev["t"] < 0.001
                if not clocked:
                    timed.append(r)
            prev = r
        for i, r in enumerate(timed):
            cls = "tlp" if i < n_tlp else "rto"
            st = timer_stall(cls, run.gap_before("near", r["id"]))
            if st:
                near.append(st)
            if r.get("dropped"):
                continue
            seen = any(f["dir"] == "k2p" and f.get("rel") == r["rel"] and f["t"] < run.t("far", r["id"])
                       for f in run.rec["far"])
            st = timer_stall([cls] if seen else [cls, "unknown"], run.gap_before("far", r["id"]))
            if st:
                far.append(st)
        # The RTO's own copy counts in TCPTimeouts (tcp_retransmit_timer);
        # the rest of the loss state's copies, ACK-clocked after it, in
        # TCPSlowStartRetrans (tcp_xmit_retransmit_queue in TCP_CA_Loss):
        # all of them are "retransmissions after the RTO".
        cnt = {"s2c.tlp_retransmissions": n_tlp, "s2c.fast_retransmissions": run.ns("TCPFastRetrans"),
               "s2c.rto_retransmissions": run.ns("TCPTimeouts") + run.ns("TCPSlowStartRetrans")}
        facts = {"timer_rtx_gaps_ms": [round(run.gap_before("near", r["id"]), 1) for r in timed],
                 "timer_rtx_rel": [r["rel"] for r in timed]}
        return near, far, cnt, facts


class Tlp(Response):
    """Drop the last of 10 segments. The receiver ACKs every 2nd segment
    and never the 9th alone, so two packets stay out and Linux arms the
    probe timer at 2*SRTT + 2 jiffies (tcp_schedule_loss_probe, no
    TCP_RTO_MIN allowance as with one packet out); tcp_send_loss_probe
    then retransmits the tail (no new data): TcpExtTCPLossProbes +1. The
    probe arrives, the peer ACKs all. Expect one `tlp` stall, ending with
    the probe; near: one TLP retransmission. At the far end seg 10 was
    never seen, so the probe is its first copy there: the gap is a tlp to
    the kernel but nothing at far proves it (tlp or unknown)."""
    drops = 1

    def drop(self, peer, rec):
        return rec["rel"] == (self.nseg - 1) * SEG and rec["tx"] <= self.drops

    def expect(self, run):
        near, far, cnt, facts = self.timer_stalls(run)
        n_ds = run.ns("TCPDSACKRecv")
        return ({"near": {"stalls": near, "counts": cnt, "dsack": n_ds},
                 "far": {"stalls": far, "dsack": n_ds}}, facts)


class Rto(Tlp):
    """As Tlp, and the probe is dropped too: the RTO (restarted by
    tcp_send_loss_probe, so one RTO after the probe; tcp_retransmit_timer)
    fires: TcpExtTCPTimeouts +1. It retransmits the head of the queue,
    which is segment 9 (received, but its ACK still held by the every-2nd
    receiver): a spurious copy the peer D-SACKs; that ACK clocks out the
    tail's third copy at once. Near: `tlp` then `rto`, one TLP and two RTO
    retransmissions (all sent in the loss state), one D-SACK. Far saw
    neither the tail nor the probe: one gap, ending with segment 9's
    second copy (a visible retransmission there: rto)."""
    drops = 2


class SackRecovery(Response):
    """20 segments, the peer drops segment 3 once and ACKs every segment
    at once, SACKing what is above the hole (RFC 2018). Linux enters
    recovery on the 3rd SACKed segment (tcp_time_to_recover; RACK's
    reordering window is 0 before any reordering was seen) and fast-
    retransmits it: TcpExtTCPSackRecovery +1, TCPFastRetrans +1. Expect one
    SACK hole of exactly one segment closed by a retransmission at both
    vantages (near: it passed the capture point; far: it never did), one
    fast retransmission at near; no stall other than loss_recovery."""
    nseg = 20
    policy = "immediate"

    def drop(self, peer, rec):
        return rec["rel"] == 2 * SEG and rec["tx"] == 1

    def expect(self, run):
        hole = [{"segments": 1, "bytes": SEG, "closed_by": "retransmission"}]
        cnt = {"s2c.fast_retransmissions": run.ns("TCPFastRetrans"),
               "s2c.rto_retransmissions": run.ns("TCPTimeouts"),
               "s2c.tlp_retransmissions": run.ns("TCPLossProbes")}
        opt = ["loss_recovery"]
        return ({"near": {"stalls": [], "optional": opt, "holes": hole, "counts": cnt},
                 "far": {"stalls": [], "optional": opt, "holes": hole}},
                {"nstat_sack_recovery": run.ns("TCPSackRecovery"),
                 "nstat_fast_retrans": run.ns("TCPFastRetrans")})


class DsackPartial(Response):
    """The kernel app (TCP_NODELAY) writes 500 + 500 bytes: segments A, B.
    The peer gets A but withholds every ACK; B and its tail-loss probe are
    dropped. The RTO (one RTO after the probe) retransmits A, collapsed
    with B into one 1000-byte segment (tcp_retrans_try_collapse,
    tcp_retrans_collapse=1): half of it is a duplicate. The peer ACKs 1000
    with a D-SACK for A only (RFC 2883: the duplicate part). Expect near
    `tlp` then `rto`, far one `rto` (A's copy is a visible retransmission
    there), one D-SACK at both (TcpExtTCPDSACKRecv +1)."""

    def sockopts(self, s):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def app(self, s, env):
        recv_exact(s, 100)
        s.send(b"A" * 500)
        s.send(b"B" * 500)
        wait_drained(s, 8)

    def drop(self, peer, rec):
        return rec["rel"] == 500 and rec["tx"] <= 2

    def on_segment(self, peer, rec, info):
        if rec.get("rel") == 0 and rec.get("tx", 1) >= 2:
            self.marks["rto_rtx"] = rec["id"]
            self.marks["rtx_len"] = rec["len"]
            self.marks["dsack_bytes"] = info["dup"]
            peer.ack_now("first ACK, after the RTO: D-SACK of the duplicate part")
        elif rec.get("rel", 0) >= 1000 or peer.rx_bytes >= 1000 and "rto_rtx" in self.marks:
            P.ack_policy(peer, info, "immediate")
        # else: withhold (the ACK for A is delayed past the RTO)

    def expect(self, run):
        near, far, cnt, facts = self.timer_stalls(run)
        n_ds = run.ns("TCPDSACKRecv")
        facts.update(rtx_len=self.marks.get("rtx_len"), dsack_bytes=self.marks.get("dsack_bytes"))
        return ({"near": {"stalls": near, "counts": cnt, "dsack": n_ds},
                 "far": {"stalls": far, "dsack": n_ds}}, facts)


# --- receiver windows --------------------------------------------------------

class ZeroWindowSyn(Case):
    """The peer's SYN-ACK advertises window 0 and opens it (65535) 200 ms
    later; the kernel app wrote 1000 bytes right after connect. Linux can
    send nothing (tcp_snd_wnd_test) and arms the persist timer at the RTO
    (tcp_check_probe_timer: >= TCP_RTO_MIN + RTT), which the window update
    beats. Expect one zero_window stall of ~200 ms from the start."""
    syn_window = 0
    open_ms = 200
    policy = "immediate"

    def app(self, s, env):
        s.send(b"w" * 1000)
        recv_exact(s, 100)

    def on_synack_sent(self, peer):
        peer.path.after(self.open_ms / 1000.0, self._open, peer)

    def _open(self, peer):
        self.marks["update"] = peer.set_window(65535, update=True, why="open")["id"]

    def on_segment(self, peer, rec, info):
        if info["new"] and peer.rx_bytes == 1000:
            peer.send_data(100, "reply")
        else:
            P.ack_policy(peer, info, self.policy)

    def expect(self, run):
        upd = self.marks["update"]
        near = [stall("zero_window", "c2s", tol(self.open_ms))]
        far = [stall("zero_window", "c2s", [tol(self.open_ms - self.rtt)[0], tol(self.open_ms)[1]])]
        probes = sum(1 for r in run.rec["near"] if r["dir"] == "k2p" and r.get("t", 0) <
                     run.t("near", upd) and r.get("len", 0) > 0)
        return {"near": {"stalls": near}, "far": {"stalls": far}}, {
            "probes_before_open": probes, "near_gap_before_update_ms":
            round(run.gap_before("near", upd), 1)}


class TinyWindow(Case):
    """The kernel app writes 20000 bytes at once. The peer ACKs the initial
    window's 10 segments with one ACK advertising 10 bytes, then 100 ms
    later a window update (65535). Below one MSS Linux sends nothing
    (tcp_snd_wnd_test; tcp_write_wakeup would send 10 bytes only when the
    persist timer fires, >= 200 ms): one zero_window stall of ~100 ms (the
    class's rwnd < MSS), the rest follows the update."""
    policy = "immediate"
    tiny_ms = 100

    def app(self, s, env):
        s.sendall(b"t" * 20000)
        recv_exact(s, 100)

    def on_segment(self, peer, rec, info):
        if "tiny" not in self.marks:
            if peer.rx_bytes >= 10 * SEG:
                self.marks["tiny"] = peer.set_window(10, update=True, why="tiny")["id"]
                peer.path.after(self.tiny_ms / 1000.0, self._open, peer)
            return  # one stretch ACK for the first flight
        if info["new"] and peer.rx_bytes == 20000:
            peer.send_data(100, "reply")
        else:
            P.ack_policy(peer, info, self.policy)

    def _open(self, peer):
        self.marks["update"] = peer.set_window(65535, update=True, why="open")["id"]

    def expect(self, run):
        upd = self.marks["update"]
        st = {v: [stall("zero_window", "c2s", tol(run.gap_before(v, upd)))] for v in ("near", "far")}
        sent = sum(1 for r in run.rec["near"] if r["dir"] == "k2p" and r.get("len", 0) > 0 and
                   run.t("near", self.marks["tiny"]) < r["t"] < run.t("near", upd))
        return {v: {"stalls": st[v]} for v in st}, {"segments_during_tiny_window": sent}


# --- data the sender holds: MSG_MORE, TCP_CORK ------------------------------

class MsgMore(Case):
    """The kernel app writes 40 bytes with MSG_MORE and nothing after
    (optionally after THINK ms of think time). tcp_sendmsg pushes with
    TCP_NAGLE_CORK, nothing leaves, and __tcp_push_pending_frames arms the
    zero-window probe timer (tcp_check_probe_timer: tcp_probe0_base = the
    RTO, here TCP_RTO_MIN + RTT); tcp_write_wakeup then sends the 40 bytes
    (with PSH). The peer replies 10 bytes at once. Expect one sender_idle
    stall: the gap on the wire is THINK + the hold. The hold is the RTO
    at the write to one timer-wheel slot more: an RTO >= 64 jiffies (256 ms
    at HZ=250) lands in the wheel's level 1, 8-jiffy (32 ms) granularity,
    so at 100 ms RTT (RTO 304 ms) it fires 304-336 ms after the write."""
    think_ms = 0
    policy = "immediate"

    def write(self, s):
        s.send(b"m" * 40, socket.MSG_MORE)

    def app(self, s, env):
        if self.think_ms:
            time.sleep(self.think_ms / 1000.0)
        env["write_t"] = time.time()
        self.write(s)
        env["rto_at_write_us"] = P.tcp_info(s)["rto"]  # the probe timer's base
        recv_exact(s, 10)

    def on_segment(self, peer, rec, info):
        if info["new"] and peer.rx_bytes == 40:
            self.marks["data"] = rec["id"]
            peer.send_data(10, "reply")
        else:
            P.ack_policy(peer, info, self.policy)

    def expect(self, run):
        d = self.marks["data"]
        hold = (run.t("near", d) - (run.kernel["write_t"] - run.kernel["clock_off"])) * 1000
        st = {v: [stall("sender_idle", "c2s", tol(run.gap_before(v, d)))] for v in ("near", "far")}
        rec = run.pkt("near", d)
        return {v: {"stalls": st[v]} for v in st}, {
            "hold_ms": round(hold, 1), "think_ms": self.think_ms, "psh": rec["psh"],
            "rto_at_write_ms": run.kernel["rto_at_write_us"] / 1000.0,
            "rto_ms": run.kernel["tcp_info"]["rto"] / 1000.0}


class MsgMoreThink(MsgMore):
    """MsgMore after 20 ms of application think time before each write,
    ROUNDS times (write, the peer's reply, think again). Each silence on
    the wire is think + the hold. One such pause cannot be told from an
    application sleeping that long; the repeats can (the same length each
    time: a timer's): expect a sender_idle stall for every round but the
    first."""
    think_ms = 20
    rounds = 4

    def app(self, s, env):
        env["write_t"] = []
        for _ in range(self.rounds):
            time.sleep(self.think_ms / 1000.0)
            env["write_t"].append(time.time())
            self.write(s)
            env["rto_at_write_us"] = P.tcp_info(s)["rto"]
            recv_exact(s, 10)

    def on_segment(self, peer, rec, info):
        if info["new"] and rec.get("len", 0) == 40:
            self.marks.setdefault("data", []).append(rec["id"])
            peer.send_data(10, "reply")
        else:
            P.ack_policy(peer, info, self.policy)

    def expect(self, run):
        ids = self.marks["data"]
        # Each pause is think + the hold. Alone, one cannot be told from an
        # application sleeping that long; the repeats can, within a jiffy
        # or two of timer jitter (a hold that fires a jiffy late breaks a
        # repeat), and the first may already lie in the timer's window:
        # sender_idle for at least all rounds but the first two, and
        # nothing else.
        st = {v: [] for v in ("near", "far")}
        holds = [round((run.t("near", d) - (w - run.kernel["clock_off"])) * 1000, 1)
                 for d, w in zip(ids, run.kernel["write_t"])]
        return {v: {"stalls": st[v], "optional": ["sender_idle"],
                    "min_optional": self.rounds - 2} for v in st}, {
            "holds_ms": holds, "think_ms": self.think_ms,
            "rto_at_write_ms": run.kernel["rto_at_write_us"] / 1000.0}


class Cork(MsgMore):
    """TCP_CORK set, one 40-byte write, never uncorked: the same probe
    timer releases it (tcp_push with TCP_NAGLE_CORK)."""

    def sockopts(self, s):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)

    def write(self, s):
        s.send(b"c" * 40)


# --- a paced sender --------------------------------------------------------

class PacedTail(Case):
    """Control: SO_MAX_PACING_RATE 40 000 bytes/s (Linux paces in TCP
    itself: tcp_needs_internal_pacing), one write of TAIL_SEGS full segments
    and a 500-byte remainder, the peer ACKing every segment at once. Each
    skb leaves len / rate after the one before (tcp_update_skb_after_send),
    so on a path shorter than that pause everything is ACKed between them,
    the remainder included: it waits as long as the full ones did, the
    sender's pace, not a remainder TCP_CORK / MSG_MORE held. Zero stalls at
    every RTT (at 100 ms the data is in flight across the pauses)."""
    policy = "immediate"
    rate = 40000
    tail_segs = 16  # Linux paces from the 11th data segment on (tcp_update_skb_after_send)

    def sockopts(self, s):
        s.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, self.rate)

    def app(self, s, env):
        s.send(b"p" * (SEG * self.tail_segs + 500))
        env["drained"] = wait_drained(s, 10.0)

    def expect(self, run):
        pauses = []
        prev = None
        for r in run.rec["near"]:
            if r["tcp"] and r.get("len", 0) and r["dir"] == "k2p":
                if prev is not None:
                    pauses.append(round((r["t"] - prev) * 1000, 1))
                prev = r["t"]
        return {"near": {"stalls": []}, "far": {"stalls": []}}, {
            "pacing_rate": self.rate, "drained": run.kernel.get("drained"),
            "pauses_ms": pauses}


CASES = {
    "nagle-delack": NagleDelack, "nodelay-control": NodelayControl,
    "pushed-reply-delack": PushedReplyDelack, "tlp": Tlp, "rto": Rto,
    "sack-recovery": SackRecovery, "dsack-partial": DsackPartial,
    "zero-window-syn": ZeroWindowSyn, "tiny-window": TinyWindow,
    "msg-more": MsgMore, "msg-more-think": MsgMoreThink, "cork": Cork,
    "paced-tail": PacedTail,
}


# --- one run -------------------------------------------------------------------

def kernel_app(case, outdir, wfd):
    """The child: the kernel's side of the connection, then its truth."""
    env = {"clock_off": time.time() - time.monotonic()}
    try:
        if case.role == "server":  # the peer is the server: we connect
            s = socket.socket()
            case.sockopts(s)
            s.connect((P.PEER_IP, P.PEER_PORT))
        else:
            ls = socket.socket()
            ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            ls.bind((P.KERNEL_IP, P.KERNEL_PORT))
            ls.listen(1)
            os.write(wfd, b"L")
            s, _ = ls.accept()
            case.sockopts(s)
        env["connected_t"] = time.time()
        case.app(s, env)
        env["tcp_info"] = P.tcp_info(s)
        s.close()
        env["ok"] = True
    except Exception as e:  # noqa: BLE001 - the parent reports it
        env["ok"] = False
        env["error"] = repr(e)
    with open(os.path.join(outdir, "app.json"), "w") as f:
        json.dump(env, f)
    os._exit(0)


def main():
    if sys.argv[1:2] == ["--list"]:
        print(" ".join(CASES))
        return 0
    name, d_in, d_out, outdir = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    case = CASES[name](d_in, d_out)
    path = P.Path(outdir, d_in, d_out)
    peer = P.Peer(path, case, case.role)
    nstat0 = P.nstat_snapshot()
    rfd, wfd = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(rfd)
        os.close(path.fd)
        kernel_app(case, outdir, wfd)
    os.close(wfd)
    if case.role == "client":
        os.read(rfd, 1)  # the kernel app listens
        peer.connect()
    exited = []

    def done():
        if not exited:
            pid, _ = os.waitpid(child, os.WNOHANG)
            if pid:
                exited.append(time.monotonic())
        # the app has closed and the FIN exchange is over (or 1 s after)
        return exited and (peer.fin_acked or time.monotonic() > exited[0] + 1.0)

    path.run(done, time.monotonic() + 20)
    if not exited:
        os.kill(child, 9)
        os.waitpid(child, 0)
    nstat1 = P.nstat_snapshot()
    path.log("end", fin_acked=peer.fin_acked)
    with open(os.path.join(outdir, "app.json")) as f:
        kernel = json.load(f)
    kernel["nstat"] = {k: nstat1[k] - nstat0.get(k, 0) for k in nstat1
                       if nstat1[k] != nstat0.get(k, 0)}
    with open(os.path.join(outdir, "kernel.json"), "w") as f:
        json.dump(kernel, f, indent=1, sort_keys=True)
    if not kernel.get("ok"):
        print("cases.py %s: kernel app failed: %s" % (name, kernel.get("error")), file=sys.stderr)
        path.close()
        return 1
    run = Run(case, path, kernel)
    exp, facts = case.expect(run)
    facts.update(rtt_ms=case.rtt, d_in_ms=d_in, d_out_ms=d_out, fin_acked=peer.fin_acked,
                 peer_late_ms=round(path.late * 1000, 1),
                 tcpi_rto_ms=kernel["tcp_info"]["rto"] / 1000.0,
                 tcpi_total_retrans=kernel["tcp_info"]["total_retrans"],
                 tcpi_lost=kernel["tcp_info"]["lost"],
                 tcpi_retransmits=kernel["tcp_info"]["retransmits"])
    for k in ("TCPLossProbes", "TCPLossProbeRecovery", "TCPTimeouts", "DelayedACKs",
              "TCPDSACKRecv", "TCPSackRecovery", "TCPFastRetrans", "TCPSlowStartRetrans",
              "TCPSpuriousRTOs"):
        facts["nstat_" + k] = run.ns(k)
    with open(os.path.join(outdir, "expect.json"), "w") as f:
        json.dump({"case": name, "expect": exp, "truth": facts}, f, indent=1, sort_keys=True)
    path.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
