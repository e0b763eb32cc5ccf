#!/usr/bin/env python3
"""lab-relay-truth.py LOG - reordering ground truth from a lab-relay --log.

Reads the "sent ..." lines lab-relay writes, one per A -> B data segment as
it was written (--paths, --queues): order (write order), d (arrival order at
the relay), seq, len, and when present path or q (the lane), delay_us and
t (write time, ns). One TCP connection per log (sequence numbers of
different connections would be compared with each other). Prints one line
of key=value:

  data         data segments written
  late         segments written after one that arrived after them (overtaken)
               and not overtaken by a copy of their own bytes: what an observer
               behind the relay must call out of order
  late_orig, copy_orig  the same counts for originals only (no copy of their
               bytes reached the relay before them): a late retransmission
               is a retransmission to an observer, not an out-of-order segment
  copy         segments overtaken by a copy of their own bytes (the sender's
               retransmission came first: a duplicate behind the relay, not
               reordering)
  across       late segments overtaken by one from another lane (path/queue)
  lanes        lanes (paths or queues) that carried data
  max_extent   the most data segments that overtook one late segment (RFC
               5236 extent as seen behind the relay)
  max_late_us  the largest, over late segments, of its write time minus the
               write time of the first segment that overtook it (needs t=)
  retx         segments whose bytes overlap those of a segment that arrived
               before them (the sender's retransmissions seen at the relay)

With a "# lab-relay paths=... delays_us=D0,D1,..." header (--paths), also,
in microseconds over the sprayed data segments (path >= 0):
  lag_us_min lag_us_med lag_us_p99 lag_us_max  how late each was written:
               delay_us (arrival to write) minus its path's delay
  read_us_med read_us_p99  how long it waited in the relay's socket before
               the relay read it (arrival to read)
  lag_read_us_med lag_read_us_p99 lag_read_us_max  how late it was written
               once the relay had it: delay_us minus the larger of its path's
               delay and read_us (the relay's own scheduling, not the queue)
Sequence numbers are compared modulo 2^32. A log without "sent" lines
gives zeros. Exit 0, 1 when the log cannot be read, 2 usage.
"""
import bisect
import sys


def read(path):
    sent, delays = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("# lab-relay "):
                for kv in line.split()[2:]:
                    k, _, v = kv.partition("=")
                    if k == "delays_us":
                        delays = [float(x) for x in v.split(",")]
                continue
            if not line.startswith("sent "):
                continue
            f_ = dict(kv.split("=", 1) for kv in line.split()[1:])
            sent.append({
                "order": int(f_["order"]),
                "d": int(f_["d"]),
                "lane": int(f_.get("path", f_.get("q", 0))),
                "seq": int(f_["seq"]),
                "len": int(f_["len"]),
                "t": int(f_["t"]) if "t" in f_ else None,
                "delay_us": float(f_["delay_us"]) if "delay_us" in f_ else None,
                "read_us": float(f_["read_us"]) if "read_us" in f_ else None,
            })
    return sent, delays


def unwrap(segs):
    """Give each segment (in arrival order) a 64-bit start: seq unwrapped
    against the previous arrival."""
    prev = None
    for s in sorted(segs, key=lambda s: s["d"]):
        if prev is None:
            s["u"] = s["seq"]
        else:
            delta = (s["seq"] - prev["seq"]) % 2**32
            s["u"] = prev["u"] + (delta - 2**32 if delta >= 2**31 else delta)
        prev = s


def overlaps(segs):
    """For each segment, the indexes (into segs) of the others sharing bytes."""
    by_start = sorted(range(len(segs)), key=lambda i: segs[i]["u"])
    starts = [segs[i]["u"] for i in by_start]
    maxlen = max((s["len"] for s in segs), default=0)
    out = [[] for _ in segs]
    for i, s in enumerate(segs):
        lo = bisect.bisect_right(starts, s["u"] - maxlen)
        hi = bisect.bisect_left(starts, s["u"] + s["len"])
        for j in by_start[lo:hi]:
            o = segs[j]
            if j != i and o["u"] < s["u"] + s["len"] and s["u"] < o["u"] + o["len"]:
                out[i].append(j)
    return out


class Fenwick:
    def __init__(self, n):
        self.t = [0] * (n + 1)

    def add(self, i):
        while i < len(self.t):
            self.t[i] += 1
            i += i & -i

    def count(self, i):  # how many added <= i
        n = 0
        while i > 0:
            n += self.t[i]
            i -= i & -i
        return n


def percentile(sorted_vals, p):
    k = min(len(sorted_vals) - 1, max(0, int(round(p / 100 * (len(sorted_vals) - 1)))))
    return sorted_vals[k]


def main():
    if len(sys.argv) != 2:
        print("usage: lab-relay-truth.py LOG", file=sys.stderr)
        return 2
    try:
        segs, delays = read(sys.argv[1])
    except (OSError, ValueError, KeyError) as e:
        print(f"lab-relay-truth: {sys.argv[1]}: {e!r}", file=sys.stderr)
        return 1
    segs.sort(key=lambda s: s["order"])
    unwrap(segs)
    ov = overlaps(segs)
    maxd = max((s["d"] for s in segs), default=0)
    fw = Fenwick(maxd)
    # Prefix maxima of d in write order, with their write times: the first
    # segment that overtook segment d is the first prefix maximum above d.
    pm_d, pm_t = [], []
    lane_max = {}  # lane -> highest d written so far on it
    late = copy = across = max_extent = 0
    late_orig = copy_orig = 0
    max_late_ns = 0
    for i, s in enumerate(segs):
        d = s["d"]
        overtakers = i - fw.count(d)  # written before it, arrived after it
        # An original: no copy of its bytes reached the relay before it.
        orig = not any(segs[j]["d"] < d for j in ov[i])
        if overtakers:
            if any(segs[j]["d"] > d and j < i for j in ov[i]):
                copy += 1
                copy_orig += orig
            else:
                late += 1
                late_orig += orig
                max_extent = max(max_extent, overtakers)
                across += any(m > d for ln, m in lane_max.items() if ln != s["lane"])
                if s["t"] is not None:
                    first = pm_t[bisect.bisect_right(pm_d, d)]
                    max_late_ns = max(max_late_ns, s["t"] - first)
        fw.add(d)
        if not pm_d or d > pm_d[-1]:
            pm_d.append(d)
            pm_t.append(s["t"])
        lane_max[s["lane"]] = max(lane_max.get(s["lane"], 0), d)
    retx = sum(any(segs[j]["d"] < s["d"] for j in ov[i]) for i, s in enumerate(segs))
    out = {
        "late": late,
        "copy": copy,
        "late_orig": late_orig,
        "copy_orig": copy_orig,
        "data": len(segs),
        "across": across,
        "lanes": len({s["lane"] for s in segs}),
        "max_extent": max_extent,
        "max_late_us": f"{max_late_ns / 1000:.1f}",
        "retx": retx,
    }
    sprayed = [s for s in segs if delays and s["delay_us"] is not None and
               0 <= s["lane"] < len(delays)]
    if sprayed:
        lag = sorted(s["delay_us"] - delays[s["lane"]] for s in sprayed)
        out["lag_us_min"] = f"{lag[0]:.1f}"
        out["lag_us_med"] = f"{percentile(lag, 50):.1f}"
        out["lag_us_p99"] = f"{percentile(lag, 99):.1f}"
        out["lag_us_max"] = f"{lag[-1]:.1f}"
    sprayed = [s for s in sprayed if s["read_us"] is not None]
    if sprayed:
        wait = sorted(s["read_us"] for s in sprayed)
        out["read_us_med"] = f"{percentile(wait, 50):.1f}"
        out["read_us_p99"] = f"{percentile(wait, 99):.1f}"
        lag = sorted(s["delay_us"] - max(delays[s["lane"]], s["read_us"]) for s in sprayed)
        out["lag_read_us_med"] = f"{percentile(lag, 50):.1f}"
        out["lag_read_us_p99"] = f"{percentile(lag, 99):.1f}"
        out["lag_read_us_max"] = f"{lag[-1]:.1f}"
    print(" ".join(f"{k}={v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
