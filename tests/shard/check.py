#!/usr/bin/env python3
"""check.py - a one-pass report against the reports of its N shards (--shard K/N).

  check.py json   ONEPASS.json  SHARD1.json ... SHARDN.json
  check.py ndjson ONEPASS.ndjson SHARD1.ndjson ... SHARDN.ndjson

Checks, printing one FAIL line per problem (exit 1) or nothing (exit 0):
  - every connection of the one-pass report is in exactly one shard, the one
    tests/shard/shardhash.py (tcpsift-analyze(1)'s hash, reimplemented) names, with the
    same statistics; only "id" differs (ids are per run, each shard numbers
    its own connections from 1 in first-packet order) and a shard's
    connections say when they were live;
  - the events are the same, each with its connection ("conn" by id);
  - the summary counters of the shards add up to the one-pass ones (max_live
    at most, first_ts/last_ts those of the whole stream in every shard, and
    other_shards to N-1 times the packets).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shardhash  # noqa: E402

fails = []


def fail(msg):
    fails.append(msg)


def load(path, fmt):
    """(connections, events, summary) of a report."""
    with open(path) as f:
        if fmt == "json":
            d = json.load(f)
            return d["connections"], d["events"], d["summary"]
        conns, events, summary = [], [], None
        for line in f:
            o = json.loads(line)
            kind = o.pop("kind")
            if kind == "connection":
                conns.append(o)
            elif kind == "event":
                events.append(o)
            elif kind == "summary":
                for k in ("tcpsift", "vantages"):
                    o.pop(k, None)
                summary = o
        return conns, events, summary


def endpoint(s):
    """'10.0.0.1:80' or '[2001:db8::1]:443' -> (address, port)."""
    addr, port = s.rsplit(":", 1)
    return addr.strip("[]"), int(port)


def conn_key(c):
    return (c["client"], c["server"], c["vantage"], c["first_ts_ns"])


def canon(x):
    return json.dumps(x, sort_keys=True)


def without_id(c):
    """Its statistics: all but the id and, in a shard's, "live" (when it
    was in the table, for merge; a one-pass report has none)."""
    c = dict(c)
    c.pop("id")
    c.pop("live", None)
    return canon(c)


def event_view(e, id_to_key):
    e = dict(e)
    e["conn"] = id_to_key.get(e.get("conn"), e.get("conn"))
    return canon(e)


def check_summary(one, shards, path=""):
    for k, v in one.items():
        where = path + k
        got = [s.get(k) for s in shards]
        if where in ("first_ts", "last_ts"):
            if any(g != v for g in got):
                fail(f"summary.{where}: one-pass {v}, shards {got}")
        elif where == "other_shards":  # each packet is left by the N-1 other shards
            if v != 0 or sum(got) != (len(shards) - 1) * one["packets"]:
                fail(f"summary.{where}: one-pass {v}, shards {got}")
        elif where == "flows.max_live":
            if sum(got) < v or max(got) > v:
                fail(f"summary.{where}: one-pass {v}, shards {got}")
        elif isinstance(v, dict):
            check_summary(v, [g or {} for g in got], where + ".")
        elif isinstance(v, bool) or v is None:
            if any(g != v for g in got):
                fail(f"summary.{where}: one-pass {v}, shards {got}")
        elif isinstance(v, int):
            if sum(got) != v:
                fail(f"summary.{where}: one-pass {v}, shards sum to {sum(got)} ({got})")
        elif isinstance(v, float):
            if abs(sum(got) - v) > 1e-6 * max(1.0, abs(v)):
                fail(f"summary.{where}: one-pass {v}, shards sum to {sum(got)} ({got})")


def main():
    fmt, one_path, shard_paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    n = len(shard_paths)
    one_c, one_e, one_s = load(one_path, fmt)
    one_ids = {c["id"]: conn_key(c) for c in one_c}
    one_conns = {conn_key(c): without_id(c) for c in one_c}
    if len(one_conns) != len(one_c):
        fail(f"{one_path}: two connections with one key")
    placed, events, summaries = {}, [], []
    for k, path in enumerate(shard_paths, 1):
        conns, evs, summ = load(path, fmt)
        summaries.append(summ)
        ids = {c["id"]: conn_key(c) for c in conns}
        if sorted(ids) != list(range(1, len(conns) + 1)):
            fail(f"shard {k}: ids are not 1..{len(conns)}")
        for c in conns:
            key = conn_key(c)
            if key in placed:
                fail(f"{key}: in shards {placed[key][0]} and {k}")
            placed[key] = (k, without_id(c))
            a, b = endpoint(c["client"]), endpoint(c["server"])
            want = shardhash.shard_of(shardhash.conn_hash(a[0], a[1], b[0], b[1]), n)
            if want != k:
                fail(f"{key}: in shard {k}, the documented hash says {want}")
        events += [event_view(e, ids) for e in evs]
    for key, stats in one_conns.items():
        if key not in placed:
            fail(f"{key}: in no shard")
        elif placed[key][1] != stats:
            fail(f"{key}: statistics differ in shard {placed[key][0]}")
    for key in placed.keys() - one_conns.keys():
        fail(f"{key}: in shard {placed[key][0]}, not in the one-pass report")
    if sorted(events) != sorted(event_view(e, one_ids) for e in one_e):
        fail(f"events differ: one-pass {len(one_e)}, shards {len(events)}")
    if one_s is None or any(s is None for s in summaries):
        fail("a report has no summary")
    else:
        check_summary(one_s, summaries)
    for f in fails[:10]:
        print("FAIL", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
