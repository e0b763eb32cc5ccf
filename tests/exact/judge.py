#!/usr/bin/python3
"""judge.py - compare one tcpsift report with a case's expect.json.

    judge.py EXPECT.json VANTAGE REPORT.json

Prints "PASS|FAIL measured ... expected ..." (one line) and exits 0 on
PASS, 1 on FAIL. What is compared (expect.json, per vantage):
  stalls    the report's stall events, in time order, minus classes listed
            in "optional" (at least "min_optional" of those), must be exactly
            as many as expected; the i-th
            has one of the expected classes, the expected direction, a
            duration_s within dur_ms and (when given) ack_delay_s within
            ack_delay_ms: counts and classes exact, durations tolerant;
  counts    per-direction numbers of the first connection (s2c.tlp_...),
            exactly (from nstat: the kernel's own count);
  holes     sack_hole events: as many, each with these segments/bytes/
            closed_by;
  dsack     the number of dsack events.
"""
import json
import sys


def fmt_stall(e):
    s = "%s/%s %.1fms" % (e["class"], e["dir"], e["duration_s"] * 1000)
    if e.get("ack_delay_s") is not None:
        s += " ack+%.1f" % (e["ack_delay_s"] * 1000)
    return s


def fmt_exp(e):
    s = "%s/%s %g-%gms" % ("|".join(e["class"]), e["dir"], e["dur_ms"][0], e["dur_ms"][1])
    if "ack_delay_ms" in e:
        s += " ack+%g-%g" % tuple(e["ack_delay_ms"])
    return s + (" (maybe)" if e.get("maybe") else "")


def get(conn, path):
    v = conn
    for k in path.split("."):
        v = v.get(k) if isinstance(v, dict) else None
    return v


def judge(exp, rep):
    fails = []
    meas, want = [], []
    events = sorted(rep.get("events", []), key=lambda e: e.get("ts", 0))
    opt = set(exp.get("optional", []))
    st = [e for e in events if e["type"] == "stall"]
    got = [e for e in st if e["class"] not in opt]
    meas.append("stalls=[%s]" % ", ".join(fmt_stall(e) for e in st))
    want.append("stalls=[%s]%s" % (", ".join(fmt_exp(e) for e in exp["stalls"]),
                                   " (+any %s)" % "|".join(sorted(opt)) if opt else ""))
    # A stall marked "maybe" (its silence within a tick of --stall-min) may
    # be reported or not; the others must be, in order.
    expected = []
    k = 0
    for x in exp["stalls"]:
        g = got[k] if k < len(got) else None
        fits = g is not None and g["class"] in x["class"] and \
            x["dur_ms"][0] <= g["duration_s"] * 1000 <= x["dur_ms"][1]
        if x.get("maybe") and not fits:
            continue
        expected.append(x)
        k += 1
    if len(got) != len(expected):
        fails.append("%d stalls, expected %d" % (len(got), len(expected)))
    # min_optional: at least this many of the optional classes (a rule that
    # needs repeats: timer jitter may cost one of them).
    n_opt = len(st) - len(got)
    if n_opt < exp.get("min_optional", 0):
        fails.append("%d %s, expected at least %d" % (n_opt, "|".join(sorted(opt)),
                                                       exp["min_optional"]))
    for i, (g, x) in enumerate(zip(got, expected)):
        ms = g["duration_s"] * 1000
        if g["class"] not in x["class"]:
            fails.append("stall %d class %s" % (i + 1, g["class"]))
        if g["dir"] != x["dir"]:
            fails.append("stall %d dir %s" % (i + 1, g["dir"]))
        if not x["dur_ms"][0] <= ms <= x["dur_ms"][1]:
            fails.append("stall %d duration %.1f ms" % (i + 1, ms))
        if "ack_delay_ms" in x:
            ad = g.get("ack_delay_s")
            if ad is None or not x["ack_delay_ms"][0] <= ad * 1000 <= x["ack_delay_ms"][1]:
                fails.append("stall %d ack delay %s" % (i + 1, "none" if ad is None else
                                                          "%.1f ms" % (ad * 1000)))
    conns = rep.get("connections", [])
    conn = conns[0] if conns else {}
    if len(conns) != 1:
        fails.append("%d connections" % len(conns))
    for k, v in sorted(exp.get("counts", {}).items()):
        m = get(conn, k)
        short = k.split(".")[-1].replace("_retransmissions", "_rtx")
        meas.append("%s=%s" % (short, m))
        want.append("%s=%s" % (short, v))
        if m != v:
            fails.append("%s %s" % (k, m))
    if "holes" in exp:
        holes = [e for e in events if e["type"] == "sack_hole"]
        meas.append("holes=[%s]" % ", ".join("%dseg/%dB/%s" % (h.get("segments", -1), h.get("bytes", -1),
                                                                h.get("closed_by")) for h in holes))
        want.append("holes=[%s]" % ", ".join("%dseg/%dB/%s" % (h["segments"], h["bytes"], h["closed_by"])
                                              for h in exp["holes"]))
        if len(holes) != len(exp["holes"]):
            fails.append("%d sack holes" % len(holes))
        for h, x in zip(holes, exp["holes"]):
            if any(h.get(k) != x[k] for k in x):
                fails.append("hole %s" % {k: h.get(k) for k in x})
    if "dsack" in exp:
        n = sum(1 for e in events if e["type"] == "dsack")
        meas.append("dsack=%d" % n)
        want.append("dsack=%d" % exp["dsack"])
        if n != exp["dsack"]:
            fails.append("%d dsack events" % n)
    return fails, " ".join(meas), " ".join(want)


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    vantage = sys.argv[2]
    try:
        with open(sys.argv[3]) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        print("FAIL no usable report (%s)" % e)
        return 1
    fails, meas, want = judge(doc["expect"][vantage], rep)
    print("%s measured %s expected %s%s" % ("FAIL" if fails else "PASS", meas, want,
                                           " [" + "; ".join(fails) + "]" if fails else ""))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
