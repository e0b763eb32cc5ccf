#!/usr/bin/env python3
"""crosscheck.py - compare tcpsift's per-connection counters with tshark's TCP analysis flags.

    crosscheck.py --bin TCPSIFT --known tests/tshark/known-differences.tsv
                  [--label L] [--explain] [--markdown] FILE...

For each capture, `tcpsift analyze --json --no-progress FILE` gives
per-connection, per-direction counters and `tshark -T fields` the analysis
flags of every frame. Each tshark frame is attributed to the tcpsift
connection that holds it (same endpoints, same vantage point, frame number
inside the connection's "frames" range) and to a direction, so a tshark
stream that tcpsift splits (a new SYN on a used 4-tuple, an idle timeout),
or one connection tshark splits, is compared frame by frame, never summed
by guesswork. A connection seen at several vantage points (pcapng
interfaces with different names) is compared against tshark run on that
vantage point's frames alone: tshark keys streams by addresses and ports
only, so it would merge the copies and call every second one a
retransmission.

Every difference must be listed, with its reason, in the known-differences
file (tab-separated: file, conn id, direction, metric, tcpsift value, tshark
value, reason); a listed difference that no longer occurs, or whose values
changed, is stale. --explain prints, for each unlisted difference, the frames
involved and what each tool's rule sees in them. README.md (next to this
file) has the flag mapping and the structural differences.

Exit status: 0 all agree or every difference is listed (or tshark is not
installed: nothing was run); 1 an unlisted difference or a stale entry;
2 usage error or a tool that failed.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

# Per metric: tcpsift's per-direction key, the tshark fields whose presence on
# a frame counts one, and whether tshark's flag sits on the other direction's
# packet. tshark adds the tcp.analysis.retransmission item to fast and
# spurious retransmissions as well (checked with -Y: 'fast_retransmission &&
# !retransmission' matches no frame), so that field alone is the total; the
# union only guards against a tshark that stops doing so.
METRICS = [
    ("retransmissions",
     ("tcp.analysis.retransmission", "tcp.analysis.fast_retransmission",
      "tcp.analysis.spurious_retransmission"), False),
    ("out_of_order", ("tcp.analysis.out_of_order",), False),
    ("lost_segments", ("tcp.analysis.lost_segment",), False),
    # tshark flags the ACK that covers unseen bytes; tcpsift counts it on the
    # direction whose data went unseen.
    ("acked_unseen", ("tcp.analysis.ack_lost_segment",), True),
    # On the ACK's own direction in both tools.
    ("dup_acks", ("tcp.analysis.duplicate_ack",), False),
    ("zero_windows", ("tcp.analysis.zero_window",), False),
    ("window_full", ("tcp.analysis.window_full",), False),
    ("keepalives", ("tcp.analysis.keep_alive",), False),
    # Beyond the classic flags: both decide a D-SACK per ACK (RFC 2883: the
    # first SACK block below the cumulative ACK or inside the second block).
    ("dsack_blocks", ("tcp.options.sack.dsack_le",), False),
]
SHORT = {"retransmissions": "retx", "out_of_order": "ooo", "lost_segments": "lost",
         "acked_unseen": "ackunseen", "dup_acks": "dupack", "zero_windows": "zerowin",
         "window_full": "winfull", "keepalives": "keepalive", "dsack_blocks": "dsack"}
FLAG_FIELDS = sorted({f for _, fields, _ in METRICS for f in fields})
BASE_FIELDS = ["frame.number", "frame.interface_id", "frame.time_epoch", "tcp.stream",
               "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "tcp.srcport", "tcp.dstport",
               "icmp.type", "icmpv6.type", "tcp.seq_raw", "tcp.len", "tcp.flags.syn",
               "tcp.flags.fin", "ip.id", "tcp.options.timestamp.tsval",
               "tcp.analysis.initial_rtt"]
FIELDS = BASE_FIELDS + FLAG_FIELDS
DIRS = ("c2s", "s2c")

# tshark's own defaults, pinned so that a preferences file cannot change the
# flags; each value is the default of tshark 4.0 (tshark -G defaultprefs).
TSHARK_PREFS = [
    "tcp.analyze_sequence_numbers:TRUE",  # the analysis itself
    "tcp.relative_sequence_numbers:TRUE",
    "tcp.default_window_scaling:-1",  # "Not known": no window_full without the SYNs
    "tcp.fastrt_supersedes_ooo:TRUE",  # which flag wins when both rules match
    "tcp.ignore_tcp_timestamps:FALSE",
]


class Fatal(Exception):
    pass


def endpoint(addr, port):
    return "[%s]:%s" % (addr, port) if ":" in addr else "%s:%s" % (addr, port)


def last(value):
    """The innermost of repeated fields (tshark joins occurrences with ',')."""
    return value.split(",")[-1] if value else ""


def run_tcpsift(binary, path):
    p = subprocess.run([binary, "analyze", "--json", "--no-progress", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode(errors="replace").strip()
    if p.returncode not in (0, 3):
        raise Fatal("%s: tcpsift exited %d: %s" % (path, p.returncode, err[:300]))
    doc = None
    if p.stdout.strip():
        try:
            doc = json.loads(p.stdout)
        except ValueError as e:
            raise Fatal("%s: tcpsift JSON does not parse: %s" % (path, e))
    return p.returncode, doc, err


def tshark_env(confdir):
    env = dict(os.environ)
    # An empty configuration directory: no personal preferences, profiles or
    # Decode As entries can change what tshark reports.
    env["WIRESHARK_CONFIG_DIR"] = confdir
    env["LC_ALL"] = "C"
    env["TZ"] = "UTC"
    return env


def tshark_cmd(src):
    cmd = ["tshark", "-n", "-r", src]
    for pref in TSHARK_PREFS:
        cmd += ["-o", pref]
    cmd += ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in FIELDS:
        cmd += ["-e", f]
    return cmd


def tshark_errors(err):
    # "Running as user "root" ... dangerous." is tshark's greeting, not an error.
    return [ln for ln in err.decode(errors="replace").splitlines()
            if ln.strip() and not ln.startswith("Running as user")]


def run_tshark(what, env, src, producer=None):
    """Per-frame fields of src; producer: a command whose stdout is src "-"."""
    notes = []
    if producer is None:
        p = subprocess.run(tshark_cmd(src), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env)
        rc, out, err = p.returncode, p.stdout, p.stderr
    else:
        prod = subprocess.Popen(producer, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env)
        p = subprocess.run(tshark_cmd("-"), stdin=prod.stdout, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env)
        prod.stdout.close()
        perr = prod.stderr.read()
        prod.wait()
        rc, out, err = p.returncode or prod.returncode, p.stdout, p.stderr + perr
    if rc != 0:
        if not out.strip():
            raise Fatal("%s: tshark exited %d: %s" %
                        (what, rc, " ".join(tshark_errors(err))[:300]))
        notes.append("tshark exited %d after %d frames: %s" %
                     (rc, len(out.splitlines()), " ".join(tshark_errors(err))[:200]))
    rows = []
    for line in out.decode(errors="replace").splitlines():
        if not line.strip():
            continue
        cols = line.split("\t")
        cols += [""] * (len(FIELDS) - len(cols))
        rows.append(dict(zip(FIELDS, cols)))
    return rows, notes


def vantage_of_ifaces(doc):
    """tcpsift's vantage rule (analyze/engine/source.c): interfaces with the same
    name are one vantage point; each unnamed one is its own ("#k")."""
    names = doc.get("vantages") or ["#0"]
    inputs = doc.get("inputs") or [{}]
    out, unnamed = {}, 0
    for f in sorted(inputs[0].get("interfaces") or [], key=lambda x: x["id"]):
        name = f.get("name") or ""
        if not name:
            name = "#%d" % unnamed
            unnamed += 1
        out[f["id"]] = names.index(name) if name in names else 0
    return out


class Conn:
    def __init__(self, c):
        self.id = c["id"]
        self.client, self.server = c["client"], c["server"]
        self.vantage = c.get("vantage", 0)
        self.first, self.last = c["frames"]
        self.ours = {d: c[d] for d in DIRS}
        self.theirs = {d: {m: 0 for m, _, _ in METRICS} for d in DIRS}
        self.streams = set()
        self.trace = []  # (direction, tshark row, frame number) for --explain
        self.irtt = None


def attribute(conns_by_key, rows, frame_map, vantage_map, fixed_vantage):
    """Add each frame's tshark flags to the tcpsift connection holding it.
    frame_map: frame number in rows -> frame number in the file (None: same).
    Returns the TCP frames that no connection holds."""
    unmapped = []
    for r in rows:
        if not r["tcp.stream"] or r["icmp.type"] or r["icmpv6.type"]:
            continue  # not TCP, or TCP quoted inside an ICMP error
        num = int(r["frame.number"])
        if frame_map is not None:
            num = frame_map[num - 1]
        src = last(r["ip.src"]) or last(r["ipv6.src"])
        dst = last(r["ip.dst"]) or last(r["ipv6.dst"])
        a = endpoint(src, last(r["tcp.srcport"]))
        b = endpoint(dst, last(r["tcp.dstport"]))
        if fixed_vantage is not None:
            v = fixed_vantage
        else:
            v = vantage_map.get(int(r["frame.interface_id"] or 0), 0)
        conn = None
        for c in conns_by_key.get((v, frozenset((a, b))), ()):
            if c.first <= num <= c.last:
                conn = c
                break
        flags = {f for f in FLAG_FIELDS if r[f]}
        if conn is None:
            unmapped.append((num, flags))
            continue
        conn.streams.add(int(r["tcp.stream"]))
        d = "c2s" if a == conn.client else "s2c"
        o = "s2c" if d == "c2s" else "c2s"
        conn.trace.append((d, r, num))
        if r["tcp.analysis.initial_rtt"]:
            conn.irtt = float(r["tcp.analysis.initial_rtt"])
        for m, fields, opposite in METRICS:
            if flags & set(fields):
                conn.theirs[o if opposite else d][m] += 1
    return unmapped


def load_known(path):
    known = {}
    if not path or not os.path.exists(path):
        return known
    with open(path, newline="") as fh:
        for lineno, row in enumerate(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE), 1):
            if not row or not row[0].strip() or row[0].startswith("#") or row[0] == "file":
                continue
            if len(row) != 7 or not row[6].strip():
                raise Fatal("%s:%d: want 7 tab-separated columns, the last a reason" %
                            (path, lineno))
            key = tuple(x.strip() for x in row[:6])
            if key in known:
                raise Fatal("%s:%d: repeats line %d" % (path, lineno, known[key][1]))
            known[key] = (row[6], lineno)
    return known


def explain(conn, d, metric, events, out, shown):
    """Show the frames behind one difference and what each rule sees there."""
    fields = dict((m, f) for m, f, _ in METRICS)[metric]
    opposite = dict((m, o) for m, _, o in METRICS)[metric]
    look = "s2c" if opposite and d == "c2s" else "c2s" if opposite else d
    flagged = [n for dd, r, n in conn.trace if dd == look and any(r[f] for f in fields)]
    out.append("      tshark flags %s on frames: %s" %
               (metric, " ".join(map(str, flagged[:40])) or "none"))
    if metric not in ("retransmissions", "out_of_order") or (conn.id, d) in shown:
        return
    shown.add((conn.id, d))
    # The frames the rules disagree on are mostly tshark's out-of-order ones;
    # all retransmissions when tshark saw none out of order.
    detail_all = not any(r["tcp.analysis.out_of_order"] for dd, r, _ in conn.trace if dd == d)
    ours = [e for e in events if e.get("type") == "reorder" and e.get("conn") == conn.id and
            e.get("dir") == d]
    if ours:
        out.append("      tcpsift reorder events (frames opened..filled): %s" %
                   " ".join("%d..%d" % tuple(e["frames"]) for e in ours[:20]))
    # Replay the direction's data segments: which bytes were already seen,
    # which segment was the highest, what the sender's clocks say.
    seen, high = [], None
    rule = "tshark's iRTT %s" % ("%.3f ms" % (conn.irtt * 1e3) if conn.irtt else
                                 "unknown (3 ms)")
    for dd, r, n in conn.trace:
        if dd != d or not r["tcp.seq_raw"]:
            continue
        seq, ln = int(last(r["tcp.seq_raw"])), int(last(r["tcp.len"]) or 0)
        ln += (last(r["tcp.flags.syn"]) in ("1", "True")) + \
            (last(r["tcp.flags.fin"]) in ("1", "True"))
        t = float(r["frame.time_epoch"])
        tags = [f.split(".")[-1] for f in FLAG_FIELDS if r[f] and (
            "retransmission" in f or "out_of_order" in f)]
        if tags and ln and (detail_all or "out_of_order" in tags):
            first = [pn for pn, ps, pl in seen if (seq - ps) % 2**32 < pl or
                     (ps - seq) % 2**32 < ln]
            hinfo = ""
            if high:
                hn, hseq, ht, hid, hts = high
                hinfo = "; %.3f ms after the highest segment, frame %d" % ((t - ht) * 1e3, hn)
                if r["ip.id"] and hid:
                    hinfo += "; IP ID %s vs %s" % (last(r["ip.id"]), hid)
                if r["tcp.options.timestamp.tsval"] and hts:
                    hinfo += "; TSval %s vs %s" % (last(r["tcp.options.timestamp.tsval"]), hts)
            out.append("      frame %d (%s): %d bytes at seq %d: %s%s" % (
                n, "+".join(tags), ln, seq,
                "first captured at frame " + ",".join(map(str, first[:3])) if first else
                "never captured before",
                hinfo))
        if ln:
            seen.append((n, seq, ln))
            if high is None or 0 < (seq + ln - high[1]) % 2**32 < 2**31:
                high = (n, seq + ln, t, last(r["ip.id"]),
                        last(r["tcp.options.timestamp.tsval"]))
    out.append("      (%s is its out-of-order window; tcpsift: bytes seen -> "
               "retransmission, then TSval, IP ID, timing)" % rule)


def check_file(path, args, env, known, used, summary, skipped):
    name = os.path.basename(path)
    label = "[%s] " % args.label if args.label else ""
    rc, doc, err = run_tcpsift(args.bin, path)
    if doc is None or (rc == 3 and not doc.get("connections")):
        why = "tcpsift rejects it as invalid: " + (err.splitlines()[-1] if err else "exit 3")
        print("%s== %s: skipped (%s)" % (label, name, why))
        skipped.append((name, why))
        return []
    notes = []
    if rc == 3:
        notes.append("tcpsift: " + (err.splitlines()[-1] if err else "exit 3") +
                     " (the packets before the error are compared)")
    conns = [Conn(c) for c in doc["connections"] if c.get("input", 0) == 0]
    by_key = {}
    for c in conns:
        by_key.setdefault((c.vantage, frozenset((c.client, c.server))), []).append(c)
    vmap = vantage_of_ifaces(doc)
    rows, tnotes = run_tshark(path, env, path)
    notes += tnotes
    vantages = sorted({c.vantage for c in conns})
    unmapped = []
    if not conns:
        unmapped = attribute(by_key, rows, None, vmap, 0)
        if not unmapped:
            why = "no TCP in it for either tool"
            print("%s== %s: skipped (%s)" % (label, name, why))
            skipped.append((name, why))
            return []
    elif len(vantages) > 1:
        notes.append("vantage points %s compared one by one against "
                     "tshark -r FILE -Y 'frame.interface_id in {...}' -w - | tshark -r -" %
                     "+".join("%d" % v for v in vantages))
        for v in vantages:
            ifaces = sorted(i for i, vv in vmap.items() if vv == v)
            orig = [int(r["frame.number"]) for r in rows
                    if int(r["frame.interface_id"] or 0) in ifaces]
            filt = "frame.interface_id in {%s}" % " ".join(str(i) for i in ifaces)
            prod = ["tshark", "-n", "-r", path, "-Y", filt, "-w", "-"]
            vrows, vnotes = run_tshark("%s@%d" % (path, v), env, "-", producer=prod)
            notes += vnotes
            if len(vrows) != len(orig):
                raise Fatal("%s: vantage %d extract has %d frames, want %d" %
                            (path, v, len(vrows), len(orig)))
            unmapped += attribute(by_key, vrows, orig, vmap, v)
    else:
        unmapped += attribute(by_key, rows, None, vmap, vantages[0] if vantages else 0)
        owner = {}
        for c in conns:
            for s in c.streams:
                owner.setdefault(s, []).append(c.id)
        for s, ids in sorted(owner.items()):
            if len(ids) > 1:
                notes.append("tshark stream %d is tcpsift connections %s (compared frame "
                             "by frame)" % (s, "+".join(map(str, ids))))
        for c in conns:
            if len(c.streams) > 1:
                notes.append("tcpsift connection %d is tshark streams %s" %
                             (c.id, "+".join(map(str, sorted(c.streams)))))

    print("%s== %s: %d connections, %d tshark streams" %
          (label, name, len(conns), len({s for c in conns for s in c.streams})))
    print("%5s %-3s %-38s %s" % ("conn", "dir", "client -> server",
                                 " ".join("%-10s" % SHORT[m] for m, _, _ in METRICS)))
    bad, lines = [], []

    def judge(key, ours, theirs):
        s = summary.setdefault(key[3], {"conns": set(), "agree": set(), "listed": set(),
                                        "unlisted": set(), "ours": 0, "theirs": 0})
        s["ours"] += ours
        s["theirs"] += theirs
        who = (key[0], key[1])
        s["conns"].add(who)
        if ours == theirs:
            s["agree"].add(who)
            return " "
        if key in known:
            used.add(key)
            s["listed"].add(who)
            return "~"
        s["unlisted"].add(who)
        bad.append(key)
        return "*"

    events = doc.get("events") or []
    shown = set()
    for c in conns:
        for d in DIRS:
            cells = []
            for m, _, _ in METRICS:
                ours = c.ours[d].get(m, 0) or 0
                theirs = c.theirs[d][m]
                key = (name, str(c.id), d, m, str(ours), str(theirs))
                mark = judge(key, ours, theirs)
                cells.append("%4d/%-4d%s" % (ours, theirs, mark))
                if mark == "*" and args.explain:
                    lines.append("   %s conn %d %s %s: tcpsift %d, tshark %d" %
                                 (name, c.id, d, m, ours, theirs))
                    explain(c, d, m, events, lines, shown)
            ends = "%s -> %s" % (c.client, c.server) if d == "c2s" else ""
            print("%5d %-3s %-38s %s" % (c.id, d, ends[:38], " ".join(cells)))
    # Flags on frames that no connection holds are differences too.
    if unmapped:
        notes.append("%d TCP frames of tshark are in no tcpsift connection (tcpsift counts "
                     "them malformed or not TCP): %s" % (len(unmapped), " ".join(
                         str(n) for n, _ in unmapped[:20])))
        for m, fields, _ in METRICS:
            n = sum(1 for _, f in unmapped if f & set(fields))
            if n:
                mark = judge((name, "-", "-", m, "0", str(n)), 0, n)
                print("%5s %-3s %-38s %s: 0/%d %s" % ("-", "-", "(frames in no connection)",
                                                      SHORT[m], n, mark))
    for n in notes:
        print("   note: %s" % n)
    for ln in lines:
        print(ln)
    return bad


def markdown(summary):
    lines = ["| metric | connections compared | agree | differ, with reason | differ, unlisted "
             "| total tcpsift / tshark |",
             "|---|---:|---:|---:|---:|---:|"]
    for m, _, _ in METRICS:
        s = summary.get(m)
        if not s:
            continue
        lines.append("| %s | %d | %d | %d | %d | %d / %d |" % (
            m, len(s["conns"]), len(s["conns"] - s["listed"] - s["unlisted"]),
            len(s["listed"] - s["unlisted"]), len(s["unlisted"]), s["ours"], s["theirs"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the tcpsift binary")
    ap.add_argument("--known", required=True, help="known-differences.tsv")
    ap.add_argument("--label", default="", help="name of this set of captures in the output")
    ap.add_argument("--explain", action="store_true",
                    help="show the frames behind each unlisted difference")
    ap.add_argument("--markdown", action="store_true",
                    help="end with the per-metric agreement table in Markdown")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    if not shutil.which("tshark"):
        print("SKIP: tshark not found: the cross-check was not run")
        return 0
    if not os.access(args.bin, os.X_OK):
        print("crosscheck: %s is not an executable" % args.bin, file=sys.stderr)
        return 2
    try:
        known = load_known(args.known)
    except Fatal as e:
        print("crosscheck: %s" % e, file=sys.stderr)
        return 2
    used, unlisted, summary, seen, skipped = set(), [], {}, set(), []
    failed = False
    print("(cells: tcpsift/tshark; ~ a listed difference, * a difference not listed)")
    with tempfile.TemporaryDirectory(prefix="crosscheck-") as confdir:
        env = tshark_env(confdir)
        for path in args.files:
            if not os.path.isfile(path):
                continue  # an unmatched shell glob
            seen.add(os.path.basename(path))
            try:
                unlisted += check_file(path, args, env, known, used, summary, skipped)
            except Fatal as e:
                print("ERROR %s" % e)
                failed = True
    stale = sorted((v[1], k) for k, v in known.items() if k[0] in seen and k not in used)
    if args.markdown:
        print()
        print(markdown(summary))
        if skipped:
            print()
            for name, why in skipped:
                print("- `%s`: skipped, %s" % (name, why))
    rc = 0
    if unlisted:
        rc = 1
        print("\n%d difference(s) not in %s. Look at the frames (--explain), then fix the "
              "engine if tcpsift's rule or its code is wrong, or add the line below with a "
              "precise reason naming the frames:" % (len(unlisted), args.known))
        for k in unlisted:
            print("%s\t%s\t%s\t%s\t%s\t%s\tREASON" % k)
    if stale:
        rc = 1
        print("\n%d stale line(s) in %s: that difference no longer occurs or its values "
              "changed; delete the line, or update its values and reason:" %
              (len(stale), args.known))
        for lineno, k in stale:
            print("line %d: %s" % (lineno, "\t".join(k)))
    if failed:
        rc = 2
    return rc


if __name__ == "__main__":
    sys.exit(main())
