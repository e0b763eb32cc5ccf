#!/usr/bin/env python3
"""check_html.py - an analyze --html page against the --json report of the same run.

    check_html.py PAGE.html REPORT.json [--graphs] [--marks]

Prints one "PASS what" or "FAIL what: why" line per check (tests/html/run.sh
counts them). The page must be well formed (every element closed in
order, void elements aside) and whole; fetch nothing (every src and href
a same-page anchor, no url() but url(#...), no <link>, no script file);
have its sections (summary, findings, connections; the text findings
folded); list the connections in order of trouble, each row's score the
one tcpsift-analyze(1) defines, computed here from the JSON (4 per
segment lost, 2 per finding that is not a per-frame verdict, 1 per 10 ms
the findings lasted; ties by id), with the idle or control connections
(at most 8192 bytes of payload, score 0) folded in <details id="idle">
and no other; give each connection with events a section holding each
of its events (the first 200 of each type) in the table of its type, with
its frames as text; the findings' overview (segments lost, each kind of
event: count, connections) by value; show the inputs' paths as text.
--graphs: each connection with a section, among the first 100 by id that
carried data, has its time-sequence graphs inline (<figure
id="g-ID-DIR-tseq"> holding an <svg>). --marks: in each inline
time-sequence graph, the retransmission marks plus the counts of the
binned ones are the report's retransmissions of that direction.
Python's standard library only.
"""
import argparse
import collections
import html.parser
import json
import os
import re
import sys

VOID = {"meta", "img", "br", "link", "hr", "input"}
MAX_ROWS, MAX_EVENTS, IDLE_BYTES, PLOT_MAX = 5000, 200, 8192, 100
FRAME_TYPES = {"retransmission", "dup_ack", "out_of_order", "fill_undecided", "capture_gap",
               "tlp_new_data"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors = [], []
        self.h2 = []                  # ids of the h2 headings, in order
        self.details = []             # ids of the open <details>
        self.rows = {"main": [], "idle": []}   # connection rows: [cells]
        self.conn = None              # id of the <section class="conn"> being read
        self.sections = {}            # id -> score (data-score)
        self.ev_type = None           # data-type of the event table being read
        self.events = collections.defaultdict(list)  # id -> [(type, cells)]
        self.table = None             # class of the table being read
        self.cell, self.row, self.in_title = None, None, False
        self.title, self.text, self.external = "", [], []
        self.figure = None            # id of the <figure> being read
        self.graphs = {}              # figure id -> {"svg": bool, "retrans": n, "binned": n}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in VOID:
            self.stack.append((tag, a))
        for k in ("src", "href", "xlink:href", "action"):
            if k in a and not (a[k] or "").startswith("#"):
                self.external.append(f"<{tag} {k}={a[k]!r}>")
        if tag == "link" or (tag == "script" and "src" in a):
            self.external.append(f"<{tag}>")
        if tag == "h2":
            self.h2.append(a.get("id"))
        elif tag == "details":
            self.details.append(a.get("id"))
        elif tag == "section" and a.get("class") == "conn":
            self.conn = int(a["id"][1:])
            self.sections[self.conn] = int(a.get("data-score", -1))
        elif tag == "table":
            self.table = a.get("class")
            self.ev_type = a.get("data-type") if self.table == "ev" else None
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "title" and len(self.stack) >= 2 and self.stack[-2][0] == "head":
            self.in_title = True
        elif tag == "figure" and a.get("class") == "graph":
            self.figure = a.get("id")
            self.graphs[self.figure] = {"svg": False, "retrans": 0, "binned": 0}
        if self.figure:
            g = self.graphs[self.figure]
            g["svg"] |= tag == "svg"
            if a.get("class") == "retrans" and a.get("data-frame"):
                g["retrans"] += 1
            elif a.get("class") == "retrans bin":
                g["binned"] += int(a.get("data-count", 0))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1][0] if self.stack else 'nothing'}>"
                               f" at line {self.getpos()[0]}")
        else:
            self.stack.pop()
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.table == "conns" and self.row and self.row[0].isdigit():
                self.rows["idle" if "idle" in self.details else "main"].append(self.row)
            elif self.table == "ev" and self.conn is not None and self.row[0] != "time":
                self.events[self.conn].append((self.ev_type, self.row))
            self.row = None
        elif tag == "title":
            self.in_title = False
        elif tag == "details":
            self.details.pop()
        elif tag == "section":
            self.conn = None
        elif tag == "figure":
            self.figure = None
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.in_title:
            self.title += data
        self.text.append(data)


def ns(sec):
    return round(sec * 1e9)


def expected(rep):
    """Each connection's score and whether it is folded, as tcpsift-analyze(1) says."""
    evs = collections.defaultdict(list)
    for e in rep["events"]:
        evs[e["conn"]].append(e)
    out = {}
    for c in rep["connections"]:
        lost = sum(max(c[d]["retransmissions"] - c[d]["spurious_retransmissions"], 0)
                   for d in ("c2s", "s2c"))
        found = [e for e in evs[c["id"]] if e["type"] not in FRAME_TYPES]
        t = sum(max(ns(e.get("duration_s") or 0), 0) for e in found)
        score = 4 * lost + 2 * len(found) + t // 10_000_000
        payload = c["c2s"]["payload_bytes"] + c["s2c"]["payload_bytes"]
        out[c["id"]] = (score, payload <= IDLE_BYTES and score == 0)
    return out, evs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page")
    ap.add_argument("report")
    ap.add_argument("--graphs", action="store_true")
    ap.add_argument("--marks", action="store_true")
    a = ap.parse_args()
    with open(a.page, encoding="utf-8") as f:
        src = f.read()
    with open(a.report) as f:
        rep = json.load(f)
    p = Page()
    p.feed(src)
    p.close()
    name = os.path.basename(a.page)
    res = []

    def check(ok, what, why=""):
        res.append(f"PASS {name}: {what}" if ok else f"FAIL {name}: {what}: {why}")

    check(not p.errors and not p.stack, "well formed",
          "; ".join(p.errors[:3]) + (f" unclosed {[t for t, _ in p.stack]}" if p.stack else ""))
    check(src.startswith("<!DOCTYPE html>") and src.rstrip().endswith("</html>"), "one whole page")
    urls = [u for u in re.findall(r"url\(([^)]*)\)", src) if not u.strip("'\" ").startswith("#")]
    check(not p.external and not urls and "@import" not in src,
          "self-contained: every src and href a same-page anchor, no url() but url(#...)",
          f"{p.external[:3]} {urls[:3]}")
    check(p.h2[:3] == ["summary", "findings", "connections"] and 'id="text"' in src,
          "sections: summary, findings, connections, the text findings",
          f"h2 {p.h2}")

    want, evs = expected(rep)
    conns = {c["id"]: c for c in rep["connections"]}
    order = sorted(conns, key=lambda i: (want[i][1], -want[i][0] if not want[i][1] else 0, i))
    main_ids = [i for i in order if not want[i][1]]
    idle_ids = [i for i in order if want[i][1]]
    got_main = [int(r[0]) for r in p.rows["main"]]
    got_idle = [int(r[0]) for r in p.rows["idle"]]
    check(got_main == main_ids[:MAX_ROWS],
          f"{len(got_main)} connections in order of trouble (the score by value)",
          f"got {got_main[:8]}..., want {main_ids[:8]}...")
    bad = [f"#{r[0]} {r[1]} != {want[int(r[0])][0]}" for r in p.rows["main"] + p.rows["idle"]
           if int(r[1]) != want[int(r[0])][0]]
    check(not bad, "each row's score is the documented one", "; ".join(bad[:3]))
    check(got_idle == idle_ids[:max(MAX_ROWS - len(main_ids), 0)],
          f"{len(got_idle)} idle or control connections folded (<details id=\"idle\">), no other",
          f"got {got_idle[:8]}..., want {idle_ids[:8]}...")
    if len(conns) > MAX_ROWS:
        check(re.search(r"\d+ more connections not listed", "".join(p.text)) is not None,
              "the connections beyond the rows are counted")
    bad = []
    for cid, es in evs.items():
        if not es:
            continue
        if cid not in p.sections:
            if order.index(cid) < 500:
                bad.append(f"conn {cid}: no section for its {len(es)} events")
            continue
        first = collections.defaultdict(list)  # the first MAX_EVENTS of each type
        for e in sorted(es, key=lambda e: e["ts"]):
            if len(first[e["type"]]) < MAX_EVENTS:
                first[e["type"]].append(e)
        es = [e for t in first.values() for e in t]
        rows = p.events.get(cid, [])
        if len(rows) != len(es):
            bad.append(f"conn {cid}: {len(rows)} event rows for {len(es)} events")
            continue
        left = collections.Counter()
        for t, r in rows:
            left[(t, r[2].split(":")[-1])] += 1
        for e in es:
            fr = e.get("frames") or []
            want_fr = f"{fr[0]}\u2013{fr[1]}" if len(fr) == 2 and fr[1] > fr[0] else (str(fr[0]) if fr else "")
            if left[(e["type"], want_fr)] <= 0:
                bad.append(f"conn {cid}: no {e['type']} row with frames {want_fr}")
                break
            left[(e["type"], want_fr)] -= 1
    check(not bad, f"every finding of {len(evs)} connections in its type's table, with its frames",
          "; ".join(bad[:3]))
    # The findings' overview: segments lost and each kind of event, by value.
    lost = {c["id"]: sum(max(c[d]["retransmissions"] - c[d]["spurious_retransmissions"], 0)
                         for d in ("c2s", "s2c")) for c in rep["connections"]}
    want_rows = {"lost": (sum(lost.values()), sum(1 for v in lost.values() if v))}
    by_type = collections.Counter(e["type"] for e in rep["events"])
    for t, n in by_type.items():
        want_rows[t] = (n, len({e["conn"] for e in rep["events"] if e["type"] == t}))
    got_rows = {t: (int(n), int(c)) for t, n, c in re.findall(
        r'<tr data-type="([a-z_]+)"><td class="l">[^<]*</td><td>(\d+)</td><td>(\d+)</td>', src)}
    check(got_rows == want_rows, f"the findings' overview: segments lost and {len(by_type)} kinds, count and connections",
          f"got {sorted(got_rows.items())[:4]}, want {sorted(want_rows.items())[:4]}")
    text = "".join(p.text)
    missing = [i["path"] for i in rep["inputs"] if i["path"] not in text]
    check(not missing, "input paths shown as text", f"missing {missing}")
    if rep["inputs"]:
        check(rep["inputs"][0]["path"] in p.title, "title names the input", p.title)
    if a.graphs:
        # Graphs are drawn for the first PLOT_MAX connections that carry
        # data, and shown in the sections of those that have one.
        with_data = [i for i in sorted(conns)
                     if conns[i]["c2s"]["data_packets"] or conns[i]["s2c"]["data_packets"]][:PLOT_MAX]
        with_data = [i for i in with_data if i in p.sections]
        bad = [f"g-{i}-{d}-tseq" for i in with_data for d in ("c2s", "s2c")
               if conns[i][d]["data_packets"] and not p.graphs.get(f"g-{i}-{d}-tseq", {}).get("svg")]
        check(not bad and (p.graphs or not with_data), f"{len(p.graphs)} graphs inline, every direction with data has its time-sequence graph",
              f"missing {bad[:4]}")
    if a.marks:
        bad, n = [], 0
        for fid, g in p.graphs.items():
            m = re.match(r"g-(\d+)-(c2s|s2c)-tseq$", fid)
            if not m:
                continue
            want_n = conns[int(m.group(1))][m.group(2)]["retransmissions"]
            n += want_n
            if g["retrans"] + g["binned"] != want_n:
                bad.append(f"{fid}: {g['retrans']} marks + {g['binned']} binned != {want_n}")
        binned = sum(g["binned"] for g in p.graphs.values())
        check(not bad, f"every retransmission a mark or counted in a bin ({n}, {binned} binned)",
              "; ".join(bad[:3]))
    print("\n".join(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
