#!/usr/bin/env python3
"""jsondoc.py MANDIR [TCPSIFT] - the JSON report as documented is the JSON report the schema describes.

  MEMBERS         man/tcpsift-json.5's list of every object's members is
                  the one scripts/schema.py generates from the schema (so a
                  member added to the schema is listed: `schema.py check`);
  every member    every member name of the schema is also explained in the
                  prose of some page (outside that generated list);
  event types     the "Event types:" sentence of tcpsift-json(5) names
                  exactly the schema's event types.

  validators      with TCPSIFT: scripts/schema.py's fast validator and
                  jsonschema give the same verdict on real reports (a few
                  samples, --json and --ndjson, trimmed to keep jsonschema
                  quick) and on each of some hundred one-change breakages
                  of them (a member removed, added, of another type, null,
                  true for a number, a float, an unknown event type or kind).

Prints one "PASS what" or "FAIL what" line per check for tests/docs/run.sh.
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import schema  # noqa: E402  (scripts/schema.py)

# Font and other escapes, '\-' as '-': the text a reader sees.
ESC = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)|\\[&%]|\\\(aq")


def prose(path):
    text = open(path, encoding="utf-8").read()
    gen = schema.man_members(text)
    if gen is not None:
        text = text.replace(gen, "")
    return ESC.sub("", text).replace("\\-", "-")


def member_names(s):
    """Every property name anywhere in the schema (events' "type" consts aside)."""
    names = set()
    if isinstance(s, dict):
        names.update(s.get("properties", {}))
        for v in s.values():
            names |= member_names(v)
    elif isinstance(s, list):
        for v in s:
            names |= member_names(v)
    return names


# Captures whose reports hold every event type but reneging between them.
SAMPLES = ("zero-window.pcap", "reorder-relay.pcap", "mtu-pmtu-blackhole.pcap", "mtu-pmtu-icmp.pcap",
           "sack-splice-16k-mtu.pcap", "mtu-20532-nots.pcap", "mtu-gso-offload.pcap", "two-ifaces.pcapng")


def trim(doc):
    """One connection and one event of each type: jsonschema takes ~0.1 s
    per 10 kB, and each breakage is validated whole."""
    doc["connections"] = doc["connections"][:1]
    seen = {}
    keep = []
    for e in doc["events"]:
        seen[e["type"]] = seen.get(e["type"], 0) + 1
        if seen[e["type"]] <= 1:
            keep.append(e)
    doc["events"] = keep
    return doc


def breakages(obj):
    """One-change copies of obj, each with what was changed."""
    paths = []

    def walk(o, path):
        if isinstance(o, dict):
            paths.append(path)
            for k, v in o.items():
                walk(v, path + (k,))
        elif isinstance(o, list):
            for i, v in enumerate(o[:2]):
                walk(v, path + (i,))

    walk(obj, ())

    def at(o, path):
        for k in path:
            o = o[k]
        return o

    for n, path in enumerate(paths):
        keys = sorted(at(obj, path))
        if not keys:
            continue
        k = keys[n % len(keys)]
        old = at(obj, path)[k]
        changes = (("removed", None), ("added", 1), ("a string", "x"), ("null", None), ("true", True),
                   ("1.5", 1.5), ("1.0", 1.0))
        # Two kinds of change per object, in turn: every kind is met often.
        for what, new in (changes[n % 7], changes[(n + 3) % 7]):
            c = json.loads(json.dumps(obj))
            o = at(c, path)
            if what == "removed":
                del o[k]
            elif what == "added":
                o["no_such_member"] = new
            else:
                if new is not None and type(new) is type(old) and new == old:
                    continue
                o[k] = new
            yield "/".join(map(str, path + (k,))) + ": " + what, c
    for bogus in ("type", "kind"):
        c = json.loads(json.dumps(obj))
        for e in c.get("events", [c])[:1]:
            if bogus in e:
                e[bogus] = "no_such_" + bogus
                yield bogus + ": unknown", c


def check_validators(tcpsift):
    import jsonschema
    with open(schema.COMMITTED) as f:
        committed = json.load(f)
    fast = schema.Fast(committed)
    line = committed["$defs"]["ndjson_line"]
    slow_doc = jsonschema.validators.validator_for(committed)(committed)
    slow_line = jsonschema.validators.validator_for(committed)(dict(line, **{"$defs": committed["$defs"]}))
    cases, kinds = [], {}
    for name in SAMPLES:
        path = os.path.join(ROOT, "samples", name)
        doc = subprocess.run([tcpsift, "analyze", "--json", "--frames", "--no-progress", path],
                             capture_output=True, text=True).stdout
        doc = trim(json.loads(doc))
        if cases:  # the NDJSON connection line has the members of a connection
            doc["connections"] = []
        cases.append((name, doc, False))
        nd = subprocess.run([tcpsift, "analyze", "--ndjson", "--frames", "--no-progress", path],
                            capture_output=True, text=True).stdout.splitlines()
        for l in nd:  # one line of each kind and event type
            o = json.loads(l)
            key = o["kind"] + "/" + o.get("type", "")
            kinds.setdefault(key, (f"{name} NDJSON {key}", o, True))
    cases += [kinds[k] for k in sorted(kinds)]
    agree = disagree = rejected = 0
    for name, obj, nd in cases:
        for what, o in [("as written", obj)] + list(breakages(obj)):
            f = fast.ok(line if nd else committed, o)
            j = (slow_line if nd else slow_doc).is_valid(o)
            if what == "as written" and not (f and j):
                print(f"FAIL {name}: a report as written is invalid (fast {f}, jsonschema {j})")
            if f == j:
                agree += 1
                rejected += not f
            else:
                disagree += 1
                print(f"FAIL validators disagree on {name}, {what}: fast {f}, jsonschema {j}")
    if not disagree and rejected > 100:
        print(f"PASS the fast validator and jsonschema agree on {agree} reports "
              f"({rejected} of them broken and rejected)")
    elif not disagree:
        print(f"FAIL only {rejected} broken reports were rejected: the breakages test little")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: jsondoc.py MANDIR [TCPSIFT]")
    mandir = sys.argv[1]
    if len(sys.argv) == 3:
        check_validators(sys.argv[2])
    built = schema.build()
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "schema.py"), "check"],
                       capture_output=True, text=True)
    if p.returncode == 0:
        print("PASS tcpsift-json(5) MEMBERS and the committed schema are the assembled schema's")
    else:
        print("FAIL " + p.stdout.strip().replace("\n", "; "))
    pages = sorted(glob.glob(os.path.join(mandir, "tcpsift*.[1-8]")))
    text = "\n".join(prose(f) for f in pages)
    missing = sorted(n for n in member_names(built)
                     if not re.search(r"(?<![\w.-])" + re.escape(n) + r"(?![\w-])", text))
    for n in missing:
        print(f"FAIL JSON member {n} is explained on no page (only listed under MEMBERS)")
    if not missing:
        print(f"PASS every one of the schema's {len(member_names(built))} member names is explained")
    types = {v["properties"]["type"]["const"] for v in built["$defs"]["event"]["oneOf"]}
    m = re.search(r"Event types: (.*?)\.\s", prose(os.path.join(mandir, "tcpsift-json.5")), re.S)
    if not m:
        print("FAIL tcpsift-json(5) has no 'Event types:' sentence")
        return
    named = set(re.findall(r"\b[a-z]+(?:_[a-z0-9]+)*\b", re.sub(r"\([^)]*\)", "", m.group(1)))) - {
        "also", "and", "with", "frames", "frame", "each", "its"}
    for t in sorted(types - named):
        print(f"FAIL tcpsift-json(5)'s Event types do not name {t}")
    for t in sorted(named - types):
        print(f"FAIL tcpsift-json(5)'s Event types name {t}, which the schema does not have")
    if types == named:
        print(f"PASS tcpsift-json(5) names the schema's {len(types)} event types")


if __name__ == "__main__":
    main()
