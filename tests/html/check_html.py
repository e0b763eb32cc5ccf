#!/usr/bin/env python3
"""check_html.py - an analyze --html page against the --json report of the same run.

    check_html.py PAGE.html REPORT.json [--graph-dir DIR]

Prints one "PASS what" or "FAIL what: why" line per check (tests/html/run.sh
counts them). The page must be well formed (every element closed in order,
void elements aside), list every connection of the report in id order (up
to the page's 5 000 rows), and give each connection that has events a
section whose event rows match the report's events of that connection by
count (up to 200), type and frames; the inputs' paths appear as text (so
escaped in the markup); with --graph-dir, every linked graph exists there
and every graph there is linked. Python's standard library only.
"""
import argparse
import collections
import html.parser
import json
import os
import re
import sys

VOID = {"meta", "img", "br", "link", "hr", "input"}
MAX_ROWS, MAX_EVENTS = 5000, 200


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors = [], []
        self.section = None          # "connections" / "details" (by the h2 ids)
        self.rows = []               # [cells] of the connections table
        self.detail = None           # id of the h3 section being read
        self.events = collections.defaultdict(list)  # id -> [cells]
        self.cell, self.row, self.in_title = None, None, False
        self.title, self.links, self.text = "", set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "h2":
            self.section = a.get("id")
        elif tag == "h3" and a.get("id", "").startswith("c"):
            self.detail = int(a["id"][1:])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
        elif tag == "title":
            self.in_title = True
        for k in ("href", "src"):
            if a.get(k, "").endswith(".svg"):
                self.links.add(a[k])

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>"
                               f" at line {self.getpos()[0]}")
        else:
            self.stack.pop()
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.row and self.row[0] not in ("id", "time", "input"):
                if self.section == "connections":
                    self.rows.append(self.row)
                elif self.section == "details" and self.detail is not None:
                    self.events[self.detail].append(self.row)
            self.row = None
        elif tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.in_title:
            self.title += data
        self.text.append(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("page")
    ap.add_argument("report")
    ap.add_argument("--graph-dir")
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
          "; ".join(p.errors[:3]) + (f" unclosed {p.stack}" if p.stack else ""))
    check(src.startswith("<!DOCTYPE html>") and src.rstrip().endswith("</html>"), "one whole page")
    conns = rep["connections"]
    want_ids = [c["id"] for c in conns][:MAX_ROWS]
    got_ids = [int(r[0]) for r in p.rows if r and r[0].isdigit()]
    check(got_ids == want_ids, f"{len(want_ids)} connection rows in id order",
          f"got {got_ids[:8]}... ({len(got_ids)}), want {want_ids[:8]}... ({len(want_ids)})")
    if len(conns) > MAX_ROWS:
        check(f"{len(conns) - MAX_ROWS} more connections not listed" in "".join(p.text),
              "the connections beyond the rows are counted")
    by_conn = collections.defaultdict(list)
    for e in rep["events"]:
        by_conn[e["conn"]].append(e)
    bad = []
    for cid, evs in by_conn.items():
        if cid not in want_ids:
            continue
        rows = p.events.get(cid, [])
        if len(rows) != min(len(evs), MAX_EVENTS):
            bad.append(f"conn {cid}: {len(rows)} event rows for {len(evs)} events")
            continue
        for r, e in zip(rows, evs):
            fr = e.get("frames") or []
            want_fr = f"{fr[0]}\u2013{fr[1]}" if len(fr) == 2 and fr[1] > fr[0] else (str(fr[0]) if fr else "")
            got_fr = r[4].split(":")[-1]
            if r[2] != e["type"] or got_fr != want_fr:
                bad.append(f"conn {cid}: row {r} for event {e['type']} frames {fr}")
                break
    check(not bad, f"events of {len(by_conn)} connections: count, type and frames by value", "; ".join(bad[:3]))
    text = "".join(p.text)
    missing = [i["path"] for i in rep["inputs"] if i["path"] not in text]
    check(not missing, "input paths shown as text", f"missing {missing}")
    if rep["inputs"]:
        check(rep["inputs"][0]["path"] in p.title, "title names the input", p.title)
    if a.graph_dir:
        have = {f for f in os.listdir(a.graph_dir) if f.endswith(".svg")}
        check(p.links <= have, "every linked graph exists", f"{sorted(p.links - have)[:3]}")
        check(have <= p.links, "every graph is linked", f"{sorted(have - p.links)[:3]}")
    else:
        check(not p.links, "no graph linked without graphs", f"{sorted(p.links)[:3]}")
    print("\n".join(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
