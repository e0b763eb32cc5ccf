#!/usr/bin/env python3
"""check.py - tcpsift diff's numbers against analyze's, for tests/diff/run.sh.

  check.py SCHEMA DIFF.json A.json B.json   the diff of two runs and each
                                            side's analyze --json report

Validates DIFF.json against the schema, then checks its totals (A's and B's
values, delta) and its matched connections' rows by value against what the
two reports say (summary.findings, summary.counts, the connections), and
limited_by: each changed pair's directions (the report's "dominant" and its
share), the run's dominant limit and the limited_by_CLASS shares of the
run's time. Prints "PASS what" / "FAIL what" lines.
"""
import decimal
import json
import math
import sys

import jsonschema


def close(x, y):
    if x is None or y is None:
        return x is y
    return math.isclose(float(x), float(y), rel_tol=1e-9, abs_tol=1e-9)


def totals(r):
    """The diff's run metrics, computed from an analyze --json report."""
    f, c, s = r["summary"]["findings"], r["summary"]["counts"], r["summary"]
    conns = r["connections"]
    payload = sum(x[d]["payload_bytes"] for x in conns for d in ("c2s", "s2c"))
    dur = float(s["last_ts"] - s["first_ts"])  # Decimal: times are exact
    paths = [x for x in conns if x["path_rtt_s"] is not None]
    return {
        "connections": s["connections"],
        "stalls": f["stalls"],
        "stall_time": f["stall_time_s"],
        "sack_holes": f["sack_holes"],
        "reorder_across_queues": f["reorder_across_queues"],
        "out_of_order": f["out_of_order"],
        "retransmissions": f["retransmissions"],
        "rto": c["rto_retransmissions"],
        "fast": c["fast_retransmissions"],
        "spurious": c["spurious_retransmissions"],
        "tlp": f["tail_loss_probes"],
        "dsack": f["dsack"],
        "dup_acks": c["dup_acks"],
        "capture_loss": f["capture_loss_segments"],
        "unseen_bytes": c["unseen_bytes"],
        "lost_upstream": c["lost_upstream"],
        "zero_window": c["zero_window_episodes"],
        "zero_window_time": c["zero_window_time_s"],
        "mtu_misaligned": f["mtu_misaligned"],
        "bytes": payload,
        "duration": dur,
        "throughput": payload * 8 / dur if dur > 0 else None,
        # The mean of the known paths; lost over sent, every direction.
        "path_rtt": (sum(float(x["path_rtt_s"]) for x in paths) / len(paths)) if paths else None,
        "loss_rate": (min(lost(conns), sent(conns)) / sent(conns)) if sent(conns) else None,
    }


def lost(conns):
    return sum(max(x[d]["retransmissions"] - x[d]["spurious_retransmissions"], 0)
               for x in conns for d in ("c2s", "s2c"))


def sent(conns):
    return sum(x[d]["data_packets"] + x[d]["lost_upstream"] for x in conns for d in ("c2s", "s2c"))


def conn_values(x):
    """A connection's metrics, from its analyze --json object."""
    d = (x["c2s"], x["s2c"])
    st = x["stalls"]
    v = {
        "retransmissions": sum(y["retransmissions"] for y in d),
        "rto": sum(y["rto_retransmissions"] for y in d),
        "fast": sum(y["fast_retransmissions"] for y in d),
        "dup_acks": sum(y["dup_acks"] for y in d),
        "bytes": sum(y["payload_bytes"] for y in d),
        "duration": x["duration_s"],
        "sack_holes": x["sack"]["holes"],
        "stalls": st["count"],
        "stall_time": st["time_s"],
        "throughput": (sum(float(y["throughput_bps"]) for y in d)
                       if d[0]["throughput_bps"] is not None else None),
        "path_rtt": x["path_rtt_s"],
        "loss_rate": (min(lost([x]), sent([x])) / sent([x])) if sent([x]) else None,
    }
    for cls, n in st["by_class"].items():
        v["stall_" + cls] = n
    return v


SENDER = ("sender_buffer", "sender_app", "slow_start")


def limit_times(lb):
    """A direction's limited_by as the capture point tells it: {class: seconds},
    a hidden sender's classes as one, "sender" (the report's "dominant")."""
    if lb is None:
        return {}
    t = {k: float(v) for k, v in lb["time_s"].items()}
    if not lb["sender_visible"]:
        t["sender"] = sum(t.pop(k) for k in SENDER)
    return t


def label(times):
    """(dominant, share) of {class: seconds}, or None without time."""
    total = sum(times.values())
    if total <= 0:
        return None
    dom = max(times, key=lambda k: times[k])
    return dom, times[dom] / total


def check_labels(diff, ra, rb, out):
    """limited_by by value: the changed pairs' directions, the run's."""
    conns = [{x["id"]: x for x in r["connections"]} for r in (ra, rb)]
    for p in diff["connections"]:
        for d in ("c2s", "s2c"):
            got = p["limited_by"][d]
            for side, key in ((0, "a"), (1, "b")):
                lb = conns[side][p[key]][d]["limited_by"]
                want = label(limit_times(lb))
                g = got[side and "b" or "a"]
                ok = (g is None and want is None) or (
                    g is not None and want is not None and g["dominant"] == want[0] ==
                    lb["dominant"] and close(g["share"], want[1]))
                out.append(("PASS" if ok else "FAIL") +
                           f" conn A#{p['a']} B#{p['b']} limited_by {d} of {key}: {g}"
                           f" (analyze: {want})")
    rows = {r["metric"]: r for r in diff["totals"]}
    for side, rep in (("a", ra), ("b", rb)):
        run = {}
        for x in rep["connections"]:
            for d in ("c2s", "s2c"):
                for k, v in limit_times(x[d]["limited_by"]).items():
                    run[k] = run.get(k, 0.0) + v
        total = sum(run.values())
        want = label(run)
        g = diff["limited_by"][side]
        ok = (g is None and want is None) or (
            g is not None and want is not None and g["dominant"] == want[0] and
            close(g["share"], want[1]))
        out.append(("PASS" if ok else "FAIL") + f" run limited_by of {side}: {g} (analyze: {want})")
        for k, v in run.items():
            r = rows.get("limited_by_" + k)
            ok = r is not None and close(r[side], v / total)
            out.append(("PASS" if ok else "FAIL") +
                       f" totals limited_by_{k} of {side}: {r and r[side]} (analyze: {v / total})")


def main():
    schema, diff = (json.load(open(p)) for p in sys.argv[1:3])
    # Times are written exactly (to the ns): read them so, not as doubles.
    ra, rb = (json.load(open(p), parse_float=decimal.Decimal) for p in sys.argv[3:5])
    out = []
    try:
        jsonschema.validate(diff, schema, cls=jsonschema.Draft202012Validator)
        out.append("PASS schema")
    except jsonschema.ValidationError as e:
        out.append(f"FAIL schema: {e.message}")
    rows = {r["metric"]: r for r in diff["totals"]}
    ta, tb = totals(ra), totals(rb)
    for name in ta:
        r = rows.get(name)
        if r is None:
            out.append(f"FAIL totals: no row {name}")
            continue
        ok = close(r["a"], ta[name]) and close(r["b"], tb[name])
        if ok and r["a"] is not None and r["b"] is not None:
            ok = close(r["delta"], float(tb[name]) - float(ta[name])) and \
                r["changed"] == (not close(ta[name], tb[name]))
        out.append(("PASS" if ok else "FAIL") +
                   f" totals {name}: A {r['a']} B {r['b']} delta {r['delta']}"
                   f" (analyze: {ta[name]}, {tb[name]})")
    # Stall time by class: the stall events of each side.
    for side, rep in (("a", ra), ("b", rb)):
        by = {}
        for e in rep["events"]:
            if e["type"] == "stall" and not e["timer_like"]:
                by[e["class"]] = by.get(e["class"], 0) + float(e["duration_s"])
        for cls, t in by.items():
            r = rows.get("stall_time_" + cls)
            ok = r is not None and close(r[side], t)
            out.append(("PASS" if ok else "FAIL") + f" totals stall_time_{cls} of {side}: {t}")
    ca = {x["id"]: conn_values(x) for x in ra["connections"]}
    cb = {x["id"]: conn_values(x) for x in rb["connections"]}
    for p in diff["connections"]:
        for r in p["changes"]:
            m = r["metric"]
            if m not in ca[p["a"]]:
                continue
            want_a, want_b = ca[p["a"]][m], cb[p["b"]][m]
            ok = close(r["a"], want_a) and close(r["b"], want_b) and r["changed"]
            out.append(("PASS" if ok else "FAIL") +
                       f" conn A#{p['a']} B#{p['b']} {m}: {r['a']} -> {r['b']}"
                       f" (analyze: {want_a}, {want_b})")
        # A metric that changed and is not listed is a miss.
        listed = {r["metric"] for r in p["changes"]}
        for m in ca[p["a"]]:
            if not close(ca[p["a"]][m], cb[p["b"]][m]) and m not in listed:
                out.append(f"FAIL conn A#{p['a']} B#{p['b']}: {m} changed, not listed")
    check_labels(diff, ra, rb, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
