#!/usr/bin/env python3
"""check_plot.py - analyze --plot's SVG files against the --json --frames report of the same run.

    check_plot.py svg DIR REPORT.json [--conn LIST] [--max N] [--expect CONN:DIR:CLASS:N ...]
    check_plot.py xpl DIR REPORT.json
    check_plot.py tcptrace MINE.xpl TCPTRACE.xpl

svg: every file parses as XML and is an <svg> with a <title> naming the
connection and direction and one <g class="plot"> carrying its data range
and pixel box; the set of files is exactly five graphs per connection and
direction that carried data (of those --conn and --max select); every
anomaly mark sits at the pixel its data-t / data-seq map to; and the marks
of the time-sequence graphs match the report's events by value (those
binned, class "KIND bin", by count: data-count): SACK holes,
stalls (class, duration), zero windows and capture gaps one for one (frame,
time, sequence, bytes), retransmissions and late originals by frame (a
subset: a verdict decided later, after its segment, is not a mark).
--expect adds exact counts of a class in one time-sequence graph.

xpl: every .xpl file has tcptrace's header (dtime signed, title, xlabel,
ylabel), only commands xplot knows with the right number of numbers, an
atext followed by its text, and ends with "go"; the time-sequence files
have as many segments (darrow) as the report's data packets of that
direction.

tcptrace: the data segments of a time-sequence file (a line from a darrow
up to its uarrow) are those tcptrace -S -zxy drew for the same direction,
at the same relative times and sequence offsets.

Prints one PASS or FAIL line per check; standard library only.
"""
import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
GRAPHS = ("tseq", "tput", "rtt", "inflight", "rwnd")
XPL_GRAPHS = ("tseq", "tput", "rtt", "inflight")
TOL_T = 2e-6  # s: the report's times are doubles of absolute seconds
TOL_PX = 0.02

fails = 0


def check(ok, what, detail=""):
    global fails
    if ok:
        print(f"PASS {what}")
    else:
        fails += 1
        print(f"FAIL {what}" + (f": {detail}" if detail else ""))


def ids_of(spec):
    """--conn LIST as a predicate."""
    if not spec:
        return lambda i: True
    parts = []
    for p in spec.split(","):
        if p.endswith("-"):
            parts.append((int(p[:-1]), 1 << 62))
        elif "-" in p:
            a, b = p.split("-")
            parts.append((int(a), int(b)))
        else:
            parts.append((int(p), int(p)))
    return lambda i: any(a <= i <= b for a, b in parts)


def expected_files(rep, pick, maxn, graphs, ext):
    out, n = set(), 0
    for c in sorted(rep["connections"], key=lambda c: c["id"]):
        if not pick(c["id"]):
            continue
        dirs = [d for d in ("c2s", "s2c") if c[d]["data_packets"] > 0]
        if not dirs:
            continue
        n += 1
        if maxn and n > maxn:
            break
        for d in dirs:
            for g in graphs:
                out.add(f"conn-{c['id']}-{d}-{g}.{ext}")
    return out


class Plot:
    def __init__(self, path):
        self.root = ET.parse(path).getroot()
        g = [e for e in self.root.iter(SVG + "g") if e.get("class") == "plot"]
        self.g = g[0] if len(g) == 1 else None
        if self.g is not None:
            a = self.g.attrib
            self.t0, self.t1 = float(a["data-t0"]), float(a["data-t1"])
            self.y0, self.y1 = float(a["data-y0"]), float(a["data-y1"])
            self.x, self.y = float(a["data-x"]), float(a["data-y"])
            self.w, self.h = float(a["data-w"]), float(a["data-h"])

    def px(self, t):
        return self.x + (t - self.t0) / (self.t1 - self.t0) * self.w

    def py(self, v):
        return self.y + self.h - (v - self.y0) / (self.y1 - self.y0) * self.h

    def marks(self, cls):
        return [e for e in self.g.iter() if e.get("class") == cls and e.get("data-t") is not None]


def mark_xy(p, e):
    """The pixel a mark is drawn at, and the one its data says."""
    t, seq = float(e.get("data-t")), float(e.get("data-seq", 0))
    tag = e.tag.replace(SVG, "")
    if tag == "line":
        return (float(e.get("x1")), float(e.get("y1"))), (p.px(t), p.py(seq))
    if tag == "circle":
        return (float(e.get("cx")), float(e.get("cy"))), (p.px(t), p.py(seq))
    if tag == "rect":
        ln = float(e.get("data-len", 0))
        got_y = float(e.get("y")) + float(e.get("height"))
        return (float(e.get("x")), got_y), (p.px(t), max(p.py(seq), p.py(seq + ln) + 1))
    if tag == "g":  # a span: its rect
        r = e.find(SVG + "rect")
        return (float(r.get("x")), 0), (p.px(t), 0)
    return None, None


def check_svg(a, rep):
    pick = ids_of(a.conn)
    have = {f for f in os.listdir(a.dir) if f.endswith(".svg")}
    want = expected_files(rep, pick, a.max, GRAPHS, "svg")
    check(have == want, f"{a.dir}: the files are five graphs per connection and direction with data ({len(want)})",
          f"missing {sorted(want - have)[:4]}, extra {sorted(have - want)[:4]}")
    conns = {c["id"]: c for c in rep["connections"]}
    bad_xml, bad_frame, bad_px, nmarks = [], [], [], 0
    plots = {}
    for f in sorted(have):
        try:
            p = Plot(os.path.join(a.dir, f))
        except ET.ParseError as e:
            bad_xml.append(f"{f}: {e}")
            continue
        m = re.match(r"conn-(\d+)-(c2s|s2c)-(\w+)\.svg$", f)
        title = p.root.find(SVG + "title")
        if (p.root.tag != SVG + "svg" or p.g is None or title is None
                or f"#{m.group(1)} " not in title.text or f"({m.group(2)})" not in title.text):
            bad_frame.append(f)
            continue
        plots[(int(m.group(1)), m.group(2), m.group(3))] = p
        for e in p.g.iter():
            if e.get("data-t") is None or e.get("data-seq") is None:
                continue
            nmarks += 1
            got, exp = mark_xy(p, e)
            if got and (abs(got[0] - exp[0]) > TOL_PX or abs(got[1] - exp[1]) > TOL_PX + 1):
                bad_px.append(f"{f} {e.get('class')} frame {e.get('data-frame')}: {got} != {exp}")
    check(not bad_xml, f"{a.dir}: every SVG is well-formed XML", "; ".join(bad_xml[:3]))
    check(not bad_frame, f"{a.dir}: each has a title naming conn and direction, and one plot area",
          ", ".join(bad_frame[:3]))
    check(not bad_px, f"{a.dir}: {nmarks} marks at the pixels their data-t/data-seq map to",
          "; ".join(bad_px[:3]))

    # The time-sequence marks against the report's events.
    ev = [e for e in rep["events"] if pick(e["conn"]) and (e["conn"], e["dir"], "tseq") in plots]
    for kind, cls, exact in (("sack_hole", "hole", True), ("stall", "stall", True),
                             ("zero_window", "zwin-span", True), ("capture_gap", "gap", True),
                             ("capture_loss", "loss", True), ("retransmission", "retrans", False),
                             ("out_of_order", "ooo", False)):
        want_marks, got_marks = [], []
        for (cid, d, g), p in plots.items():
            if g != "tseq":
                continue
            c0 = conns[cid]["first_ts"]
            for e in p.marks(cls):
                got_marks.append((cid, d, int(e.get("data-frame")), e))
            for e in ev:
                if e["type"] == kind and e["conn"] == cid and e["dir"] == d:
                    want_marks.append((cid, d, e["frames"][0], e, c0))
        # Marks too many to draw one by one are binned: counted, not dropped.
        nbin = sum(int(e.get("data-count")) for (cid, d, g), p in plots.items() if g == "tseq"
                   for e in p.g.iter() if e.get("class") == cls + " bin")
        if not want_marks and not got_marks and not nbin:
            continue
        wf = sorted((c, d, f) for c, d, f, _, _ in want_marks)
        gf = sorted((c, d, f) for c, d, f, _ in got_marks)
        if nbin:
            n = len(gf) + nbin
            check(n == len(wf) if exact else 0.9 * len(wf) <= n <= len(wf),
                  f"{a.dir}: {len(gf)} {cls} marks + {nbin} binned are the report's {len(wf)} {kind} events",
                  f"{n} != {len(wf)}")
        elif exact:
            check(wf == gf, f"{a.dir}: {cls} marks are the report's {len(wf)} {kind} events (by frame)",
                  f"report {wf[:5]}, svg {gf[:5]}")
        else:
            check(set(gf) <= set(wf) and len(gf) >= 0.9 * len(wf),
                  f"{a.dir}: {len(gf)} {cls} marks among the report's {len(wf)} {kind} frames",
                  f"not in the report: {sorted(set(gf) - set(wf))[:5]}")
        # By value: time, sequence, bytes, duration, class.
        byframe = {(c, d, f): m for c, d, f, m in got_marks}
        bad = []
        for c, d, f, e, c0 in want_marks:
            m = byframe.get((c, d, f))
            if m is None:
                continue
            t = float(m.get("data-t"))
            if abs(t - (e["ts"] - c0)) > TOL_T:
                bad.append(f"frame {f}: t {t} != {e['ts'] - c0:.6f}")
            if kind != "zero_window" and kind != "stall" and int(m.get("data-seq")) != e["rel_seq"]:
                bad.append(f"frame {f}: seq {m.get('data-seq')} != {e['rel_seq']}")
            if kind in ("sack_hole", "capture_gap", "capture_loss") and int(m.get("data-len")) != e["bytes"]:
                bad.append(f"frame {f}: len {m.get('data-len')} != {e['bytes']}")
            if e.get("duration_s") is not None and kind in ("sack_hole", "stall", "zero_window"):
                if abs(float(m.get("data-dur")) - e["duration_s"]) > 1e-6:
                    bad.append(f"frame {f}: dur {m.get('data-dur')} != {e['duration_s']}")
            if kind == "stall":
                cl = "timer_like" if e.get("timer_like") else e["class"]
                if m.get("data-class") != cl:
                    bad.append(f"frame {f}: class {m.get('data-class')} != {cl}")
        if want_marks and got_marks:
            check(not bad, f"{a.dir}: {cls} marks carry the report's time, sequence, bytes, duration",
                  "; ".join(bad[:3]))
    # Throughput by value: the area under the tput line is every payload byte
    # the report counts; goodput (new bytes) is never above it.
    bad = []
    for (cid, d, g), p in plots.items():
        if g != "tput":
            continue
        area = {}
        for e in p.g.iter(SVG + "path"):
            cls = e.get("class")
            total = 0.0
            for x0, y, x1 in re.findall(r"[ML]([-0-9.]+) ([-0-9.]+)H([-0-9.]+)", e.get("d")):
                t0 = p.t0 + (float(x0) - p.x) / p.w * (p.t1 - p.t0)
                t1 = p.t0 + (float(x1) - p.x) / p.w * (p.t1 - p.t0)
                rate = p.y0 + (p.y + p.h - float(y)) / p.h * (p.y1 - p.y0)
                total += rate * (t1 - t0) / 8
            area[cls] = total
        want = conns[cid][d]["payload_bytes"]
        if abs(area.get("tput", -1) - want) > 0.01 * want + 100 or area.get("goodput", 0) > area["tput"] * 1.001:
            bad.append(f"conn {cid} {d}: tput {area.get('tput', -1):.0f} B, goodput {area.get('goodput', -1):.0f}, report {want}")
    if any(g == "tput" for _, _, g in plots):
        check(not bad, f"{a.dir}: the throughput lines add up to the report's payload bytes (1 %)", "; ".join(bad[:3]))
    # RTT samples, bytes in flight and the receive window by value, where every
    # packet is drawn: the report's samples (count, min, max), its largest in
    # flight, a window no larger than the largest the receiver advertised.
    bad, n = [], 0
    for (cid, d, g), p in plots.items():
        c, other = conns[cid], "s2c" if d == "c2s" else "c2s"
        if c[d]["data_packets"] + c[other]["packets"] > 4096:
            continue
        if g == "rtt":
            ms = [float(e.get("data-rtt-ms")) for e in p.g.iter(SVG + "circle") if e.get("data-rtt-ms")]
            r = c[d]["rtt"] or {"samples": 0, "min_s": 0, "max_s": 0}
            if len(ms) != r["samples"] or (ms and (abs(min(ms) - r["min_s"] * 1e3) > 1e-6
                                                   or abs(max(ms) - r["max_s"] * 1e3) > 1e-6)):
                bad.append(f"conn {cid} {d} rtt: {len(ms)} samples {min(ms or [0])}..{max(ms or [0])} ms, report {r}")
        elif g in ("inflight", "rwnd"):
            lv = [e for e in p.g.iter(SVG + "g") if e.get("class") == "level"]
            top = float(lv[0].get("data-max")) if lv else -1
            if g == "inflight" and top != c[d]["max_in_flight"]:
                bad.append(f"conn {cid} {d} inflight: max {top}, report {c[d]['max_in_flight']}")
            if g == "rwnd" and top > c[other]["max_window"]:
                bad.append(f"conn {cid} {d} rwnd: max {top}, report {c[other]['max_window']}")
        else:
            continue
        n += 1
    if n:
        check(not bad, f"{a.dir}: {n} RTT, in-flight and window graphs agree with the report", "; ".join(bad[:3]))
    # Every RTT graph draws the path's RTT (path_rtt_s) as its reference
    # line, exactly, or none when the report has none.
    bad, n = [], 0
    for (cid, d, g), p in plots.items():
        if g != "rtt":
            continue
        n += 1
        got = [float(e.get("data-path-rtt-ms")) for e in p.g.iter(SVG + "line")
               if e.get("data-path-rtt-ms")]
        want = conns[cid].get("path_rtt_s")
        if (want is None and got) or (want is not None and (len(got) != 1 or abs(got[0] - want * 1e3) > 1e-6)):
            bad.append(f"conn {cid} {d}: path line {got}, report {want}")
    if n:
        check(not bad, f"{a.dir}: {n} RTT graphs draw the report's path RTT", "; ".join(bad[:3]))
    for spec in a.expect or []:
        cid, d, cls, n = spec.split(":")
        p = plots.get((int(cid), d, "tseq"))
        got = len(p.marks(cls)) if p else -1
        check(got == int(n), f"{a.dir}: conn {cid} {d} has {n} {cls} marks", f"{got}")


XPL_ARGS = {"line": 4, "dot": 2, "darrow": 2, "uarrow": 2, "htick": 2, "diamond": 2, "atext": 2,
            "box": 2, "x": 2, "plus": 2, "utick": 2, "dtick": 2, "ltext": 2, "rtext": 2}
XPL_COLOURS = {"white", "green", "yellow", "red", "pink", "purple", "orange", "blue", "magenta"}


def check_xpl(a, rep):
    have = {f for f in os.listdir(a.dir) if f.endswith(".xpl")}
    want = expected_files(rep, lambda i: True, 0, XPL_GRAPHS, "xpl")
    check(have == want, f"{a.dir}: .xpl files for each connection and direction with data ({len(want)})",
          f"missing {sorted(want - have)[:4]}, extra {sorted(have - want)[:4]}")
    conns = {c["id"]: c for c in rep["connections"]}
    bad = []
    for f in sorted(have):
        lines = open(os.path.join(a.dir, f)).read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        hdr = lines[:7]
        if (len(hdr) < 7 or hdr[0] != "dtime signed" or hdr[1] != "title" or "_==>_" not in hdr[2]
                or hdr[3] != "xlabel" or hdr[5] != "ylabel" or lines[-1] != "go"):
            bad.append(f"{f}: header or end")
            continue
        k, darrows, fins = 7, 0, 0
        while k < len(lines) - 1:
            w = lines[k].split()
            if not w:
                bad.append(f"{f}:{k + 1}: empty line")
                break
            if w[0] in XPL_COLOURS and len(w) == 1:
                k += 1
                continue
            n = XPL_ARGS.get(w[0])
            nums = w[1:1 + (n or 0)]
            try:
                [float(x) for x in nums]
            except ValueError:
                n = None
            if n is None or len(nums) != n or len(w) > n + 2 or (len(w) == n + 2 and w[-1] not in XPL_COLOURS):
                bad.append(f"{f}:{k + 1}: {lines[k]!r}")
                break
            darrows += w[0] == "darrow"
            fins += w[0] == "atext" and k + 1 < len(lines) and lines[k + 1] == "FIN"
            k += 2 if w[0] in ("atext", "ltext", "rtext") else 1
        m = re.match(r"conn-(\d+)-(c2s|s2c)-tseq\.xpl$", f)
        if m:
            n = conns[int(m.group(1))][m.group(2)]["data_packets"]
            # Drawn one by one up to 4096 packets; a FIN without data is a segment too.
            if n <= 4096 and not darrows - fins <= n <= darrows:
                bad.append(f"{f}: {darrows} segments ({fins} FINs), the report {n} data packets")
    check(not bad, f"{a.dir}: every .xpl has tcptrace's header, known commands, 'go' at the end, every segment",
          "; ".join(bad[:3]))


def xpl_segments(path):
    """(time, from, to) of each segment: a darrow, then a line up from it."""
    segs, down = set(), None
    for line in open(path):
        w = line.split()
        if w and w[0] == "darrow" and len(w) >= 3:
            down = (w[1], w[2])
        elif w and w[0] == "line" and down and len(w) >= 5 and (w[1], w[2]) == down and w[3] == w[1]:
            segs.add((w[1], int(w[2]), int(w[4])))
            down = None
    return segs


def check_tcptrace(a):
    """Segments matched by sequence range, times within a microsecond: tcptrace
    truncates each timestamp to microseconds before subtracting."""
    mine, theirs = xpl_segments(a.dir), xpl_segments(a.report)
    left = {}
    for t, lo, hi in theirs:
        left.setdefault((lo, hi), []).append(float(t))
    only_mine = []
    for t, lo, hi in sorted(mine):
        ts = left.get((lo, hi), [])
        near = [x for x in ts if abs(x - float(t)) <= 1.1e-6]
        if near:
            ts.remove(near[0])
        else:
            only_mine.append((t, lo, hi))
    only_theirs = sorted((t, lo, hi) for (lo, hi), ts in left.items() for t in ts)
    check(mine and not only_mine and not only_theirs,
          f"{os.path.basename(a.dir)}: the {len(mine)} segments are tcptrace's {len(theirs)} (time, sequence)",
          f"only mine {only_mine[:3]}, only tcptrace's {only_theirs[:3]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("svg", "xpl", "tcptrace"))
    ap.add_argument("dir")
    ap.add_argument("report")
    ap.add_argument("--conn")
    ap.add_argument("--max", type=int, default=100)
    ap.add_argument("--expect", action="append")
    a = ap.parse_args()
    if a.mode == "tcptrace":
        check_tcptrace(a)
        return 1 if fails else 0
    rep = json.load(open(a.report))
    (check_svg if a.mode == "svg" else check_xpl)(a, rep)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
