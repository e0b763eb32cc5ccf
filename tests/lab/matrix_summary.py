#!/usr/bin/env python3
"""matrix_summary.py [MATRIX.md] - the README's accuracy table from MATRIX.md.

One row a path scenario, one column a path RTT; a cell counts the vantage
points (sender, middle tap, receiver) that passed, "3/3" when all did
("h" marks a vantage whose path missed its schedule, "-" one not run). The
veth families (microsecond paths, one or two vantages each) follow as one
line each: cells passed of cells run. Printed as Markdown on stdout.
"""

import re
import sys


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/lab/MATRIX.md"
    text = open(path).read().splitlines()
    family, grid_hdr, grids, veth = None, None, [], {}
    for line in text:
        if line.startswith("## "):
            family, grid_hdr = line[3:].strip(), None
            continue
        if line.startswith("| cell |"):
            grid_hdr = None
        if line.startswith("| scenario |"):
            grid_hdr = [c.strip() for c in line.strip("|").split("|")][1:]
            continue
        if grid_hdr and line.startswith("| ") and not line.startswith("|---"):
            cols = [c.strip() for c in line.strip("|").split("|")]
            if len(cols) == len(grid_hdr) + 1:
                grids.append((family, cols[0], grid_hdr, cols[1:]))
                continue
        m = re.match(r"\| (\S+) \| µs \(veth\) \| [^|]+ \|.*\| (ok|FAIL|harness|skip|-) \|$", line)
        if m and family and not family.startswith("path"):
            ok, n = veth.get(family, (set(), set()))
            n.add(m.group(1))
            if m.group(2) != "ok":
                ok.add(m.group(1))
            veth[family] = (ok, n)
    hdr = grids[0][2] if grids else []
    print("| path scenario | " + " | ".join(hdr) + " |")
    print("|---|" + "---|" * len(hdr))
    for fam, name, _, cells in grids:
        out = []
        for c in cells:
            v = [x.strip() for x in c.split("/")]
            good = sum(1 for x in v if x == "ok")
            tag = "".join("h" if x == "harness" else "-" if x == "-" else "" for x in v)
            out.append(f"{good}/{len(v)}{(' ' + tag) if tag else ''}")
        print(f"| {name.removeprefix('path-')} ({fam.removeprefix('path: ')}) | " +
              " | ".join(out) + " |")
    print()
    print("| veth family (µs paths) | cells passed |")
    print("|---|---|")
    for fam, (bad, cells) in veth.items():
        print(f"| {fam} | {len(cells) - len(bad)} of {len(cells)} |")


if __name__ == "__main__":
    main()
