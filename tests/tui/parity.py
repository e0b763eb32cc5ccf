#!/usr/bin/env python3
"""parity.py ROWS.tsv REPORT.json... - the dashboard's table (tests/tools/tui-rows)
against `tcpsift analyze --json` of the same files, for each pair.

Per connection: addresses, state, retransmissions, stalls and the time they
cost, SACK holes, out-of-order, queues, MTU flag; then the totals (packets,
connections, stalls, SACK holes, reorders, retransmissions). Prints a line
per pair: "0 ok N connections" or "1 " and the differences ("; " between
them); exit 0 when every pair agrees, else 1. One process for every pair:
tests/tui/run.sh has dozens, and a python start costs ~0.1 s.
"""
import json
import sys


def compare(rows_path, report_path):
    """(0 or 1, what was found) for one pair."""
    rows, total = {}, None
    for line in open(rows_path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "total":
            total = [int(x) for x in f[1:]]
        else:
            rows[int(f[0])] = f
    d = json.load(open(report_path))
    bad = []
    conns = {c["id"]: c for c in d["connections"]}
    if set(rows) != set(conns):
        bad.append("ids: tui %d, analyze %d" % (len(rows), len(conns)))
    for i, c in conns.items():
        r = rows.get(i)
        if not r:
            continue
        mtu = c["mtu_findings"]
        want = [
            ("client", r[1], c["client"]),
            ("server", r[2], c["server"]),
            ("state", r[3], c["state"]),
            ("retrans", int(r[4]), c["c2s"]["retransmissions"] + c["s2c"]["retransmissions"]),
            ("stalls", int(r[5]), c["stalls"]["count"]),
            ("holes", int(r[7]), c["sack"]["holes"]),
            ("ooo", int(r[8]), c["c2s"]["out_of_order"] + c["s2c"]["out_of_order"]),
            ("queues", int(r[9]), len(c["queues"])),
            ("mtu", int(r[10]),
             int(bool(mtu["misaligned"] or mtu["pmtu_blackhole"] or mtu["icmp_too_big"]))),
        ]
        diff = ["%s %s != %s" % (k, a, b) for k, a, b in want if a != b]
        if abs(int(r[6]) / 1e9 - c["stalls"]["time_s"]) > 1e-6:
            diff.append("stall time %s ns != %s s" % (r[6], c["stalls"]["time_s"]))
        if diff:
            bad.append("connection %d: %s" % (i, ", ".join(diff)))
    s = d["summary"]
    # An input refused at open: the dashboard shows no table, analyze a
    # report of nothing with the reason in its errors list.
    if total is None and not rows and d.get("errors") and s["packets"] == 0:
        return 0, "ok: both refuse it (%s)" % d["errors"][0]["reason"]
    f = s["findings"]
    want = [s["packets"], s["connections"], f["stalls"], f["sack_holes"], f["out_of_order"],
            f["retransmissions"]]
    if total != want:
        bad.append("totals (packets conns stalls holes reorders retrans): tui %s, analyze %s"
                   % (total, want))
    if bad:
        return 1, "; ".join(bad[:10])
    return 0, "ok %d connections" % len(conns)


def main():
    args, worst = sys.argv[1:], 0
    for k in range(0, len(args) - 1, 2):
        try:
            rc, what = compare(args[k], args[k + 1])
        except Exception as e:  # one unreadable pair fails that pair only
            rc, what = 1, "%s: %r" % (args[k], e)
        print("%d %s" % (rc, " ".join(what.split("\n"))), flush=True)
        worst = max(worst, rc)
    return worst


sys.exit(main())
