#!/usr/bin/env python3
"""schema.py - the report's JSON Schema: assembled from its parts, checked, used.

  schema.py build            print the assembled schema (draft 2020-12)
  schema.py check            fail unless man/tcpsift-report.schema.json is the
                             assembled schema (run `build` and commit after a
                             change to a part)
  schema.py validate FILE... validate --json documents and --ndjson streams
                             (one line an object) against the committed schema

The parts: analyze/report/report.schema.json (the document, connections,
inputs, summary, the engine's events) and analyze/detect/<name>/<name>.schema.json
for every detector in the table (analyze/detect/detectors.h): its connection
member, its summary.findings members and its event types. Both are written in
the shorthand report.schema.json describes; this script expands it. Exit 0
ok, 1 a check or validation failed, 2 usage.
"""
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
COMMITTED = os.path.join(ROOT, "man", "tcpsift-report.schema.json")
SCALARS = {"int": {"type": "integer"}, "num": {"type": "number"}, "sec": {"type": "number"},
           "str": {"type": "string"}, "bool": {"type": "boolean"}, "null": {"type": "null"}}


def load(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return json.load(f)


def detector_parts():
    """(folder, part) for every detector in table order."""
    with open(os.path.join(ROOT, "analyze/detect/detectors.h")) as f:
        folders = re.findall(r'^#include "analyze/detect/([a-z0-9_]+)/[a-z0-9_]+\.def"', f.read(), re.M)
    return [(d, load("analyze/detect/%s/%s.schema.json" % (d, d))) for d in folders]


def nullable(s):
    return {"anyOf": [s, {"type": "null"}]}


def expand(x):
    if isinstance(x, str):
        opt = x.endswith("?")
        name = x[:-1] if opt else x
        if name.startswith("@"):
            s = {"$ref": "#/$defs/" + name[1:]}
        elif name in SCALARS:
            s = dict(SCALARS[name])
        else:
            raise ValueError("unknown shorthand %r" % x)
        return nullable(s) if opt else s
    if isinstance(x, list):
        if len(x) != 1:
            raise ValueError("an array shorthand has one element: %r" % (x,))
        return {"type": "array", "items": expand(x[0])}
    if isinstance(x, dict):
        if set(x) == {"enum"}:
            return {"enum": x["enum"]}
        if set(x) == {"*"}:
            return {"type": "object", "additionalProperties": expand(x["*"])}
        return obj(x)
    raise ValueError("bad shorthand %r" % (x,))


def props(x):
    p, req = {}, []
    for k, v in x.items():
        name = k[:-1] if k.endswith("?") else k
        p[name] = expand(v)
        if not k.endswith("?"):
            req.append(name)
    return p, req


def obj(x, extra=None):
    p, req = props(x)
    if extra:
        p.update(extra)
    return {"type": "object", "properties": p, "required": sorted(req),
            "additionalProperties": False}


def build():
    core = load("analyze/report/report.schema.json")
    defs = {k: expand(v) for k, v in core["defs"].items()}
    conn = dict(core["defs"]["connection"])
    findings = dict(core["defs"]["findings"])
    events = dict(core["events"])
    for name, part in detector_parts():
        for k, v in part.get("defs", {}).items():
            if k in defs:
                raise ValueError("%s: def %s defined twice" % (name, k))
            defs[k] = expand(v)
        for k, v in part["connection"].items():
            if k in conn:
                raise ValueError("%s: connection member %s defined twice" % (name, k))
            conn[k] = v
        for k, v in part.get("findings", {}).items():
            findings[k] = v
        for k, v in part.get("events", {}).items():
            if k in events:
                raise ValueError("%s: event %s defined twice" % (name, k))
            events[k] = v
    defs["connection"] = expand(conn)
    defs["findings"] = expand(findings)
    # An event: the common members, then those of its type, nothing else.
    common = core["event_common"]
    variants = []
    for t in sorted(events):
        e = dict(common)
        e.update(events[t])
        s = expand(e)
        s["properties"]["type"] = {"const": t}
        variants.append(s)
    defs["event"] = {"oneOf": variants}
    # NDJSON lines: the same objects, each with its "kind".
    kind = lambda k: {"kind": {"const": k}}
    def with_kind(ref, k, more=None):
        base = json.loads(json.dumps(defs[ref]))
        for s in base["oneOf"] if "oneOf" in base else [base]:
            s["properties"].update(kind(k))
            s["required"] = sorted(s["required"] + ["kind"])
            if more:
                for mk, mv in more.items():
                    s["properties"][mk] = mv
                    s["required"] = sorted(s["required"] + [mk])
        return base
    defs["ndjson_line"] = {"oneOf": [
        with_kind("event", "event"), with_kind("connection", "connection"),
        with_kind("input", "input"),
        with_kind("summary", "summary", {"tcpsift": {"$ref": "#/$defs/tool"},
                                         "errors": {"type": "array", "items": {"$ref": "#/$defs/error"}},
                                         "vantages": {"type": "array", "items": {"type": "string"}}}),
    ]}
    doc = expand(core["document"])
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": "tcpsift-report.schema.json",
              "title": "tcpsift analyze --json / --ndjson report, schema 2",
              "description": "Generated by scripts/schema.py from analyze/report/report.schema.json "
                             "and analyze/detect/*/*.schema.json; see tcpsift-json(5). "
                             "A --json document is the top level; each --ndjson line is a "
                             "$defs/ndjson_line.",
              "$defs": dict(sorted(defs.items()))}
    schema.update(doc)
    return schema


def dump(schema):
    return json.dumps(schema, indent=1, sort_keys=False) + "\n"


def validate(paths):
    """Validate each file; events and NDJSON lines against the variant their
    "type" / "kind" names, so an error names what is wrong with it."""
    import jsonschema
    with open(COMMITTED) as f:
        schema = json.load(f)
    defs = schema["$defs"]
    cls = jsonschema.validators.validator_for(schema)
    mk = lambda s: cls(dict(s, **{"$defs": defs}))
    outer = json.loads(json.dumps(schema))
    outer["properties"]["events"] = {"type": "array", "items": {"type": "object"}}
    doc_v = mk(outer)
    by_type = {v["properties"]["type"]["const"]: mk(v) for v in defs["event"]["oneOf"]}
    lines = defs["ndjson_line"]["oneOf"]
    line_event = {v["properties"]["type"]["const"]: mk(v) for v in lines[0]["oneOf"]}
    by_kind = {v["properties"]["kind"]["const"]: mk(v) for v in lines[1:]}

    def errors(v, o, where):
        if v is None:
            return ["%s: no such %s" % (where or "/", "event type" if "type" in o else "kind")]
        out = []
        for e in sorted(v.iter_errors(o), key=lambda e: list(e.absolute_path))[:3]:
            p = "/".join(str(x) for x in e.absolute_path)
            out.append("%s: %s" % ("/".join(x for x in (where, p) if x) or "/", e.message[:300]))
        return out

    bad = 0
    for path in paths:
        with open(path) as f:
            text = f.read()
        msgs = []
        try:
            doc = json.loads(text)
            msgs += errors(doc_v, doc, "")
            for n, e in enumerate(doc.get("events", []) if isinstance(doc, dict) else []):
                msgs += errors(by_type.get(e.get("type")), e, "events/%d" % n)
        except ValueError:
            for n, l in enumerate(text.splitlines()):
                if not l.strip():
                    continue
                try:
                    o = json.loads(l)
                except ValueError as e:
                    msgs.append("line %d: not JSON: %s" % (n + 1, e))
                    continue
                k = o.get("kind") if isinstance(o, dict) else None
                v = line_event.get(o.get("type")) if k == "event" else by_kind.get(k)
                msgs += errors(v, o, "line %d" % (n + 1))
        for m in msgs[:10]:
            print("%s: %s" % (path, m))
        bad += bool(msgs)
    return bad


def main(argv):
    if len(argv) < 2 or argv[1] not in ("build", "check", "validate"):
        sys.stderr.write(__doc__)
        return 2
    if argv[1] == "build":
        sys.stdout.write(dump(build()))
        return 0
    if argv[1] == "check":
        want = dump(build())
        try:
            with open(COMMITTED) as f:
                have = f.read()
        except OSError as e:
            print("schema: %s" % e)
            return 1
        if have != want:
            print("schema: man/tcpsift-report.schema.json is not the assembled schema "
                  "(run: scripts/schema.py build > man/tcpsift-report.schema.json)")
            return 1
        print("schema: man/tcpsift-report.schema.json is current")
        return 0
    return 1 if validate(argv[2:]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
