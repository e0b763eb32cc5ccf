#!/usr/bin/env python3
"""check_dom.py - an analyze --html page against the DOM Chromium dumped once its script ran.

    check_dom.py PAGE.html DOM.html T0 T1

The DOM of the page opened as PAGE.html#t=T0-T1 (chromium --headless
--dump-dom): the script took every inline graph (<html data-zoom="N">, N
the page's <figure class="graph">), zoomed each along time (its
<g class="zoom"> translated and scaled along x only), redrew each time
axis with ticks inside T0..T1 only, and the page's retransmission marks
and bins are all in the DOM. One PASS or FAIL line per check; standard
library only.
"""
import re
import sys


def main():
    page, dom = open(sys.argv[1], encoding="utf-8").read(), open(sys.argv[2], encoding="utf-8").read()
    t0, t1 = float(sys.argv[3]), float(sys.argv[4])
    name = sys.argv[1].rsplit("/", 1)[-1]
    figs = len(re.findall(r'<figure class="graph"', page))
    m = re.search(r'<html[^>]*data-zoom="(\d+)"', dom)
    print("PASS" if m and int(m.group(1)) == figs and figs > 0 else "FAIL",
          f"{name}: the script took the page's {figs} graphs (data-zoom={m.group(1) if m else None})")
    zooms = re.findall(r'<g class="zoom" transform="translate\(([-0-9.e]+) 0\) scale\(([0-9.e]+) 1\)"', dom)
    print("PASS" if len(zooms) == figs and all(float(k) > 1 for _, k in zooms) else "FAIL",
          f"{name}: #t={t0:g}-{t1:g} zoomed {len(zooms)} of {figs} graphs along time")
    ticks = []
    for ax in re.findall(r'<g class="xaxis">(.*?)</g>', dom, re.S):
        ticks += [float(t) for t in re.findall(r'<text class="tick"[^>]*>([-0-9.]+)</text>', ax)]
    print("PASS" if ticks and all(t0 - 1e-9 <= t <= t1 + 1e-9 for t in ticks) else "FAIL",
          f"{name}: the time axes redrawn within {t0:g}-{t1:g} s "
          f"({len(ticks)} ticks, {min(ticks or [0]):g}..{max(ticks or [0]):g})")
    want = len(re.findall(r'class="retrans(?: bin)?" ', page))
    got = len(re.findall(r'class="retrans(?: bin)?" ', dom))
    print("PASS" if got == want else "FAIL",
          f"{name}: the DOM holds the page's {want} retransmission marks and bins ({got})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
