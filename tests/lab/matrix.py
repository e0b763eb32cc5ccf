#!/usr/bin/env python3
"""matrix.py - the truth matrix: tcpsift against the real Linux TCP stack,
scenario families swept over their parameters, each cell checked against a
ground truth that does not come from tcpsift.

    matrix.py --bin TCPSIFT --tools DIR [--subset check|all] [--only REGEX]
              [--list] [--out MATRIX.md] [--keep DIR] [--keep-failed DIR]
              [--budget SECS]

Each cell runs one experiment through a runner script in this directory
(spray-run.sh, loss-run.sh, peer-run.sh, iperf3-run.sh, http-run.sh; each
keeps its captures and a truth.txt of key=value lines: relay logs, nft
counters and NFLOG copies, nstat deltas, TCP_INFO, application logs), then
runs `tcpsift analyze --json` and tshark on the captures and checks the cell:
counts within 10 % of the truth, and the controls at exactly zero false
findings. Families:

  reorder   lab-relay sprays one download over 2/4/8 paths with 50-500 us
            between the fastest and the slowest (and a base delay where the
            path RTT should decide), IPv4 and IPv6, paced so that TSvals
            differ (1 MiB/s) or tie (12 MiB/s: several segments per ms);
            captured before the relay (the sender's side) and after it.
  loss      random loss 0.1-5 % in a router, cubic / bbr / reno, both sides.
  think     request/response with TCP_NODELAY and think times 5 ms - 3 s
            (exact multiples of 40 and 200 ms included), client and server;
            iperf3's control connection; Nagle as the positive control.
  applim    an application-limited sender: small writes every few ms.
  slowread  a slow-reading receiver with a small receive buffer (lab-peer,
            and curl --limit-rate against python's http.server).
  control   a bulk transfer with nothing wrong, and the same capture with a
            50 ms capture outage cut into it.
  The quiet cells (applim, control) sample the sender's TCP_INFO every
  1 ms: a stall the host made (the sampler not run for 4 ms or more) is
  real, and passes; any other stall fails (host_holds).

The cells above run over veths (microsecond RTTs). The path sweep
(path_cells, families "path: ...") runs each family over an emulated path,
path-run.sh: A <-> R <-> M <-> B with lab-relay's path mode in R and in M,
each giving half of each one-way delay, RTT sub-ms (the relays' own
latency), 2, 20, 80, 200 ms and 5/35 ms (asymmetric), captured at three
vantage points: A's veth (the data sender's interface), R's veth towards M
(a tap in the middle of the path) and B's veth (the receiver's). Loss and
the bottleneck are M's, between the tap and B. Scenarios (truth):
  stalls    Nagle x delayed ACK (send(100); send(100); recv() without
            TCP_NODELAY; B's TcpExtDelayedACKs), its TCP_NODELAY control (no
            stall), TCP_CORK held 500 ms (held tails on A's own capture),
            zero window from a receiver that stops reading for 1.5 s (B's
            TcpExtTCPFromZeroWindowAdv)
  sack/loss 1 % of A's data segments dropped by M (M's drop log, A's
            TcpRetransSegs / TCPLossProbes; at B the retransmissions that
            reached it, from A's capture)
  reorder   M sprays A -> B over 4 paths 0-500 us apart (lab-relay paths
            mode: its path mode keeps each link in order, so this is the only
            reordering on a path; M's log through lab-relay-truth.py)
  limits    a 20 Mbit/s bottleneck with a 50-frame queue (limited_by must
            say congestion or bottleneck), a 16 KiB SO_RCVBUF receiver, a
            sender writing 4 KiB every 3 ms (A's TCP_INFO chrono counters and
            its 1 ms --tcp-sample lines)
  slowread  a slow reader: B downloads from A with a 16 KiB SO_RCVBUF,
            reading 4 KiB every 50 ms (limited_by receiver-side within 10 %
            of A's rwnd_limited share; "sending application" no more than
            A had nothing to send and the zero-window time within 10 % of
            A's time with tcpi_snd_wnd below one segment, both from its
            1 ms samples; delayed_ack stalls up to B's TcpExtDelayedACKs,
            zero_window up to B's TcpExtTCPToZeroWindowAdv, rto / tlp /
            loss_recovery up to A's TCPTimeouts / TCPLossProbes /
            TcpRetransSegs; no verdict or advice for the sender; the
            client's read log)
  mtu       MTU 9000 on every link (A's snd_mss; 8948 mod 4096 != 0: one
            mtu_alignment finding); the clean control's MTU 1500 the negative
  control   a paced download with nothing wrong (the negative control of
            the loss, stall, reorder, MTU and capture-loss families) and each
            vantage's capture of it with 50 ms cut out (outage.py: the
            capture-loss family's positive)

--subset check runs the representative cells `make check` runs (a cell of
each family; of the path sweep one cell of each, at 20 ms in some families and
80 ms in the others, so that make check keeps its time bound and still runs
both RTTs); all (the default, `make lab-matrix`) runs every cell. --out
writes the table (tests/lab/MATRIX.md): one row per cell and vantage point,
truth vs tcpsift vs tshark. Prints one line per cell ("ok NAME: ..." or
"FAIL NAME: ..." with the failed checks indented below it); exit 0 when
every cell passed, 1 otherwise, 77 when the lab cannot run (no root).
"""

import argparse
import csv
import datetime
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


# ---- helpers --------------------------------------------------------------

def read_truth(path):
    t = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                t[k] = v
    return t


def num(t, key, default=0):
    try:
        return float(t.get(key, default))
    except ValueError:
        return default


def within(measured, truth, pct=10, slack=2):
    """|measured - truth| <= pct % of truth, or <= slack for small counts."""
    return abs(measured - truth) <= max(truth * pct / 100.0, slack)


def tcpsift_json(binary, pcap):
    r = subprocess.run([binary, "analyze", "--json", "--no-progress", pcap],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"tcpsift exited {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def conn_by_port(report, port):
    """The connection whose server port is port (the largest if several)."""
    best = None
    for c in report["connections"]:
        if c["server"].rsplit(":", 1)[1] == str(port):
            if best is None or c["s2c"]["packets"] + c["c2s"]["packets"] > \
                    best["s2c"]["packets"] + best["c2s"]["packets"]:
                best = c
    return best


def biggest_conn(report):
    return max(report["connections"],
               key=lambda c: c["s2c"]["payload_bytes"] + c["c2s"]["payload_bytes"])


def stall_events(report, conn_id):
    return [e for e in report["events"] if e["type"] == "stall" and e["conn"] == conn_id]


TSHARK_FLAGS = ("tcp.analysis.retransmission", "tcp.analysis.out_of_order",
                "tcp.analysis.duplicate_ack")


def tshark_counts(pcap, sport):
    """tshark's retransmissions and out-of-order segments sent from port sport,
    and duplicate ACKs sent to it; None without tshark."""
    if not shutil.which("tshark"):
        return None
    fields = ["-e", "tcp.srcport", "-e", "tcp.dstport"]
    for f in TSHARK_FLAGS:
        fields += ["-e", f]
    r = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=\t"] +
                       fields, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    n = {"retransmissions": 0, "out_of_order": 0, "dup_acks": 0}
    for line in r.stdout.splitlines():
        p = line.split("\t")
        if len(p) < 5:
            continue
        if p[0] == str(sport):
            n["retransmissions"] += bool(p[2])
            n["out_of_order"] += bool(p[3])
        elif p[1] == str(sport):
            n["dup_acks"] += bool(p[4])
    return n


class Cell:
    """One experiment: a runner command, then rows (one per vantage point)
    each with truth, tcpsift and tshark values and the checks that failed."""

    def __init__(self, family, name, runner, evaluate, subset=False, seconds=30):
        self.family, self.name, self.runner = family, name, runner
        self.rtt = "µs (veth)"
        self.evaluate, self.subset, self.seconds = evaluate, subset, seconds


class Row:
    def __init__(self, vantage):
        self.vantage = vantage
        self.rtt = None    # the path's RTT (path cells); None: the veths' microseconds
        self.family = None  # a row reported under another family than its cell's
        self.truth, self.tcpsift, self.tshark = [], [], []
        self.fails = []
        self.retries = 0  # runs again after a harness fault (run_cell)

    def check(self, ok, msg):
        if not ok:
            self.fails.append(msg)


def fmt(items):
    return ", ".join(f"{k} {v}" for k, v in items)


# ---- families ------------------------------------------------------------

def spray_cmd(tools, fam, paths, spread, base, rate, nbytes):
    return ["spray-run.sh", "{out}", f"{tools}/lab-relay", f"{tools}/lab-peer", "--",
            "--family", str(fam), "--paths", str(paths), "--spread-us", str(spread),
            "--base-us", str(base), "--rate", rate, "--bytes", nbytes, "--cc", "cubic",
            "--timeout", "60"]


def eval_spray(binary, out, p):
    t = read_truth(f"{out}/truth.txt")
    # Late originals, whether later data or their own retransmission
    # overtook them (a late retransmission is a retransmission).
    if "late_orig" in t:
        late = int(num(t, "late_orig") + num(t, "copy_orig"))
    else:
        late = int(num(t, "late") + num(t, "copy"))
    rtx = int(num(t, "a_TcpRetransSegs"))
    # D-SACKs below the cumulative ACK and inside a SACK block (Linux counts
    # them apart: tcp_check_dsack()).
    dsack = int(num(t, "a_TcpExtTCPDSACKRecv") + num(t, "a_TcpExtTCPDSACKOfoRecv"))
    rows = []
    for side in ("b", "a"):
        r = Row("after the relay" if side == "b" else "before it (sender)")
        if side == "b":
            # A setup that reorders nothing proves nothing.
            r.check(late >= 50, f"the relay reordered only {late} segments")
        rep = tcpsift_json(binary, f"{out}/{side}.pcap")
        c = conn_by_port(rep, 5001)
        if c is None:
            r.check(False, "no connection to port 5001 in the report")
            rows.append(r)
            continue
        d = c["s2c"]
        ooo, und, ret = d["out_of_order"], d["fills_undecided"], d["retransmissions"]
        lost_up, spur = d["lost_upstream"], d["spurious_retransmissions"]
        ts = tshark_counts(f"{out}/{side}.pcap", 5001)
        r.tshark = [("ooo", ts["out_of_order"]), ("retr", ts["retransmissions"])] if ts else []
        by = ",".join(f"{k}:{v}" for k, v in sorted(d["out_of_order_by"].items()) if v)
        if side == "b":
            r.truth = [("late", late), ("retr", rtx), ("D-SACKed", dsack)]
            r.tcpsift = [("ooo", ooo), ("undecided", und), ("retr", ret),
                         ("lost upstream", lost_up), ("spurious", spur)]
            if by:
                r.tcpsift.append(("by", by))
            # Never claim more reordering than there was, nor loss that
            # was not: the late originals are out of order or undecided.
            r.check(ooo <= late * 1.1 + 2, f"out_of_order {ooo} > late {late} + 10 %")
            r.check(within(ooo + und, late), f"out_of_order {ooo} + undecided {und} not "
                    f"within 10 % of late {late}")
            r.check(lost_up == 0, f"lost_upstream {lost_up} (nothing was lost)")
            r.check(within(ret, rtx), f"retransmissions {ret} not within 10 % of "
                    f"TcpRetransSegs {rtx}")
            if p["decides"]:
                r.check(und <= late * 0.1 + 2, f"undecided {und} > 10 % of late {late} "
                        "where the sender's clocks or the path RTT decide")
        else:
            r.truth = [("late", 0), ("retr", rtx), ("D-SACKed", dsack)]
            r.tcpsift = [("ooo", ooo), ("undecided", und), ("retr", ret), ("spurious", spur),
                         ("holes reordered downstream", c["sack"]["reordered_downstream"]),
                         ("holes acked", c["sack"]["closed_by"]["acked"])]
            r.check(ooo == 0 and und == 0, f"out_of_order {ooo} / undecided {und} before "
                    "the reordering point")
            r.check(lost_up == 0, f"lost_upstream {lost_up}")
            r.check(within(ret, rtx), f"retransmissions {ret} not within 10 % of {rtx}")
            r.check(within(spur, dsack), f"spurious {spur} not within 10 % of D-SACKed {dsack}")
            r.check(c["sack"]["closed_by"]["acked"] == 0,
                    f"{c['sack']['closed_by']['acked']} holes closed 'acked' (hedged) in a "
                    "capture that missed nothing")
        rows.append(r)
    return rows


def reorder_cells(tools):
    """Two regimes. Line rate for 1 ms TCP timestamps (12 MiB/s: several
    segments per ms, most reordered pairs share a TSval) with 50-500 us
    between the paths, the base delay 0 (the path RTT below the spread) or
    1 ms (above it); and 1 MiB/s (a segment every 1.4 ms: TSvals differ),
    where only a spread beyond the spacing reorders anything, 2 and 5 ms."""
    cells = []
    grid = [(spread, "12M", "16M", True, base) for spread in (50, 200, 500) for base in (0, 1000)]
    grid += [(spread, "1M", "2M", False, 0) for spread in (2000, 5000)]
    for fam in (4, 6):
        for paths in (2, 4, 8):
            for spread, rate, nbytes, tie, base in grid:
                # The sender's clocks decide on IPv4 (the IP ID), and at any
                # rate when TSvals differ or the path RTT exceeds the spread
                # (base delay); on IPv6 with ties and a path RTT below the
                # spread, honesty is the check.
                decides = fam == 4 or base >= spread or not tie
                name = (f"reorder-v{fam}-{paths}p-{spread}us-"
                        f"{'ties' if tie else 'tsval'}-base{base}")
                subset = (fam, paths, spread, tie, base) == (6, 8, 500, True, 0)
                p = {"decides": decides}
                cells.append(Cell(
                    "reorder", name, spray_cmd(tools, fam, paths, spread, base, rate, nbytes),
                    lambda b, o, p=p: eval_spray(b, o, p), subset, 60))
    return cells


def data_segments(pcap, sport, fam):
    """(seq, len, id) of the data segments sent from sport, in file order;
    id: the IP ID (IPv4) or the TSval (IPv6), to tell copies apart."""
    idf = "ip.id" if fam == 4 else "tcp.options.timestamp.tsval"
    r = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", f"tcp.srcport=={sport} && tcp.len>0",
                        "-T", "fields", "-e", "tcp.seq_raw", "-e", "tcp.len", "-e", idf],
                       capture_output=True, text=True)
    segs = []
    for line in r.stdout.splitlines():
        p = line.split("\t")
        if len(p) == 3 and p[0] and p[1]:
            segs.append((int(p[0]), int(p[1]), p[2]))
    return segs


def retransmissions_seen_at(a_pcap, b_pcap, sport, fam):
    """How many of the sender's retransmissions (in a.pcap: bytes sent
    before) reached b.pcap, and how many of those arrived below the highest
    byte b.pcap had already seen (the rest look like new data there: a
    retransmitted tail that nothing followed cannot be told from an original
    at the receiver)."""
    def before(x, y):
        return (x - y) % 2**32 >= 2**31
    retx, high = {}, None
    for seq, ln, i in data_segments(a_pcap, sport, fam):
        end = (seq + ln) % 2**32
        key = (seq, ln, i)
        retx[key] = retx.get(key, False) or (high is not None and before(seq, high))
        if high is None or before(high, end):
            high = end
    reached = visible = 0
    high = None
    for seq, ln, i in data_segments(b_pcap, sport, fam):
        if retx.get((seq, ln, i)):
            reached += 1
            visible += high is not None and before(seq, high)
        end = (seq + ln) % 2**32
        if high is None or before(high, end):
            high = end
    return reached, visible


def eval_loss(binary, out, p):
    t = read_truth(f"{out}/truth.txt")
    rtx = int(num(t, "a_TcpRetransSegs"))
    dropped = int(num(t, "dropped_data"))
    probes = int(num(t, "a_TcpExtTCPLossProbes"))
    timeouts = int(num(t, "a_TcpExtTCPTimeouts"))
    rows = []
    for side in ("a", "b"):
        r = Row("before the loss (sender)" if side == "a" else "after it (receiver)")
        rep = tcpsift_json(binary, f"{out}/{side}.pcap")
        c = conn_by_port(rep, p["port"])
        if c is None:
            r.check(False, f"no connection to port {p['port']}")
            rows.append(r)
            continue
        d = c["s2c"]
        ooo, und, ret = d["out_of_order"], d["fills_undecided"], d["retransmissions"]
        ts = tshark_counts(f"{out}/{side}.pcap", p["port"])
        r.tshark = [("ooo", ts["out_of_order"]), ("retr", ts["retransmissions"])] if ts else []
        # Nothing is reordered anywhere: any out-of-order segment is false.
        r.check(ooo == 0, f"out_of_order {ooo} on a path without reordering")
        if side == "a":
            r.truth = [("dropped", dropped), ("retr", rtx), ("TLP", probes), ("RTO", timeouts)]
            tlp = d["tlp_retransmissions"] + d["tlp_new_data"]
            r.tcpsift = [("retr", ret), ("tlp", tlp), ("rto", d["rto_retransmissions"]),
                         ("ooo", ooo), ("undecided", und), ("holes", c["sack"]["holes"])]
            r.check(within(ret, rtx), f"retransmissions {ret} not within 10 % of {rtx}")
            r.check(und == 0, f"undecided {und} at the sender")
            r.check(within(tlp, probes), f"tail-loss probes {tlp} not within 10 % of "
                    f"LossProbes {probes}")
        else:
            reached, visible = retransmissions_seen_at(f"{out}/a.pcap", f"{out}/b.pcap",
                                                       p["port"], p["fam"])
            r.truth = [("dropped", dropped), ("retr reaching it", reached),
                       ("of them below its highest byte", visible)]
            r.tcpsift = [("retr", ret), ("lost upstream", d["lost_upstream"]),
                         ("undecided", und), ("ooo", ooo)]
            # A fill the clocks cannot order is undecided, never reordering;
            # a re-sent tail nothing followed arrives as new data.
            r.check(within(ret + und, visible), f"retransmissions {ret} + undecided {und} not "
                    f"within 10 % of the {visible} retransmissions that reached the receiver "
                    "below its highest byte")
            r.check(ret <= reached, f"retransmissions {ret} > the {reached} that reached it")
            if p["fam"] == 4:
                r.check(und <= visible * 0.1 + 2, f"undecided {und} with IPv4 IP IDs")
        rows.append(r)
    return rows


def loss_cells(tools):
    cells = []
    for cc in ("cubic", "bbr", "reno"):
        for loss in ("0.1", "1", "5"):
            name = f"loss-v4-{cc}-{loss}pct"
            cmd = ["loss-run.sh", "{out}", f"{tools}/lab-peer", "--", "--family", "4",
                   "--loss", loss, "--cc", cc, "--bytes", "4M", "--rate", "4M"]
            p = {"port": 5001, "fam": 4}
            # Not in make check's subset: on a microsecond veth a probe's
            # timer (2 SRTT + 2 jiffies) is within a loaded host's pauses,
            # and a probe sent as new data looks like a write after one:
            # make check counted 11 and 6 probes for Linux's 0 and 1, then
            # (the probe needing a full window) 0 for its 3. Loss on a path
            # is path-loss-1pct-80ms; probes, tests/exact.
            cells.append(Cell("loss", name, cmd, lambda b, o, p=p: eval_loss(b, o, p),
                              False, 60))
    for loss in ("1", "5"):
        cmd = ["loss-run.sh", "{out}", f"{tools}/lab-peer", "--", "--family", "6", "--loss",
               loss, "--cc", "cubic", "--bytes", "4M", "--rate", "4M"]
        p = {"port": 5001, "fam": 6}
        cells.append(Cell("loss", f"loss-v6-cubic-{loss}pct", cmd,
                          lambda b, o, p=p: eval_loss(b, o, p), False, 60))
    cmd = ["loss-run.sh", "{out}", f"{tools}/lab-peer", "--", "--family", "4", "--loss", "5",
           "--cc", "cubic", "--mode", "rr", "--rounds", "50", "--resp-size", "3000"]
    p = {"port": 5001, "fam": 4}
    cells.append(Cell("loss", "loss-v4-rr-tail-5pct", cmd, lambda b, o, p=p: eval_loss(b, o, p),
                      False, 60))
    return cells


def think_values(t, side):
    v = t.get(f"{side}_opts", "")
    m = re.search(r"--(?:server-)?think ([0-9,]+)", v)
    return [int(x) for x in m.group(1).split(",")] if m else []


def eval_rr_think(binary, out, p):
    t = read_truth(f"{out}/truth.txt")
    rep = tcpsift_json(binary, f"{out}/cap.pcap")
    c = conn_by_port(rep, 7201)
    r = Row("server side")
    if c is None:
        r.check(False, "no connection to port 7201")
        return [r]
    st = c["stalls"]
    thinks = p["thinks"]
    timers = sum(1 for x in thinks if 196 <= x <= 216)
    r.truth = [("think pauses", len(thinks)), ("of ~200 ms", timers), ("stalls", 0)]
    r.tcpsift = [("stalls", st["count"]), ("timer-like", st["timer_like"]),
                 ("think time", st["think_time"])]
    bad = [e for e in stall_events(rep, c["id"]) if not e["timer_like"]]
    r.check(st["count"] == 0, f"{st['count']} stalls in think time: " +
            "; ".join(f"{e['class']} {e['duration_s']:.3f}s" for e in bad[:4]))
    r.check(st["timer_like"] <= timers, f"{st['timer_like']} timer-like pauses for {timers} "
            "thinks of ~200 ms")
    return [r]


def eval_nagle(binary, out, p):
    t = read_truth(f"{out}/truth.txt")
    rep = tcpsift_json(binary, f"{out}/cap.pcap")
    c = conn_by_port(rep, 7201)
    r = Row("server side")
    dack = int(num(t, "b_TcpExtDelayedACKs"))
    st = c["stalls"] if c else {"by_class": {}, "count": 0}
    r.truth = [("delayed ACKs (server)", dack)]
    r.tcpsift = [("delayed_ack stalls", st["by_class"].get("delayed_ack", 0)),
                 ("stalls", st["count"])]
    r.check(within(st["by_class"].get("delayed_ack", 0), dack),
            f"delayed_ack stalls {st['by_class'].get('delayed_ack', 0)} not within 10 % of "
            f"TcpExtDelayedACKs {dack}")
    return [r]


def eval_iperf3(binary, out, p):
    t = read_truth(f"{out}/truth.txt")
    rep = tcpsift_json(binary, f"{out}/cap.pcap")
    rows = []
    for what in ("control", "data"):
        r = Row(f"{what} connection")
        port = t.get("ctrl_cport" if what == "control" else "data_cport")
        c = next((c for c in rep["connections"] if port and
                  c["client"].rsplit(":", 1)[1] == port), None)
        if c is None:
            r.check(False, f"no {what} connection (client port {port})")
            rows.append(r)
            continue
        st = c["stalls"]
        gap = t.get("ctrl_max_gap_ms") if what == "control" else None
        r.truth = [("test s", t.get("duration_s", "?"))] + \
            ([("longest silence ms", gap)] if gap else []) + [("stalls", 0)]
        r.tcpsift = [("stalls", st["count"]), ("timer-like", st["timer_like"]),
                     ("think time", st["think_time"]), ("think s", round(st["think_time_s"], 3))]
        r.check(st["count"] == 0, f"{st['count']} stalls")
        r.check(st["timer_like"] == 0, f"{st['timer_like']} timer-like pauses")
        rows.append(r)
    return rows


def think_cells(tools):
    cells = []
    thinks = [5, 40, 50, 80, 100, 120, 200, 240, 400, 600, 1000, 3000]
    lst = ",".join(str(x) for x in thinks)
    rounds = str(len(thinks) + 1)
    for fam in (4, 6):
        six = ["-6"] if fam == 6 else []
        p = {"thinks": thinks}
        cells.append(Cell(
            "think", f"think-client-v{fam}",
            ["peer-run.sh"] + six + ["-t", "30", "{out}", f"{tools}/lab-peer", "rr", "0",
                                     "--rounds", rounds, "--nodelay", "--", "--rounds",
                                     rounds, "--nodelay", "--think", lst],
            lambda b, o, p=p: eval_rr_think(b, o, p), False, 40))
        cells.append(Cell(
            "think", f"think-server-v{fam}",
            ["peer-run.sh"] + six + ["-t", "30", "{out}", f"{tools}/lab-peer", "rr", "0",
                                     "--rounds", rounds, "--nodelay", "--server-think", lst,
                                     "--", "--rounds", rounds, "--nodelay"],
            lambda b, o, p=p: eval_rr_think(b, o, p), False, 40))
    cells.append(Cell("think", "think-iperf3-control", ["iperf3-run.sh", "{out}", "--",
                                                        "--seconds", "3"],
                      lambda b, o: eval_iperf3(b, o, {}), True, 30))
    cells.append(Cell(
        "think", "nagle-delack (positive control)",
        ["peer-run.sh", "-t", "30", "{out}", f"{tools}/lab-peer", "rr", "0", "--rounds", "20",
         "--", "--rounds", "20"],
        lambda b, o: eval_nagle(b, o, {}), False, 40))
    return cells


HOLD_MIN_NS = 4_000_000  # a 1 ms sampler this late was not run


def host_holds(out, log="server.log"):
    """When the sender's host, not its application, held the transfer (the
    truth a negative control needs on a busy machine: issue 23's "a busy
    host is a real condition"): the gaps of HOLD_MIN_NS or more between the
    sender's --tcp-sample 1 lines, when its sampler thread was not run (the
    VM lost its CPU, or the scheduler ran others). Data queued with nothing
    in flight is no such sign: pacing holds it by design. Intervals in ns,
    CLOCK_REALTIME."""
    try:
        lines = open(f"{out}/{log}").read().splitlines()
    except OSError:
        return []
    holds, prev = [], None
    for sl in lines:
        if not sl.startswith("sample t="):
            continue
        t = int(sl.split()[1][2:])
        if prev is not None and t - prev >= HOLD_MIN_NS:
            holds.append((prev, t))
        prev = t
    return holds


def held_by_host(ev, holds):
    """A stall at least half covered by the host's holds."""
    a = int(ev["ts"] * 1e9)
    b = a + int(ev["duration_s"] * 1e9)
    cover = sum(max(0, min(b, h1) - max(a, h0)) for h0, h1 in holds)
    return cover * 2 >= b - a


def eval_quiet(binary, out, p):
    """A transfer with nothing wrong in it (by its own truth): no finding."""
    t = read_truth(f"{out}/truth.txt")
    rep = tcpsift_json(binary, f"{out}/{p.get('pcap', 'cap.pcap')}")
    c = biggest_conn(rep)
    r = Row(p.get("vantage", "sender side"))
    d = c["s2c"] if c["s2c"]["payload_bytes"] >= c["c2s"]["payload_bytes"] else c["c2s"]
    rtx = int(num(t, "a_TcpRetransSegs") + num(t, "b_TcpRetransSegs"))
    # Nothing wrong, but an application writing small pieces without
    # TCP_NODELAY can meet a delayed ACK (Nagle holds its next write, RFC
    # 896): a real delayed_ack stall, each one a delack timer at the
    # receiver (nstat TcpExtDelayedACKs, either end).
    dacks = int(num(t, "a_TcpExtDelayedACKs") + num(t, "b_TcpExtDelayedACKs"))
    st = c["stalls"]
    r.truth = [("retr", rtx), ("stalls", 0), ("delack timers", dacks),
               ("reordering", 0)] + p.get("extra_truth", [])
    r.tcpsift = [("stalls", st["count"]), ("timer-like", st["timer_like"]),
                 ("think time", st["think_time"]), ("capture gaps", st["capture_gaps"]),
                 ("retr", d["retransmissions"]), ("ooo", d["out_of_order"]),
                 ("undecided", d["fills_undecided"]), ("holes", c["sack"]["holes"])]
    n_dack = st["by_class"].get("delayed_ack", 0)
    # A stall the sender's host caused (truth: host_holds) is a real one,
    # and tcpsift must report it; only stalls nothing explains fail.
    holds = host_holds(out)
    long_holds = [h for h in holds if h[1] - h[0] >= 10_000_000]
    evs = stall_events(rep, c["id"])
    by_host = [e for e in evs if e["class"] != "delayed_ack" and held_by_host(e, holds)]
    if long_holds or by_host:
        r.truth.append(("host holds >= 10 ms", len(long_holds)))
        r.tcpsift.append(("stalls the host held", len(by_host)))
    n_other = st["count"] - n_dack - len(by_host)
    r.check(n_other == 0 and n_dack <= dacks and st["timer_like"] == 0,
            f"{st['count']} stalls ({n_dack} delayed_ack, delack timers {dacks}, "
            f"{len(by_host)} held by the host), {st['timer_like']} timer-like: " +
            "; ".join(f"{e['class']} {e['duration_s']:.3f}s"
                      for e in evs[:4]))
    r.check(d["out_of_order"] == 0 and d["fills_undecided"] == 0,
            f"out_of_order {d['out_of_order']}, undecided {d['fills_undecided']}")
    r.check(within(d["retransmissions"], rtx, 10, 0),
            f"retransmissions {d['retransmissions']} (truth {rtx})")
    for ok, msg in p.get("checks", lambda rep, c, r: [])(rep, c, r):
        r.check(ok, msg)
    return [r]


def eval_outage(binary, out, p):
    src = f"{out}/cap.pcap"
    dst = f"{out}/outage.pcap"
    o = subprocess.run([sys.executable, f"{HERE}/outage.py", src, dst, "--at", "0.5",
                        "--for", "50"], capture_output=True, text=True)
    if o.returncode != 0:
        r = Row("capture with a 50 ms outage")
        r.check(False, f"outage.py failed: {o.stderr.strip()}")
        return [r]
    cut = dict(kv.split("=", 1) for kv in o.stdout.split() if "=" in kv)

    def checks(rep, c, r):
        return [(c["stalls"]["capture_gaps"] >= 1 or int(cut.get("removed_data", 0)) == 0,
                 "the outage is not counted as a capture gap")]
    return eval_quiet(binary, out, {"pcap": "outage.pcap", "vantage": "capture with a 50 ms "
                                    "outage", "checks": checks,
                                    "extra_truth": [("frames cut", cut.get("removed", "?"))]})


def eval_slowread(binary, out, p):
    t = read_truth(f"{out}/truth.txt")
    rep = tcpsift_json(binary, f"{out}/cap.pcap")
    c = conn_by_port(rep, p["port"])
    r = Row(p.get("vantage", "sender side"))
    if c is None:
        r.check(False, f"no connection to port {p['port']}")
        return [r]
    d = c["s2c"]
    st = c["stalls"]
    sender = p["sender"]  # a_ or b_ nstat prefix of the sending side
    receiver = "b_" if sender == "a_" else "a_"
    probes = int(num(t, f"{sender}TcpExtTCPLossProbes"))
    timeouts = int(num(t, f"{sender}TcpExtTCPTimeouts"))
    rwnd = num(t, p["rwnd_key"], -1)
    busy = num(t, p["busy_key"], -1)
    share = f"{100 * rwnd / busy:.0f} %" if rwnd >= 0 and busy > 0 else "?"
    nagle = [e for e in stall_events(rep, c["id"]) if "TCP_NODELAY, or one" in (e["advice"] or "")]
    r.truth = [("rwnd-limited", share), ("TLP", probes), ("RTO", timeouts)]
    tlp = d["tlp_retransmissions"] + d["tlp_new_data"]
    r.tcpsift = [("stalls", st["count"])] + [(k, v) for k, v in sorted(st["by_class"].items())
                                              if v] + [("tail-loss probes", tlp)]
    r.check(not nagle, f"{len(nagle)} stalls advise TCP_NODELAY to a slow reader's sender")
    # A reader that does not keep up makes its kernel hold ACKs: Linux ACKs
    # a second full segment at once only if its window would not shrink
    # (__tcp_ack_snd_check()), so each such wait is a delayed-ACK timer at
    # R. Every delayed_ack stall must be one of them (fewer is fine: timers
    # that fire while the window is closed end no stall).
    dacks = int(num(t, receiver + "TcpExtDelayedACKs", -1))
    n_dack = st["by_class"].get("delayed_ack", 0)
    if dacks >= 0:
        r.truth.append(("delack timers at R", dacks))
        r.check(n_dack <= dacks * 1.1 + 1,
                f"delayed_ack stalls {n_dack}, more than R's delayed-ACK timers {dacks}")
    else:
        r.check(n_dack <= st["count"] * 0.1 + 1, f"delayed_ack {n_dack} of {st['count']} stalls")
    r.check(st["by_class"].get("rto", 0) == timeouts,
            f"rto stalls {st['by_class'].get('rto', 0)}, TcpExtTCPTimeouts {timeouts}")
    # A probe that leaves S while R's ACK is on its way to S reaches the
    # capture point, near R, just after that ACK: within the loop to S it
    # cannot be told from a send the ACK clocked (seen: 24 us after the ACK,
    # loop 19 us), so a run may miss one or two; more is a fault.
    r.check(within(tlp, probes, 10, 2),
            f"tail-loss probes {tlp} not within 10 % (or 2) of LossProbes {probes}")
    return [r]


def quiet_cells(tools):
    cells = []
    for size, every in (("1000", "2"), ("100", "5"), ("16384", "10")):
        nbytes = str(int(size) * 3000 // int(every))  # 3 s of writes
        cells.append(Cell(
            "applim", f"applim-{size}B-every-{every}ms",
            ["peer-run.sh", "-t", "30", "{out}", f"{tools}/lab-peer", "download", nbytes,
             "--write-size", size, "--write-every", every, "--tcp-sample", "1",
             "--"],
            lambda b, o: eval_quiet(b, o, {}), size == "1000", 40))
    for rcv in ("16384", "65536"):
        for every in ("20", "50"):
            p = {"port": 7201, "sender": "b_", "rwnd_key": "server_rwnd_limited_us",
                 "busy_key": "server_busy_time_us"}
            cells.append(Cell(
                "slowread", f"slowread-rcvbuf{rcv}-every{every}ms",
                ["peer-run.sh", "-t", "60", "{out}", f"{tools}/lab-peer", "download", "1M",
                 "--", "--rcvbuf", rcv, "--read-size", "4096", "--read-every", every],
                lambda b, o, p=p: eval_slowread(b, o, p), False, 70))
    p = {"port": 8000, "sender": "a_", "rwnd_key": "sender_rwnd_limited_ms",
         "busy_key": "sender_busy_ms", "vantage": "receiver side"}
    cells.append(Cell("slowread", "curl-limit-rate-20M",
                      ["http-run.sh", "{out}", "--", "--bytes", "50M", "--limit-rate", "20M"],
                      lambda b, o, p=p: eval_slowread(b, o, p), False, 60))
    cells.append(Cell("control", "bulk-nothing-wrong",
                      ["peer-run.sh", "-t", "30", "{out}", f"{tools}/lab-peer", "download", "8M",
                       "--pacing-rate", "8M", "--tcp-sample", "1", "--"],
                      lambda b, o: eval_quiet(b, o, {}), True, 40))
    cells.append(Cell("control", "capture-outage-50ms",
                      ["peer-run.sh", "-t", "30", "{out}", f"{tools}/lab-peer", "download", "4M",
                       "--pacing-rate", "2M", "--tcp-sample", "1", "--"],
                      lambda b, o: eval_outage(b, o, {}), True, 40))
    return cells


# ---- the path sweep: every family over an emulated path, three vantages ----
#
# path-run.sh: A <-> R <-> M <-> B, a lab-relay in R and one in M (path
# mode), each giving half of each one-way delay; captures on A's veth (the
# data sender's interface: every path cell's data of interest flows A -> B),
# on R's veth towards M (a tap in the middle of the path) and on B's veth
# (the receiver's). Loss and the bottleneck are M's (between the tap and B);
# reordering is M spraying A -> B over 4 paths (lab-relay's path mode keeps
# each link in order: jitter is queueing, not reordering).

PATH_RTTS = [  # label, one-way A -> B us, B -> A us
    ("sub-ms", 0, 0), ("2 ms", 1000, 1000), ("20 ms", 10000, 10000),
    ("80 ms", 40000, 40000), ("200 ms", 100000, 100000), ("5/35 ms", 5000, 35000)]
PATH_VANTAGES = (("a", "sender (A)"), ("m", "middle tap"), ("b", "receiver (B)"))
# How late a relay may write a frame (max_late_us) before the path is not
# the one asked for; a cell whose harness failed so runs again (up to
# HARNESS_RETRIES more times), and says so. The relays run SCHED_FIFO; what
# still makes them late is this virtual machine losing its CPUs to the
# hypervisor (steal time, in truth.txt: the 5/35 ms bottleneck's faults came
# exactly in the runs where it moved) and, in runs with no steal, a cause
# not found yet (this kernel is PREEMPT_NONE: a long kernel path elsewhere
# may hold the CPU): a long cell meets them often enough that three tries
# were not always enough.
LATE_BOUND_US = 2000
HARNESS_RETRIES = 4


def pcap_packets(path):
    """(ts, src_port, dst_port, payload_len, tcp_flags) of every IPv4/IPv6
    TCP packet of a classic pcap with Ethernet frames (tcpdump -w)."""
    import struct
    with open(path, "rb") as f:
        d = f.read()
    if len(d) < 24:
        return []
    magic = struct.unpack("<I", d[:4])[0]
    div = 1e9 if magic == 0xA1B23C4D else 1e6
    out, off = [], 24
    while off + 16 <= len(d):
        sec, frac, incl, _ = struct.unpack("<IIII", d[off:off + 16])
        fr, off = d[off + 16:off + 16 + incl], off + 16 + incl
        if len(fr) < 14:
            continue
        et = fr[12:14]
        if et == b"\x08\x00" and len(fr) >= 34:
            ihl = (fr[14] & 15) * 4
            if fr[23] != 6:
                continue
            tot = struct.unpack(">H", fr[16:18])[0]
            th = 14 + ihl
            iplen = tot - ihl
        elif et == b"\x86\xdd" and len(fr) >= 54:
            if fr[20] != 6:
                continue
            th = 54
            iplen = struct.unpack(">H", fr[18:20])[0]
        else:
            continue
        if len(fr) < th + 14:
            continue
        sp, dp = struct.unpack(">HH", fr[th:th + 4])
        doff = (fr[th + 12] >> 4) * 4
        out.append((sec + frac / div, sp, dp, iplen - doff, fr[th + 13]))
    return out


def held_tails(pcap, sport):
    """Responses whose short tail left > 100 ms after a full-size segment:
    the sender's capture's own count of corked tails (findings-stall-cork.sh)."""
    segs = [(t, n) for t, sp, _, n, _ in pcap_packets(pcap) if sp == sport and n > 0]
    if not segs:
        return 0, []
    big = max(n for _, n in segs)
    gaps = [(segs[k][0] - segs[k - 1][0]) * 1000 for k in range(1, len(segs))
            if segs[k][1] < big and segs[k - 1][1] == big and segs[k][0] - segs[k - 1][0] > 0.1]
    return len(gaps), gaps


def path_cmd(tools, rtt, runner_opts, mode, nbytes, sopts, copts, secs=30):
    _, ab, ba = rtt
    return (["path-run.sh", "-t", str(secs), "-d", f"{ab}/{ba}"] + runner_opts +
            ["{out}", f"{tools}/lab-peer", mode, nbytes] + sopts + ["--"] + copts)


def path_rows(binary, out, t, p):
    """One (Row, conn, data-direction stats, report) per vantage."""
    d = "s2c" if t.get("server", "a") == "a" else "c2s"
    res = []
    for v, label in PATH_VANTAGES:
        r = Row(label)
        r.rtt = p["rtt"]
        pcap = f"{out}/{v}.pcap"
        rep = tcpsift_json(binary, pcap)
        c = conn_by_port(rep, 7201)
        if c is None:
            r.check(False, "no connection to port 7201 in the report")
        res.append((v, r, c, c[d] if c else None, rep, pcap))
    return res, d


def judged(rows, t, spray=False):
    """The rows of path_rows() to judge: every row's soundness checked
    (path_sound), then those whose report has the connection."""
    for row in rows:
        path_sound(t, row[1], spray=spray)
        if row[2] is not None:
            yield row


def ipid_inversions(pcap, sport):
    """Data segments from sport that reached this capture after one the
    sender sent later (its IPv4 IP ID, one counter a connection, is the
    send order): reordering before this point, by the hosts' own queues."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", f"tcp.srcport == {sport} && "
                          "tcp.len > 0", "-T", "fields", "-e", "ip.id"],
                         capture_output=True, text=True).stdout.split()
    top, inv = None, 0
    for x in out:
        i = int(x, 0)
        if top is None or 0 < ((i - top) & 0xffff) < 0x8000:
            top = i
        elif i != top:
            inv += 1
    return inv


def path_sound(t, r, spray=False):
    """The harness's own soundness: nothing lost outside the experiment."""
    for x in "amb":
        r.check(int(num(t, f"cap_{x}_drops")) == 0, f"capture {x} dropped "
                f"{t.get(f'cap_{x}_drops')} (harness)")
    r.check(int(num(t, "link_drops")) == 0, f"veth drops {t.get('link_drops')} (harness)")
    keys = ("r_late", "r_unscheduled") + (("m_unsprayed",) if spray else
                                          ("m_late", "m_unscheduled"))
    for k in keys:
        r.check(int(num(t, k)) == 0, f"relay {k} {t.get(k)} (harness)")
    # The relays delivered on schedule: a frame written this long after
    # it was due changed the path under test (a relay that waited for a
    # CPU holds ACKs for tens of ms: the sender then waits on a window
    # the receiver had opened long before).
    late = max([int(v) for k, v in t.items() if re.fullmatch(r"[rm]_(ab|ba)_max_late_us", k)]
               or [0])
    steal = int(num(t, "host_steal_ms"))
    r.check(late <= LATE_BOUND_US, f"a relay wrote a frame {late} us after it was due "
            f"(bound {LATE_BOUND_US}; the host stole {steal} ms of CPU) (harness)")
    r.check(t.get("status") == "0", f"transfer status {t.get('status')}")


def dir_stalls(rep, c, d):
    return [e for e in stall_events(rep, c["id"]) if e["dir"] == d]


def stall_str(evs, n=3):
    return "; ".join(f"{e['class']} {1000 * e['duration_s']:.0f}ms@{e['frames'][0]}"
                     for e in evs[:n])


def steal_note(t, evs):
    """" (harness)" when every stall of a control is one the host's steal
    time covers: an `unknown` gap no longer than the CPU time the hypervisor
    took during the run (its 10 ms ticks included) - the virtual machine
    stopped, which a capture sees as a pause no path or peer explains; the
    control was not run as asked."""
    steal = num(t, "host_steal_ms")
    if evs and steal > 0 and all(e["class"] == "unknown" and
                                 1000 * e["duration_s"] <= steal + 10 for e in evs):
        return f" (all within the {steal:.0f} ms of CPU the hypervisor took) (harness)"
    return ""


def eval_path_nagle(binary, out, p):
    """Nagle x delayed ACK: the client (A) writes 100 + 100 bytes without
    TCP_NODELAY and waits; B delays its ACK of the first (its delack timer:
    B's TcpExtDelayedACKs), Nagle holds the second until then."""
    t = read_truth(f"{out}/truth.txt")
    dack = int(num(t, "b_TcpExtDelayedACKs"))
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, _ in judged(rows, t):
        ev = stall_events(rep, c["id"])
        n = sum(e["class"] == "delayed_ack" and e["dir"] == d for e in ev)
        other = [e for e in ev if not (e["class"] == "delayed_ack" and e["dir"] == d)]
        r.truth = [("delack timers (B)", dack), ("rounds", p["rounds"])]
        r.tcpsift = [("delayed_ack", n), ("other stalls", len(other))]
        r.check(dack >= p["rounds"] // 2, f"only {dack} delayed ACKs for {p['rounds']} rounds "
                "(the scenario did not happen)")
        r.check(within(n, dack, 10, 1), f"delayed_ack stalls {n} not within 10 % of "
                f"TcpExtDelayedACKs {dack}" + (f": {stall_str([e for e in ev if e['class'] != 'delayed_ack'])}" if n < dack else ""))
        r.check(not other, f"{len(other)} other stalls: {stall_str(other)}")
    return [r for _, r, *_ in rows]


def eval_path_nodelay(binary, out, p):
    """The control: the same rounds with TCP_NODELAY: no stall at all."""
    t = read_truth(f"{out}/truth.txt")
    dack = int(num(t, "b_TcpExtDelayedACKs"))
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, _ in judged(rows, t):
        ev = stall_events(rep, c["id"])
        st = c["stalls"]
        r.truth = [("stalls", 0), ("delack timers nobody waited for (B)", dack)]
        r.tcpsift = [("stalls", len(ev)), ("timer-like", st["timer_like"])]
        r.check(not ev and st["timer_like"] == 0,
                f"{len(ev)} stalls, {st['timer_like']} timer-like: {stall_str(ev)}" +
                steal_note(t, ev))
    return [r for _, r, *_ in rows]


def eval_path_cork(binary, out, p):
    """TCP_CORK left set 500 ms: A holds each response's tail until its
    probe timer (max(RTO, 200 ms)) or the uncork: one sender_idle stall per
    held tail (counted on A's own capture), nothing else."""
    t = read_truth(f"{out}/truth.txt")
    tails, gaps = held_tails(f"{out}/a.pcap", 7201)
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, _ in judged(rows, t):
        ev = stall_events(rep, c["id"])
        # A timer-like pause at a turn boundary is the server sleeping out
        # its cork hold with the next request unread (the application's
        # own pause): DESIGN.md says report it as sender_idle, timer-like,
        # ambiguous; it is neither a held tail nor a false stall.
        turn = [e for e in ev if e["dir"] == d and "turn boundary" in (e["reason"] or "")]
        si = [e for e in ev if e["class"] == "sender_idle" and e["dir"] == d and e not in turn]
        other = [e for e in ev if e["dir"] == d and e not in si and e not in turn]
        back = [e for e in ev if e["dir"] != d]
        r.truth = [("held tails (A's capture)", tails),
                   ("tail wait ms", f"{min(gaps or [0]):.0f}-{max(gaps or [0]):.0f}"),
                   ("rounds", p["rounds"]),
                   ("client TLPs", int(num(t, "b_TcpExtTCPLossProbes"))),
                   ("server delack timers", int(num(t, "a_TcpExtDelayedACKs")))]
        r.tcpsift = [("sender_idle in a write", len(si)), ("turn-boundary pauses", len(turn)),
                     ("of them timer-like", sum(e["timer_like"] for e in turn)),
                     ("other stalls", len(other)), ("client's stalls", len(back))]
        if si:
            r.tcpsift.append(("ms", f"{1000 * min(e['duration_s'] for e in si):.0f}-"
                                    f"{1000 * max(e['duration_s'] for e in si):.0f}"))
        r.check(within(tails, p["rounds"], 10, 1), f"{tails} held tails for {p['rounds']} "
                "rounds (the scenario did not happen)")
        short = [e for e in si if e["duration_s"] < 0.1]
        r.check(within(len(si), tails, 10, 0), f"sender_idle stalls in a write {len(si)} not "
                f"within 10 % of the {tails} held tails" +
                (f" ({len(short)} shorter than 100 ms: {stall_str(short)})" if short else ""))
        r.check(all(e["timer_like"] for e in turn), "a turn-boundary pause called a proven "
                "stall: " + stall_str([e for e in turn if not e["timer_like"]]))
        r.check(not other, f"{len(other)} other stalls: {stall_str(other)}")
    return [r for _, r, *_ in rows]


def eval_path_zw(binary, out, p):
    """A receiver (B) that stops reading for 1.5 s with an 8 KiB buffer: one
    zero_window stall per window B reopened (its TcpExtTCPFromZeroWindowAdv)."""
    t = read_truth(f"{out}/truth.txt")
    frm = int(num(t, "b_TcpExtTCPFromZeroWindowAdv"))
    to = int(num(t, "b_TcpExtTCPToZeroWindowAdv"))
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, _ in judged(rows, t):
        ev = stall_events(rep, c["id"])
        zw = [e for e in ev if e["class"] == "zero_window" and e["dir"] == d]
        top = max(zw, key=lambda e: e["duration_s"]) if zw else None

        def overlaps(e):
            return top is not None and e["ts"] < top["ts"] + top["duration_s"] and \
                top["ts"] < e["ts"] + e["duration_s"]
        inside = [e for e in ev if e not in zw and overlaps(e)]
        r.truth = [("windows reopened (B)", frm), ("closed (B)", to),
                   ("stalls besides", "delayed_ack, rwnd_limited only")]
        r.tcpsift = [("zero_window", len(zw)), ("longest ms",
                                                 f"{1000 * top['duration_s']:.0f}" if top else "-"),
                     ("other stalls inside it", len(inside)),
                     ("others", len(ev) - len(zw) - len(inside))]
        r.check(to >= 1, "B never advertised a zero window (the scenario did not happen)")
        r.check(len(zw) == frm, f"zero_window stalls {len(zw)} != TcpExtTCPFromZeroWindowAdv "
                f"{frm}" + (f"; instead: {stall_str([e for e in ev if e not in zw])}"
                            if len(zw) < frm else ""))
        r.check(not inside, f"{len(inside)} other stalls inside the zero window: "
                f"{stall_str(inside)}")
        # Before it, a window-limited sender may wait for ACKs B delays
        # (real: delayed_ack, up to B's delack timers); nothing else
        # happens in this transfer (no loss, no probe, no RTO).
        # rwnd_limited: the flight filled B's shrinking window before it
        # closed (B stopped reading): real, DESIGN.md's slow-reader wait.
        rest = [e for e in ev if e not in zw and e not in inside]
        n_dack = sum(e["class"] == "delayed_ack" for e in rest)
        bad = [e for e in rest if e["class"] not in ("delayed_ack", "rwnd_limited")]
        dack = int(num(t, "b_TcpExtDelayedACKs"))
        r.truth.append(("delack timers (B)", dack))
        r.check(n_dack <= dack, f"{n_dack} delayed_ack stalls for {dack} delack timers")
        r.check(not bad, f"{len(bad)} stalls that did not happen ("
                f"{', '.join(sorted({e['class'] for e in bad}))}; in flight > 0 in "
                f"{sum(e['in_flight'] > 0 for e in bad)}): {stall_str(bad)}")
    return [r for _, r, *_ in rows]


def eval_path_loss(binary, out, p):
    """1 % of A's data segments dropped by M (between the tap and B): A and
    the tap are upstream of the loss, B downstream."""
    t = read_truth(f"{out}/truth.txt")
    rtx = int(num(t, "a_TcpRetransSegs"))
    drops = int(num(t, "m_drop_data_ab"))
    probes = int(num(t, "a_TcpExtTCPLossProbes"))
    timeouts = int(num(t, "a_TcpExtTCPTimeouts"))
    fam = int(num(t, "family", 4))
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, pcap in judged(rows, t):
        ooo, und, ret, lost_up = (dd["out_of_order"], dd["fills_undecided"],
                                  dd["retransmissions"], dd["lost_upstream"])
        tlp = dd["tlp_retransmissions"] + dd["tlp_new_data"]
        r.check(drops >= 3, f"M dropped only {drops} data segments (the scenario did not happen)")
        r.check(ooo == 0, f"out_of_order {ooo} on a path that keeps order")
        if v in "am":
            r.truth = [("dropped after it", drops), ("retr", rtx), ("TLP", probes),
                       ("RTO", timeouts)]
            r.tcpsift = [("retr", ret), ("tlp", tlp), ("rto", dd["rto_retransmissions"]),
                         ("lost upstream", lost_up), ("ooo", ooo), ("undecided", und),
                         ("holes", c["sack"]["holes"])]
            r.check(within(ret, rtx), f"retransmissions {ret} not within 10 % of "
                    f"TcpRetransSegs {rtx}")
            r.check(within(tlp, probes), f"tail-loss probes {tlp} not within 10 % of "
                    f"LossProbes {probes}")
            r.check(lost_up == 0, f"lost_upstream {lost_up}: the loss is downstream of it")
            r.check(und == 0, f"undecided {und} upstream of the loss")
        else:
            reached, visible = retransmissions_seen_at(f"{out}/a.pcap", pcap, 7201, fam)
            r.truth = [("dropped before it", drops), ("retr reaching it", reached),
                       ("of them below its highest byte", visible)]
            r.tcpsift = [("retr", ret), ("lost upstream", lost_up), ("undecided", und),
                         ("ooo", ooo), ("holes", c["sack"]["holes"])]
            r.check(within(ret + und, visible), f"retransmissions {ret} + undecided {und} not "
                    f"within 10 % of the {visible} retransmissions that reached it below its "
                    "highest byte")
            r.check(ret <= reached, f"retransmissions {ret} > the {reached} that reached it")
            r.check(within(lost_up, visible), f"lost_upstream {lost_up} not within 10 % of "
                    f"{visible} (every loss is upstream of B)")
            if fam == 4:
                r.check(und <= visible * 0.1 + 2, f"undecided {und} with IPv4 IP IDs")
    return [r for _, r, *_ in rows]


def outage_window(pcap):
    """--at (s after the first packet) for a 50 ms window in the middle of
    the data, or None."""
    pk = pcap_packets(pcap)
    data = sorted(x[0] for x in pk if x[3] > 0)
    if not pk or len(data) < 10:
        return None
    # Centred on the middle data segment by count, not by time: on a long
    # path the data comes in bursts a round trip apart, and the middle of
    # the transfer's time can fall between two (seen at 200 ms).
    return data[len(data) // 2] - 0.025 - min(x[0] for x in pk)


def eval_path_clean(binary, out, p):
    """A paced download over the path with nothing wrong (the control of the
    loss, stall, reorder, MTU and capture-loss families), then each vantage's
    capture with a 50 ms outage cut into it (the capture-loss positive)."""
    t = read_truth(f"{out}/truth.txt")
    rtx = int(num(t, "a_TcpRetransSegs"))
    dacks = int(num(t, "a_TcpExtDelayedACKs") + num(t, "b_TcpExtDelayedACKs"))
    mss = int(num(t, "server_snd_mss"))
    mtu = int(num(t, "mtu", 1500))
    rows, d = path_rows(binary, out, t, p)
    res = []
    # Nothing on this path reorders, but the hosts' per-CPU queues may (as
    # in the spray family; make check: 5 segments before the tap once, with
    # the relays starved of CPU): the IP IDs at each capture say how many,
    # and B's SACKs of them are holes at every vantage.
    host = {v: ipid_inversions(pcap, 7201) for v, _, _, _, _, pcap in rows}
    for v, r, c, dd, rep, pcap in rows:
        path_sound(t, r)
        res.append(r)
        if c is None:
            continue
        st = c["stalls"]
        ev = stall_events(rep, c["id"])
        mf = c["mtu_findings"]
        mtu_ev = [e for e in rep["events"] if e["type"] in ("mtu_alignment", "oversize_segment")]
        r.truth = [("retr", rtx), ("stalls", 0), ("host-reordered (IP ID)", host[v]),
                   ("capture loss", 0), ("MTU", mtu), ("snd_mss", mss)]
        r.tcpsift = [("retr", dd["retransmissions"]), ("stalls", len(ev)),
                     ("ooo", dd["out_of_order"]), ("undecided", dd["fills_undecided"]),
                     ("holes", c["sack"]["holes"]),
                     ("capture loss", rep["summary"]["findings"]["capture_loss_segments"]),
                     ("implied MTU", mf["implied_mtu"][d]), ("MTU events", len(mtu_ev))]
        r.check(within(dd["retransmissions"], rtx, 10, 0), f"retransmissions "
                f"{dd['retransmissions']} (TcpRetransSegs {rtx})")
        n_dack = sum(e["class"] == "delayed_ack" for e in ev)
        r.check(len(ev) - n_dack == 0 and n_dack <= dacks and st["timer_like"] == 0,
                f"{len(ev)} stalls ({n_dack} delayed_ack, delack timers {dacks}), "
                f"{st['timer_like']} timer-like: {stall_str(ev)}" +
                steal_note(t, [e for e in ev if e["class"] != "delayed_ack"]))
        r.check(dd["out_of_order"] + dd["fills_undecided"] <= host[v] and
                (rtx > 0 or c["sack"]["holes"] <= host.get("b", 0)),
                f"out_of_order {dd['out_of_order']}, undecided {dd['fills_undecided']}, "
                f"holes {c['sack']['holes']} (the hosts reordered {host[v]} before this "
                f"capture, {host.get('b', 0)} before B)")
        r.check(rep["summary"]["findings"]["capture_loss_segments"] == 0,
                f"capture loss {rep['summary']['findings']['capture_loss_segments']} in a "
                "complete capture")
        r.check(mf["largest_payload"][d] == mss and mf["implied_mtu"][d] == mtu,
                f"largest payload {mf['largest_payload'][d]} / implied MTU "
                f"{mf['implied_mtu'][d]} (kernel snd_mss {mss}, link MTU {mtu})")
        r.check(not mtu_ev and not mf["misaligned"], f"{len(mtu_ev)} MTU events at MTU {mtu}")
        # The capture-loss positive: the same capture, 50 ms cut out.
        o = Row(f"{r.vantage}, 50 ms cut")
        o.rtt = p["rtt"]
        o.family = "path: capture loss"
        res.append(o)
        at = outage_window(pcap)
        if at is None:
            o.check(False, "no data to cut")
            continue
        cut_pcap = f"{out}/{v}-outage.pcap"
        x = subprocess.run([sys.executable, f"{HERE}/outage.py", pcap, cut_pcap, "--at",
                            f"{at:.6f}", "--for", "50"], capture_output=True, text=True)
        if x.returncode != 0:
            o.check(False, f"outage.py failed: {x.stderr.strip()}")
            continue
        cut = dict(kv.split("=", 1) for kv in x.stdout.split() if "=" in kv)
        removed = int(cut.get("removed_data", 0))
        rep2 = tcpsift_json(binary, cut_pcap)
        c2 = conn_by_port(rep2, 7201)
        if c2 is None:
            o.check(False, "no connection in the cut capture")
            continue
        lost = rep2["summary"]["findings"]["capture_loss_segments"]
        ev2 = [e for e in stall_events(rep2, c2["id"]) if e["class"] != "delayed_ack"]
        o.truth = [("data segments cut", removed), ("frames cut", cut.get("removed", "?")),
                   ("stalls", 0)]
        o.tcpsift = [("capture loss segments", lost), ("capture gaps",
                                                       c2["stalls"]["capture_gaps"]),
                     ("stalls", len(ev2))]
        o.check(removed >= 5, f"only {removed} data segments cut (the scenario did not happen)")
        o.check(within(lost, removed), f"capture loss {lost} not within 10 % of the {removed} "
                "data segments cut")
        o.check(not ev2, f"{len(ev2)} stalls in a capture outage: {stall_str(ev2)}" +
                steal_note(t, ev2))
    return res


def eval_path_mtu(binary, out, p):
    """MTU 9000 on every link of the path: 8948-byte payloads (9000 - 52),
    8948 mod 4096 = 756: misaligned, one mtu_alignment finding, at every
    vantage (the kernel's snd_mss is the truth for the payload)."""
    t = read_truth(f"{out}/truth.txt")
    mss = int(num(t, "server_snd_mss"))
    mtu = int(num(t, "mtu"))
    want_mis = mtu > 4096 and mss % 4096 != 0
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, _ in judged(rows, t):
        mf = c["mtu_findings"]
        nev = sum(e["type"] == "mtu_alignment" for e in rep["events"])
        r.truth = [("MTU", mtu), ("snd_mss", mss), ("misaligned", want_mis)]
        r.tcpsift = [("largest payload", mf["largest_payload"][d]),
                     ("implied MTU", mf["implied_mtu"][d]), ("misaligned", mf["misaligned"]),
                     ("mtu_alignment events", nev), ("oversize", mf["oversize_segments"])]
        r.check(mss == mtu - 52, f"kernel snd_mss {mss} != MTU - 52 (the scenario did not "
                "happen)")
        r.check(mf["largest_payload"][d] == mss, f"largest payload {mf['largest_payload'][d]} "
                f"!= snd_mss {mss}")
        r.check(mf["implied_mtu"][d] == mtu, f"implied MTU {mf['implied_mtu'][d]} != {mtu}")
        r.check(mf["misaligned"] == want_mis and nev == int(want_mis),
                f"misaligned {mf['misaligned']}, {nev} mtu_alignment events (want {want_mis})")
        r.check(mf["oversize_segments"] == 0, f"{mf['oversize_segments']} oversize segments "
                "with offloads off")
    return [r for _, r, *_ in rows]


def eval_path_reorder(binary, out, p):
    """M sprays A -> B over 4 paths 0-500 us apart (lab-relay paths mode):
    the reordering is between the tap and B."""
    t = read_truth(f"{out}/truth.txt")
    late = int(num(t, "spray_late_orig") + num(t, "spray_copy_orig"))
    rtx = int(num(t, "a_TcpRetransSegs"))
    dsack = int(num(t, "a_TcpExtTCPDSACKRecv") + num(t, "a_TcpExtTCPDSACKOfoRecv"))
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, pcap in judged(rows, t, spray=True):
        ooo, und, ret = dd["out_of_order"], dd["fills_undecided"], dd["retransmissions"]
        lost_up, spur = dd["lost_upstream"], dd["spurious_retransmissions"]
        r.tcpsift = [("ooo", ooo), ("undecided", und), ("retr", ret), ("lost upstream", lost_up),
                     ("spurious", spur)]
        r.check(within(ret, rtx), f"retransmissions {ret} not within 10 % of "
                f"TcpRetransSegs {rtx}")
        r.check(lost_up == 0, f"lost_upstream {lost_up} (nothing was lost)")
        if v == "b":
            r.truth = [("late", late), ("retr", rtx), ("D-SACKed", dsack)]
            r.check(late >= 50, f"the relay reordered only {late} segments")
            r.check(ooo <= late * 1.1 + 2, f"out_of_order {ooo} > late {late} + 10 %")
            r.check(within(ooo + und, late), f"out_of_order {ooo} + undecided {und} not "
                    f"within 10 % of late {late}")
            r.check(und <= late * 0.1 + 2, f"undecided {und} > 10 % of late {late} with "
                    "IPv4 IP IDs")
        else:
            # Before the relay's reordering only the hosts' per-CPU queues
            # reorder (make check: 8 at the tap once): the IP IDs show it.
            host = ipid_inversions(pcap, 7201)
            r.truth = [("late", 0), ("host-reordered (IP ID)", host), ("retr", rtx),
                       ("D-SACKed", dsack)]
            r.check(ooo + und <= host, f"out_of_order {ooo} / undecided {und} before "
                    f"the reordering point (the hosts reordered {host})")
            r.check(within(spur, dsack), f"spurious {spur} not within 10 % of D-SACKed {dsack}")
    return [r for _, r, *_ in rows]


RECV = ("receiver_window", "receiver_app")
INSIDE = ("congestion", "slow_start", "bottleneck", "stall")


def receiver_share(lb):
    """A limited_by's receiver share of the busy (not idle) time, and its
    tcpsift columns: the dominant class, that share, other classes >= 5 %."""
    sh = lb["shares"]
    total = sum(lb["time_s"].values())
    busy_part = 1.0 - lb["idle_s"] / total if total else 1.0
    busy_part = busy_part if busy_part > 0 else 1.0
    t_rwnd = (sh["receiver_window"] + sh["receiver_app"]) / busy_part
    return t_rwnd, [("dominant", lb["dominant"]), ("receiver", f"{100 * t_rwnd:.0f} %")] + \
        [(x, f"{100 * y:.0f} %") for x, y in sorted(sh.items()) if y >= 0.05 and x not in RECV]


def kernel_limits(t, out):
    """The sender's (A's) own account (findings-limit.sh's rules): TCP_INFO
    chrono counters and the 1 ms --tcp-sample lines of server.log."""
    busy = num(t, "server_busy_time_us")
    rwnd = num(t, "server_rwnd_limited_us")
    snd = num(t, "server_sndbuf_limited_us")
    n_busy = n_snd = n_app = n_cwnd = 0
    first_w = last = None
    try:
        lines = open(f"{out}/server.log").read().splitlines()
    except OSError:
        lines = []
    for sl in lines:
        if sl.startswith("write t=") and first_w is None:
            first_w = int(sl.split()[1][2:])
        if sl.startswith("tcp_info t="):
            last = int(sl.split()[1][2:])
        if not sl.startswith("sample "):
            continue
        v = {a: int(b) for a, b in (w.split("=", 1) for w in sl.split()[1:])}
        if not v["unacked"] and not v["notsent"]:
            continue
        n_busy += 1
        wnd_full = (v["unacked"] + 1) * v["mss"] > v["snd_wnd"]
        buf_full = 3 * v["wmem_queued"] > 2 * v["sndbuf"]
        if wnd_full:
            continue  # the receiver's window: TCP_CHRONO_RWND_LIMITED counts it
        if v["unacked"] >= v["cwnd"]:
            n_cwnd += 1
        elif v["notsent"] < v["mss"] and v["sndbuf"] - v["wmem_queued"] >= 4096:
            # Nothing queued but a sub-MSS remainder (Nagle holds it while
            # data is in flight), room for the next write, both windows
            # open: the writer is the limit. wmem_queued counts the flight
            # too, so a small autotuned buffer can be 2/3 full here.
            n_app += 1
        elif not v["notsent"] and buf_full:
            n_snd += 1
    elapsed = (last - first_w) / 1000.0 if first_w and last else 0
    k = {"busy_ms": busy / 1000, "elapsed_ms": elapsed / 1000,
         "rwnd": rwnd / busy if busy else 0.0,
         "sndbuf": max(snd / busy if busy else 0.0, n_snd / n_busy if n_busy else 0.0),
         "app": n_app / n_busy if n_busy else 0.0,
         "cwnd": n_cwnd / n_busy if n_busy else 0.0, "samples": n_busy}
    if busy < elapsed / 2 or k["app"] > 0.5:
        k["dom"] = "sender_app"
    else:
        k["dom"] = max((k["rwnd"], "receiver"), (k["sndbuf"], "sender_buffer"),
                       (1.0 - k["rwnd"] - k["sndbuf"], "inside"))[1]
    return k


def eval_path_limit(binary, out, p):
    """What limited A's download (limited_by), against A's own account.
    want: the limit the scenario sets up (inside: a bottleneck the relay
    queues at; receiver: a 16 KiB SO_RCVBUF; sender_app: small paced writes)."""
    t = read_truth(f"{out}/truth.txt")
    k = kernel_limits(t, out)
    qd = int(num(t, "m_ab_dropped_queue"))
    mq = int(num(t, "m_ab_max_queue"))
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, _ in judged(rows, t):
        lb = dd.get("limited_by")
        r.truth = [("kernel", k["dom"]), ("rwnd", f"{100 * k['rwnd']:.0f} %"),
                   ("sndbuf", f"{100 * k['sndbuf']:.0f} %"),
                   ("app-limited samples", f"{100 * k['app']:.0f} %"),
                   ("cwnd-full samples", f"{100 * k['cwnd']:.0f} %")]
        if p["want"] == "inside":
            r.truth += [("queue drops", qd), ("max queue", mq)]
        if not lb:
            r.check(False, "no limited_by")
            continue
        sh = lb["shares"]
        t_rwnd, r.tcpsift = receiver_share(lb)
        dom = lb["dominant"]
        t_dom = "receiver" if dom in RECV else "inside" if dom in INSIDE else dom
        r.check(k["dom"] == p["want"], f"the kernel says {k['dom']}, not {p['want']} "
                "(the scenario did not happen)")
        if p["want"] == "inside":
            r.check(mq >= 10, f"the bottleneck queue held at most {mq} frames")
            r.check(dom in ("congestion", "bottleneck"), f"dominant {dom}, not congestion or "
                    "bottleneck (a rate-limited queue)")
        elif p["want"] == "sender_app" and v != "a":
            # DESIGN.md (Vantage): away from the sender the sending
            # application and its send buffer cannot be told apart.
            # ("sender": tcpsift's own name for them there, limit_v_*.)
            r.check(dom in ("sender_app", "sender_buffer", "sender"),
                    f"dominant {dom}, not a sender-side limit (the kernel's {k['dom']})")
        else:
            r.check(t_dom == k["dom"], f"dominant {dom} vs the kernel's {k['dom']}")
        if p["want"] == "receiver":
            r.check(abs(t_rwnd - k["rwnd"]) <= 0.10, f"receiver share {t_rwnd:.2f} vs kernel "
                    f"rwnd_limited/busy {k['rwnd']:.2f}")
        if p["want"] == "sender_app":
            ev = stall_events(rep, c["id"])
            r.check(not ev, f"{len(ev)} stalls from an app-limited sender: {stall_str(ev)}")
            r.check("SO_RCVBUF" not in (lb["advice"] or ""), "receive-buffer advice to an "
                    "app-limited sender")
    return [r for _, r, *_ in rows]


def size_bytes(s):
    """lab-peer's sizes: "512K" -> 524288."""
    mul = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(s[-1:].lower(), 1)
    return int(s[:-1] if mul > 1 else s) * mul


def reader_log(out):
    """The reading client's own account (client.log): the bytes each of
    its recv() calls returned (the one at EOF left out). A call that got
    the whole --read-size found data waiting: the reader, not the path,
    set the pace."""
    sizes = []
    try:
        lines = open(f"{out}/client.log").read().splitlines()
    except OSError:
        lines = []
    for sl in lines:
        if sl.startswith("read "):
            n = int(sl.split()[2].split("=", 1)[1])
            if n > 0:
                sizes.append(n)
    return sizes


def sender_waits(out):
    """From the sender's (A's) 1 ms --tcp-sample lines in server.log: the
    seconds its kernel saw the receiver's window below one segment
    (tcpi_snd_wnd < tcpi_snd_mss: it could send nothing, whatever it had
    queued), the seconds it had nothing at all (nothing unacked, nothing
    queued: its application's own pauses) and the seconds sampled. Each
    sample stands for the interval to the next one."""
    zw = idle = total = 0.0
    prev = None
    try:
        lines = open(f"{out}/server.log").read().splitlines()
    except OSError:
        lines = []
    for sl in lines:
        if not sl.startswith("sample "):
            continue
        v = {a: int(b) for a, b in (w.split("=", 1) for w in sl.split()[1:])}
        if prev is not None:
            dt = (v["t"] - prev["t"]) / 1e9
            total += dt
            if prev["snd_wnd"] < prev["mss"]:
                zw += dt
            if not prev["unacked"] and not prev["notsent"]:
                idle += dt
        prev = v
    return zw, idle, total


# Verdicts that blame the sender: its application or its socket options.
SENDER_BLAME = ("TCP_NODELAY, or one", "TCP_CORK", "MSG_MORE", "SO_SNDBUF", "tcp_wmem")


def eval_path_slowread(binary, out, p):
    """A slow reader (B) behind a 16 KiB SO_RCVBUF, reading 4 KiB every
    50 ms, downloading from A: A waits on B's window (its TCP_INFO:
    rwnd_limited most of its busy time; its 1 ms samples: how long B's
    window was below one segment), B holds ACKs while its window cannot
    open (its TcpExtDelayedACKs) and closes its window when its buffer
    fills (TcpExtTCPToZeroWindowAdv / FromZeroWindowAdv). Nothing is lost
    but what A's own probes re-sent (its TcpRetransSegs, TCPLossProbes,
    TCPTimeouts)."""
    t = read_truth(f"{out}/truth.txt")
    k = kernel_limits(t, out)
    zw_s, idle_s, sampled = sender_waits(out)
    idle_share = idle_s / sampled if sampled else 0.0
    reads = reader_log(out)
    full = sum(n >= p["read_size"] for n in reads)
    dack = int(num(t, "b_TcpExtDelayedACKs"))
    zw_to = int(num(t, "b_TcpExtTCPToZeroWindowAdv"))
    zw_from = int(num(t, "b_TcpExtTCPFromZeroWindowAdv"))
    probes = int(num(t, "a_TcpExtTCPLossProbes"))
    timeouts = int(num(t, "a_TcpExtTCPTimeouts"))
    rtx = int(num(t, "a_TcpRetransSegs"))
    rows, d = path_rows(binary, out, t, p)
    for v, r, c, dd, rep, _ in judged(rows, t):
        r.truth = [("kernel", k["dom"]), ("rwnd", f"{100 * k['rwnd']:.0f} %"),
                   ("A idle", f"{100 * idle_share:.0f} %"),
                   ("A's window < 1 MSS s", f"{zw_s:.2f}"), ("reads", len(reads)),
                   ("of them full", f"{100 * full / len(reads):.0f} %" if reads else "-"),
                   ("delack timers (B)", dack), ("zero windows (B)", f"{zw_to}/{zw_from}"),
                   ("retr", rtx), ("TLP", probes), ("RTO", timeouts)]
        # The scenario: A's kernel says it waited on B's window, and B's
        # application read what it was told to, no more per call.
        r.check(k["dom"] == "receiver", f"the kernel says {k['dom']}, not receiver (the "
                "scenario did not happen)")
        r.check(sum(reads) == size_bytes(t.get("bytes", "0")) and
                max(reads or [0]) <= p["read_size"],
                f"the reader read {sum(reads)} B in {len(reads)} calls of up to "
                f"{max(reads or [0])} B (the scenario did not happen)")
        ev = dir_stalls(rep, c, d)

        def of(cls):
            return [e for e in ev if e["class"] == cls]
        by = {}
        for e in ev:
            by[e["class"]] = by.get(e["class"], 0) + 1
        lb = dd.get("limited_by")
        r.tcpsift = [("stalls", len(ev))] + sorted(by.items())
        if not lb:
            r.check(False, "no limited_by")
            continue
        sh = lb["shares"]
        t_rwnd, cols = receiver_share(lb)
        dom = lb["dominant"]
        r.tcpsift = cols + [("zero window s", f"{lb['zero_window_s']:.2f}")] + r.tcpsift
        # What limited A: B's side (its window or its reader), as much of
        # A's busy time as its kernel counted rwnd-limited.
        r.check(dom in RECV, f"dominant {dom}, not the receiver (the kernel's {k['dom']}, "
                f"rwnd-limited {100 * k['rwnd']:.0f} %)")
        r.check(abs(t_rwnd - k["rwnd"]) <= 0.10, f"receiver share {t_rwnd:.2f} vs kernel "
                f"rwnd_limited/busy {k['rwnd']:.2f}")
        # Time A waited on B is not its application's: "sending
        # application" (nothing in flight, nothing to send) at most where
        # A's kernel had nothing to send, within the same 10 %.
        r.check(sh["sender_app"] <= idle_share + 0.10,
                f"sender_app {100 * sh['sender_app']:.0f} % where A's kernel had nothing to "
                f"send {100 * idle_share:.0f} % of the time (B's window below one segment "
                f"{zw_s:.2f} s)")
        # How long B's window was closed is the same seen from anywhere on
        # the path (its closing and its reopening cross the path alike).
        r.check(zw_to > 0 or lb["zero_window_s"] == 0,
                f"zero window for {lb['zero_window_s']:.3f} s where B advertised none")
        r.check(within(lb["zero_window_s"], zw_s, 10, 0.02),
                f"zero window {lb['zero_window_s']:.3f} s not within 10 % (or 20 ms) of the "
                f"{zw_s:.3f} s A's kernel had B's window below one segment")
        # B withholds the ACK of a second full segment while the window it
        # could offer would shrink (__tcp_ack_snd_check()), until its
        # delayed-ACK timer: every delayed_ack stall is one of B's timers.
        r.check(by.get("delayed_ack", 0) <= dack * 1.1 + 1,
                f"delayed_ack stalls {by.get('delayed_ack', 0)}, more than B's delayed-ACK "
                f"timers {dack}: {stall_str(of('delayed_ack'))}")
        # A zero_window stall begins with a zero window B advertised (its
        # TCPToZeroWindowAdv). Fewer is fine: a window B reopened within
        # the gap threshold (--stall-min and the loop) held nobody long.
        r.check(by.get("zero_window", 0) <= zw_to,
                f"zero_window stalls {by.get('zero_window', 0)}, more than the {zw_to} zero "
                f"windows B advertised: {stall_str(of('zero_window'))}")
        # Nothing was lost: a stall a retransmission or a probe ended
        # needs one of A's.
        for cls, n_truth, what in (("rto", timeouts, "TcpExtTCPTimeouts"),
                                   ("tlp", probes, "TcpExtTCPLossProbes"),
                                   ("loss_recovery", rtx, "TcpRetransSegs")):
            r.check(by.get(cls, 0) <= n_truth, f"{cls} stalls {by.get(cls, 0)} for A's {what} "
                    f"{n_truth}: {stall_str(of(cls))}")
        # The hold is B's: no verdict and no advice for the sender (its
        # application, Nagle, TCP_CORK, its send buffer).
        blame = [e for e in ev if e["class"] == "sender_idle" or
                 any(w in (e["advice"] or "") for w in SENDER_BLAME)]
        r.check(not blame, f"{len(blame)} stalls blame the sender for B's hold: "
                f"{stall_str(blame)} ({'; '.join(sorted({e['reason'] for e in blame}))})")
        r.check(not any(w in (lb["advice"] or "") for w in SENDER_BLAME),
                f"limited_by advice for the sender: {lb['advice']}")
    return [r for _, r, *_ in rows]


# family -> scenarios: (name, runner options, mode, bytes, server opts,
# client opts, evaluator, extra p, seconds, check RTTs)
def path_cells(tools):
    cells = []
    rr = ["--rounds", "10", "--req-size", "200", "--req-split", "100", "--resp-size", "1000"]
    cork = ["--rounds", "10", "--req-size", "200", "--resp-size", "3000"]
    scen = [
        ("path: stalls", "nagle", ["-s", "b"], "rr", "0", rr, rr, eval_path_nagle,
         {"rounds": 10}, ("20 ms",)),
        ("path: stalls", "nodelay", ["-s", "b"], "rr", "0", rr, rr + ["--nodelay"],
         eval_path_nodelay, {}, ("20 ms",)),
        ("path: stalls", "cork", ["-s", "a"], "rr", "0", cork + ["--cork", "--cork-hold", "500"],
         cork + ["--nodelay"], eval_path_cork, {"rounds": 10}, ("80 ms",)),
        ("path: stalls", "zero-window", ["-s", "b"], "bulk", "262144",
         ["--rcvbuf", "8K", "--stop-reading-after", "32K", "--resume-after", "1500"],
         ["--pacing-rate", "20M"], eval_path_zw, {}, ()),
        ("path: sack/loss", "loss-1pct", ["-s", "a", "-I", "--loss-ab-pct 1"], "download", "2M",
         ["--pacing-rate", "4M", "--cc", "cubic"], [], eval_path_loss, {}, ("20 ms",)),
        ("path: control", "clean", ["-s", "a"], "download", "2M",
         ["--pacing-rate", "4M", "--cc", "cubic"], [], eval_path_clean, {}, ("80 ms",)),
        ("path: reorder", "spray-4p-500us", ["-s", "a", "-S",
                                             "--paths 4 --spread-us 500 --spray random --seed 7201"],
         "download", "4M", ["--pacing-rate", "12M", "--cc", "cubic"], [], eval_path_reorder, {},
         ("20 ms",)),
        ("path: limits", "bottleneck-20mbit", ["-s", "a", "-I", "--rate-ab 20 --queue-pkts 50"],
         "download", "4M", ["--cc", "cubic", "--tcp-sample", "1"], [], eval_path_limit,
         {"want": "inside"}, ("80 ms",)),
        # 16 KiB a round trip: the size follows the RTT (about 3 s each).
        ("path: limits", "rcvbuf-16k", ["-s", "a"], "download",
         {"sub-ms": "2M", "2 ms": "2M", "20 ms": "1M", "80 ms": "512K", "200 ms": "256K",
          "5/35 ms": "1M"},
         ["--cc", "cubic", "--tcp-sample", "1"], ["--rcvbuf", "16K"], eval_path_limit,
         {"want": "receiver"}, ()),
        # 3 s of writes: at 200 ms slow start alone takes about a second.
        ("path: limits", "app-4k-every-3ms", ["-s", "a"], "download", "4M",
         ["--cc", "cubic", "--tcp-sample", "1", "--write-size", "4K", "--write-every", "3"], [],
         eval_path_limit, {"want": "sender_app"}, ()),
        # 4 KiB every 50 ms is 80 KiB/s, below what a 16 KiB window
        # carries a round trip up to 200 ms (where the two meet): the reader
        # holds A back at every RTT, 6.4 s for 512 KiB.
        ("path: slowread", "slowread", ["-s", "a"], "download", "512K",
         ["--cc", "cubic", "--tcp-sample", "1"],
         ["--rcvbuf", "16K", "--read-size", "4096", "--read-every", "50"], eval_path_slowread,
         {"read_size": 4096}, ("20 ms",)),
        ("path: mtu", "mtu9000", ["-s", "a", "-m", "9000"], "download", "4M",
         ["--pacing-rate", "8M", "--cc", "cubic"], [], eval_path_mtu, {}, ("80 ms",)),
    ]
    for fam, name, ropts, mode, nbytes, sopts, copts, ev, extra, check in scen:
        for rtt in PATH_RTTS:
            secs = 40 if rtt[1] + rtt[2] >= 100000 else 30
            p = dict(extra, rtt=rtt[0])
            cell = Cell(fam, f"path-{name}-{rtt[0].replace(' ', '').replace('/', '-')}",
                        path_cmd(tools, rtt, ropts, mode,
                                 nbytes[rtt[0]] if isinstance(nbytes, dict) else nbytes,
                                 sopts, copts, secs),
                        lambda b, o, p=p, ev=ev: ev(b, o, p), rtt[0] in check, secs + 10)
            cell.rtt = rtt[0]
            cell.scenario = f"path-{name}"
            cells.append(cell)
    return cells


def all_cells(tools):
    return reorder_cells(tools) + loss_cells(tools) + think_cells(tools) + quiet_cells(tools) + \
        path_cells(tools)


# ---- running and reporting ------------------------------------------------

def run_cell(cell, binary, keep, retries=HARNESS_RETRIES, keep_failed=None):
    """run_once(), again (up to retries more times) while the harness
    failed (its checks say "(harness)"): a late relay or a capture drop is
    not the experiment."""
    tries = 0
    while True:
        status, rows, took, err = run_once(cell, binary, keep, keep_failed)
        harness = status == "fail" and any("(harness)" in m for r in rows for m in r.fails)
        if not harness or tries == retries:
            break
        tries += 1
        print(f"     {cell.name}: harness fault, run {tries + 1}: " +
              "; ".join(m for r in rows for m in r.fails if "(harness)" in m)[:300], flush=True)
    for r in rows:
        if tries:
            r.retries = tries
    return harness_only(status, rows), rows, took, err


def harness_only(status, rows):
    """"harness" for a failed cell whose every failure is the harness's:
    the experiment was not run as asked, which is no verdict on tcpsift
    either way (counted apart, a skip in make check's tally, with its
    reason)."""
    fails = [m for r in rows for m in r.fails]
    if status == "fail" and fails and all("(harness)" in m for m in fails):
        return "harness"
    return status


def run_once(cell, binary, keep, keep_failed=None):
    out = tempfile.mkdtemp(prefix="tcpsift-matrix.")
    cmd = [a.replace("{out}", out) for a in cell.runner]
    cmd[0] = os.path.join(HERE, cmd[0])
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=cell.seconds + 60)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        rc, err = 124, "timed out"
    took = time.time() - t0
    status = "fail"
    try:
        if rc == 77:
            status = "skip"
            return "skip", [], took, err
        if rc != 0:
            row = Row("-")
            row.check(False, f"runner exited {rc}: " + " | ".join(err.strip().splitlines()[-3:]))
            return "fail", [row], took, err
        status, rows = judge(cell, binary, out)
        return status, rows, took, err
    finally:
        for root in (keep, keep_failed if status == "fail" else None):
            if root:
                dst = kept_dir(root, cell)
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(out, dst)
        shutil.rmtree(out, ignore_errors=True)


def kept_dir(root, cell):
    """Where --keep puts a cell's captures and truth (and --reuse finds them)."""
    return os.path.join(root, re.sub(r"[^A-Za-z0-9._-]+", "_", cell.name))


def judge(cell, binary, out):
    """(status, rows) of the cell's evaluation of the run in out."""
    try:
        rows = cell.evaluate(binary, out)
        return ("fail" if any(r.fails for r in rows) else "ok"), rows
    except Exception as e:  # a broken report is a failed cell, with why
        row = Row("-")
        row.check(False, f"evaluation failed: {type(e).__name__}: {e}")
        return "fail", [row]


def judge_kept(cell, binary, reuse):
    """Judge a cell's captures kept by an earlier --keep run again (a
    detector change re-checked in seconds, not a new lab run)."""
    src = kept_dir(reuse, cell)
    if not os.path.isdir(src):
        return "skip", [], 0, "not kept"
    out = tempfile.mkdtemp(prefix="tcpsift-matrix.")
    try:
        shutil.copytree(src, out, dirs_exist_ok=True)
        status, rows = judge(cell, binary, out)
        return status, rows, 0, ""
    finally:
        shutil.rmtree(out, ignore_errors=True)


def markdown(results, args, started, took):
    # The binary's own version (the commit it was built from, "-dirty" if
    # the tree had changes then): what ran, not what the tree is now.
    commit = subprocess.run([args.bin, "--version"], capture_output=True,
                            text=True).stdout.strip().removeprefix("tcpsift ")
    kernel = os.uname().release
    f = io.StringIO()
    f.write("# tcpsift truth matrix\n\n")
    only = f" --only '{args.only}'" if args.only else ""
    if args.reuse:
        # Judged again: the captures and truth are an earlier run's.
        ran = datetime.datetime.utcfromtimestamp(os.path.getmtime(args.reuse))
        f.write(f"Judged again (`tests/lab/matrix.py --bin {args.bin} --subset {args.subset}"
                f"{only} --reuse DIR`) on {started:%Y-%m-%d %H:%M} UTC by commit {commit}, "
                f"from the captures and truth a full run kept up to {ran:%Y-%m-%d %H:%M} UTC "
                f"(kernel {kernel}; the run's retries are not in this table). ")
    else:
        f.write(f"Generated by `make lab-matrix` (`tests/lab/matrix.py --bin {args.bin} "
                f"--subset {args.subset}{only}`) on {started:%Y-%m-%d %H:%M} UTC, commit "
                f"{commit}, kernel {kernel}, in {took / 60:.1f} min. ")
    f.write("Every cell ran on the real Linux TCP "
            "stack in network namespaces; the truth column comes from outside tcpsift "
            "(lab-relay's log of what it wrote, nft counters and NFLOG copies of drops, nstat, "
            "TCP_INFO, the applications' own logs); tshark 4.0's counts of the same capture "
            "are beside it. A cell passes when its counts are within 10 % of the truth (or 2 "
            "for small counts) and its controls show exactly zero false findings; the checks "
            "are in tests/lab/matrix.py.\n\n")
    n_ok = sum(1 for _, s, _, _ in results if s == "ok")
    n_fail = sum(1 for _, s, _, _ in results if s == "fail")
    n_skip = sum(1 for _, s, _, _ in results if s == "skip")
    n_harness = sum(1 for _, s, _, _ in results if s == "harness")
    f.write(f"**{n_ok} passed, {n_fail} failed, {n_skip} skipped**" +
            (f" **and {n_harness} not run as asked: in all {args.retries + 1} tries the "
             f"emulated path missed its schedule or the hypervisor stopped the machine "
             f"(harness; no verdict on tcpsift).**"
             if n_harness else ".") + "\n\n")
    def fam_of(cell, r):
        return r.family or cell.family

    def res_of(status, r):
        # A row is judged by its own checks: a vantage that passed in a
        # cell that failed elsewhere is ok.
        again = f" (run {r.retries + 1}: harness fault before)" if r.retries else ""
        if status == "harness":
            return "not run as asked: " + "; ".join(r.fails) + again
        return ("FAIL: " + "; ".join(r.fails) if r.fails else
                "skip" if status == "skip" else "ok") + again
    fams = []
    for cell, _, rows, _ in results:
        for r in rows or [Row("-")]:
            if fam_of(cell, r) not in fams:
                fams.append(fam_of(cell, r))
    for fam in fams:
        mine = [(cell, status, r) for cell, status, rows, _ in results
                for r in rows or [Row("-")] if fam_of(cell, r) == fam]
        f.write(f"## {fam}\n\n")
        if fam.startswith("path"):
            # The sweep at a glance: scenario x RTT, one mark per vantage.
            rtts = [x[0] for x in PATH_RTTS]
            vants = [v for v in dict.fromkeys(r.vantage for _, _, r in mine)]
            f.write("Vantages in each cell: " + ", ".join(vants) + " (pass: ok, fail: "
                    "FAIL, the path missed its schedule: harness, not run: -).\n\n| scenario | " + " | ".join(rtts) + " |\n|---|" +
                    "---|" * len(rtts) + "\n")
            scen = list(dict.fromkeys(getattr(c, "scenario", c.name) for c, _, _ in mine))
            for sc in scen:
                marks = []
                for rt in rtts:
                    rs = [(st, r) for c, st, r in mine
                          if getattr(c, "scenario", c.name) == sc and c.rtt == rt]
                    by_v = {r.vantage: ("ok" if st == "ok" or (st == "fail" and not r.fails
                                                                and r.vantage != "-")
                                        else "harness" if st == "harness" else "FAIL")
                            for st, r in rs}
                    marks.append(" / ".join(by_v.get(v, "-") for v in vants) if rs else "-")
                f.write(f"| {sc} | " + " | ".join(marks) + " |\n")
            f.write("\n")
        f.write("| cell | RTT | vantage | truth | tcpsift | tshark | result |\n"
                "|---|---|---|---|---|---|---|\n")
        for cell, status, r in mine:
            f.write(f"| {cell.name} | {r.rtt or cell.rtt} | {r.vantage} | {fmt(r.truth)} | "
                    f"{fmt(r.tcpsift)} | {fmt(r.tshark) or 'n/a'} | {res_of(status, r)} |\n")
        f.write("\n")
    return f.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tools", required=True, help="the directory of lab-peer and lab-relay")
    ap.add_argument("--subset", choices=("check", "all"), default="all")
    ap.add_argument("--only", help="run only cells whose name matches this regex")
    ap.add_argument("--list", action="store_true", help="list the cells and exit")
    ap.add_argument("--out", help="write the Markdown table here")
    ap.add_argument("--keep", help="keep each cell's captures and truth under this directory")
    ap.add_argument("--keep-failed", help="keep only failed cells' captures and truth "
                    "under this directory (make check: build/matrix-failed)")
    ap.add_argument("--budget", type=int, default=0, help="stop starting cells after SECS")
    ap.add_argument("--retries", type=int, default=HARNESS_RETRIES,
                    help="tries more of a cell whose harness failed (make check: 1)")
    ap.add_argument("--reuse", help="judge the captures an earlier --keep left in this "
                    "directory again instead of running the cells (no root needed)")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    tools = os.path.abspath(args.tools)
    cells = [c for c in all_cells(tools) if args.subset == "all" or c.subset]
    if args.only:
        cells = [c for c in cells if re.search(args.only, c.name)]
    if args.list:
        for c in cells:
            print(f"{c.family}\t{c.name}{'  (check)' if c.subset else ''}")
        return 0
    if os.geteuid() != 0 and not args.reuse:
        print("SKIP: the truth matrix needs root (network namespaces)")
        return 77
    started = datetime.datetime.utcnow()
    t0 = time.time()
    results = []
    for cell in cells:
        if args.budget and time.time() - t0 > args.budget:
            print(f"FAIL {cell.name}: not run, the {args.budget} s budget is spent")
            results.append((cell, "fail", [], 0))
            continue
        if args.reuse:
            status, rows, took, err = judge_kept(cell, args.bin, args.reuse)
            status = harness_only(status, rows)
        else:
            status, rows, took, err = run_cell(cell, args.bin, args.keep, args.retries,
                                               args.keep_failed)
        summary = "; ".join(f"{r.vantage}: {fmt(r.tcpsift)} (truth {fmt(r.truth)})"
                            for r in rows)
        label = {"ok": "ok", "fail": "FAIL", "skip": "SKIP", "harness": "SKIP"}[status]
        why = " (harness: not the experiment asked for, in every try)" \
            if status == "harness" else ""
        print(f"{label} {cell.name}{why} ({took:.0f} s): {summary}", flush=True)
        for r in rows:
            for msg in r.fails:
                print(f"    {r.vantage}: {msg}", flush=True)
        if status == "fail" and args.keep_failed and not args.reuse:
            print(f"    kept: {kept_dir(args.keep_failed, cell)} (judge again: --reuse "
                  f"{args.keep_failed})", flush=True)
        results.append((cell, status, rows, took))
    if args.out:
        with open(args.out, "w") as f:
            f.write(markdown(results, args, started, time.time() - t0))
    return 1 if any(s == "fail" for _, s, _, _ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
