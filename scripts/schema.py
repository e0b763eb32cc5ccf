#!/usr/bin/env python3
"""schema.py - the report's JSON Schema: assembled from its parts, checked, used.

  schema.py build            print the assembled schema (draft 2020-12)
  schema.py check            fail unless man/tcpsift-report.schema.json is the
                             assembled schema (run `build` and commit after a
                             change to a part)
  schema.py validate [--jsonschema] FILE...
                             validate --json documents and --ndjson streams
                             (one line an object) against the committed
                             schema: a fast validator of the keywords the
                             schema uses, jsonschema to name an error (with
                             --jsonschema: jsonschema alone, a cross-check)
  schema.py members [--write] print every object's members, as roff, for
                             man/tcpsift-json.5's MEMBERS (--write: replace
                             them there); `check` fails when they differ

The parts: analyze/report/report.schema.json (the document, connections,
inputs, summary, the engine's events) and analyze/detect/<name>/<name>.schema.json
for every detector in the table (analyze/detect/detectors.h): its connection
member, its members of each direction ("dir"), its summary.findings members
and its event types. Both are written in
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
    # A detector may add members to each direction's object ("dir": its
    # view's dir_key), before the shorthand is expanded.
    dirdef = dict(core["defs"]["dir"])
    for name, part in detector_parts():
        for k, v in part.get("dir", {}).items():
            if k in dirdef:
                raise ValueError("%s: direction member %s defined twice" % (name, k))
            dirdef[k] = v
    core["defs"]["dir"] = dirdef
    defs = {k: expand(v) for k, v in core["defs"].items()}
    conn = dict(core["defs"]["connection"])
    findings = dict(core["defs"]["findings"])
    events = dict(core["events"])
    for name, part in detector_parts():
        for k, v in part.get("defs", {}).items():
            if k in defs:
                raise ValueError("%s: def %s defined twice" % (name, k))
            defs[k] = expand(v)
        for k, v in part.get("connection", {}).items():
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


MAN_JSON = os.path.join(ROOT, "man", "tcpsift-json.5")
MEMBERS_BEGIN = '.\\" members: begin (scripts/schema.py members --write; do not edit)\n'
MEMBERS_END = '.\\" members: end\n'


def members(schema):
    """Every object of the report as roff: its path(s) in bold, then its
    members, "?" when a member may be null, "*" when it may be absent, an
    enum's values in parentheses. An object used at several paths (a $ref)
    is listed once with all its paths; events as the members every type
    has, then each type's own."""
    defs = schema["$defs"]
    order, paths, lists = [], {}, {}

    def scalar(s):
        """(nullable, description) of a member's value, None for an object."""
        alts = s.get("anyOf", [s])
        null = any(a.get("type") == "null" for a in alts)
        alts = [a for a in alts if a.get("type") != "null"]
        if "enum" in s:
            vals = [v for v in s["enum"] if v is not None]
            return None in s["enum"], "(%s)" % ", ".join(str(v) for v in vals)
        if len(alts) == 1 and ("$ref" in alts[0] or alts[0].get("type") in ("object", "array")):
            return null, None
        return null, ""

    def visit(s, path, key):
        """An object schema s at path; key names it for de-duplication."""
        if key in lists:
            paths[key].append(path)
            return
        order.append(key)
        paths[key] = [path]
        items, nested = [], []
        if "properties" not in s:  # {"*": int}: named counts
            lists[key] = ["names of the counts, each an integer"]
            return
        req = set(s.get("required", []))
        for name, m in sorted(s["properties"].items()):
            null, what = scalar(m)
            # \\% keeps a name whole (no hyphen), \\& keeps "?" from ending a sentence.
            word = "\\%%\\fB%s\\fR%s%s\\&" % (name, "?" if null else "", "" if name in req else "*")
            if what:
                word += " " + what
            items.append(word)
            nested.append((name, m))
        lists[key] = items
        for name, m in nested:
            alts = [a for a in m.get("anyOf", [m]) if a.get("type") != "null"]
            t = alts[0] if alts else {}
            sub = path + "." + name
            if t.get("type") == "array":
                t, sub = t["items"], sub + "[]"
            if "$ref" in t:
                ref = t["$ref"].split("/")[-1]
                if ref == "event":
                    events(sub)
                elif "properties" in defs[ref] or "additionalProperties" in defs[ref]:
                    visit(defs[ref], sub, ref)
            elif t.get("type") == "object":
                visit(t, sub, sub)

    def events(path):
        variants = defs["event"]["oneOf"]
        common = set.intersection(*(set(v["properties"]) for v in variants))
        first = variants[0]
        visit({"properties": {k: v for k, v in first["properties"].items() if k in common},
               "required": [k for k in first["required"] if k in common]}, path, "event")
        lists["event"] = [w.replace("\\fBtype\\fR\\&", "\\fBtype\\fR\\& (below)") for w in lists["event"]]
        for v in variants:
            t = v["properties"]["type"]["const"]
            own = {k: m for k, m in v["properties"].items() if k not in common}
            visit({"properties": own, "required": v["required"]}, "%s of type %s" % (path, t), "event " + t)

    visit(schema, "", "document")
    out = [".ad l"]  # long names: a justified line could not be filled
    for key in order:
        ps = [p.lstrip(".") or "the document" for p in paths[key]]
        out += [".TP", '.B "%s"' % ", ".join("\\%" + p for p in ps)]
        out.append(", ".join(lists[key]) if lists[key] else "(no members of its own)")
    out.append(".ad")
    return "".join(l + "\n" for l in out)


def man_members(text):
    """The generated part of man/tcpsift-json.5, or None."""
    a, b = text.find(MEMBERS_BEGIN), text.find(MEMBERS_END)
    return None if a < 0 or b < a else text[a + len(MEMBERS_BEGIN) : b]


def dump(schema):
    return json.dumps(schema, indent=1, sort_keys=False) + "\n"


# The keywords the assembled schema uses; the fast validator below knows
# exactly these (and refuses a schema with any other).
KEYWORDS = {"$defs", "$id", "$ref", "$schema", "additionalProperties", "anyOf", "const", "description",
            "enum", "items", "oneOf", "properties", "required", "title", "type"}


class Fast:
    """A validator for the subset of JSON Schema the report's schema uses,
    compiled to closures: about 8 times faster than the jsonschema module
    (the 66 reports of tests/threads in 0.5 s of CPU, not 4.4 s), so that
    every report the test suites write can be validated. Same verdicts as
    jsonschema (tests/docs/jsondoc.py checks it on valid and broken
    reports); jsonschema names the error."""

    def __init__(self, schema):
        self.defs = schema["$defs"]
        self._check_keywords(schema)
        self.compiled, self.keep = {}, []

    def _check_keywords(self, s):
        if isinstance(s, dict):
            unknown = set(s) - KEYWORDS
            if unknown:
                raise ValueError("schema keyword(s) the fast validator lacks: %s" % sorted(unknown))
            for k, v in s.items():
                if k in ("properties", "$defs"):
                    for x in v.values():
                        self._check_keywords(x)
                elif k in ("items", "additionalProperties", "anyOf", "oneOf"):
                    self._check_keywords(v)
        elif isinstance(s, list):
            for x in s:
                self._check_keywords(x)

    @staticmethod
    def _same(a, b):
        """JSON equality: 1 == 1.0, but true is not 1."""
        if isinstance(a, bool) or isinstance(b, bool):
            return type(a) is type(b) and a == b
        return a == b

    TYPES = {
        "integer": lambda x: type(x) is int or (type(x) is float and x.is_integer()),
        "number": lambda x: type(x) is int or type(x) is float,
        "string": lambda x: type(x) is str,
        "boolean": lambda x: type(x) is bool,
        "null": lambda x: x is None,
        "object": lambda x: type(x) is dict,
        "array": lambda x: type(x) is list,
    }

    def ok(self, s, x):
        """Whether x is valid against s."""
        f = self.compiled.get(id(s))
        if f is None:
            f = self.compiled[id(s)] = self._compile(s)
            self.keep.append(s)  # ids stay unique while s lives
        return f(x)

    def _compile(self, s):
        """A function x -> bool for schema s: each keyword a closure, so a
        report is checked without looking its schema up again."""
        if s is True or s == {}:
            return lambda x: True
        if s is False:
            return lambda x: False
        same = self._same
        checks = []
        if "$ref" in s:
            d = self.defs[s["$ref"].rsplit("/", 1)[1]]
            checks.append(lambda x: self.ok(d, x))  # late: defs refer to each other
        t = s.get("type")
        if t is not None:
            if isinstance(t, str):
                checks.append(self.TYPES[t])
            else:
                fs = [self.TYPES[u] for u in t]
                checks.append(lambda x: any(f(x) for f in fs))
        if "const" in s:
            c = s["const"]
            checks.append(lambda x: same(c, x))
        if "enum" in s:
            vals = s["enum"]
            checks.append(lambda x: any(same(v, x) for v in vals))
        if "anyOf" in s:
            alts = s["anyOf"]
            if len(alts) == 2 and {"type": "null"} in alts:  # "x?": null or x
                g = self._compile(alts[1] if alts[0] == {"type": "null"} else alts[0])
                checks.append(lambda x: x is None or g(x))
            else:
                fs = [self._compile(v) for v in alts]
                checks.append(lambda x: any(f(x) for f in fs))
        if "oneOf" in s:
            # A variant whose const member differs fails at once (events by
            # "type", NDJSON lines by "kind"): no need to descend.
            vs = [([(k, m["const"]) for k, m in v.get("properties", {}).items() if "const" in m],
                   self._compile(v)) for v in s["oneOf"]]

            def one_of(x):
                n = 0
                for disc, f in vs:
                    if type(x) is dict and any(k in x and not same(c, x[k]) for k, c in disc):
                        continue
                    if f(x):
                        n += 1
                        if n > 1:
                            return False
                return n == 1
            checks.append(one_of)
        if "properties" in s or "required" in s or "additionalProperties" in s:
            props = {k: self._compile(v) for k, v in s.get("properties", {}).items()}
            req = tuple(s.get("required", ()))
            extra = s.get("additionalProperties", True)
            extra_f = None if extra is True else self._compile(extra)

            def obj(x):
                if type(x) is not dict:
                    return True
                for k in req:
                    if k not in x:
                        return False
                for k, v in x.items():
                    f = props.get(k)
                    if f is not None:
                        if not f(v):
                            return False
                    elif extra_f is not None and not extra_f(v):
                        return False
                return True
            checks.append(obj)
        if "items" in s:
            it = self._compile(s["items"])
            checks.append(lambda x: type(x) is not list or all(it(v) for v in x))
        if len(checks) == 1:
            return checks[0]
        return lambda x: all(c(x) for c in checks)


def load_reports(path):
    """[(where, object, is_ndjson_line)] of a --json document or an --ndjson stream."""
    with open(path) as f:
        text = f.read()
    try:
        return [("", json.loads(text), False)], []
    except ValueError:
        pass
    out, bad = [], []
    for n, l in enumerate(text.splitlines()):
        if not l.strip():
            continue
        try:
            out.append(("line %d" % (n + 1), json.loads(l), True))
        except ValueError as e:
            bad.append("line %d: not JSON: %s" % (n + 1, e))
    return out, bad


def validate(paths, slow=False):
    """Validate each file: the fast validator first, jsonschema to name what
    is wrong (or for everything with slow, as a cross-check)."""
    with open(COMMITTED) as f:
        schema = json.load(f)
    fast = Fast(schema)
    line = schema["$defs"]["ndjson_line"]
    bad = 0
    for path in paths:
        objs, msgs = load_reports(path)
        if not slow and not msgs and all(fast.ok(line if nd else schema, o) for _, o, nd in objs):
            continue
        msgs += validate_slow(schema, objs)
        if not msgs and not slow:
            msgs = ["the fast validator rejects what jsonschema accepts (scripts/schema.py: Fast)"]
        if not msgs:
            continue
        for m in msgs[:10]:
            print("%s: %s" % (path, m))
        bad += 1
    return bad


def validate_slow(schema, objs):
    """jsonschema's errors; events and NDJSON lines against the variant their
    "type" / "kind" names, so an error names what is wrong with it."""
    import jsonschema
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

    msgs = []
    for where, o, nd in objs:
        if not nd:
            msgs += errors(doc_v, o, "")
            for n, e in enumerate(o.get("events", []) if isinstance(o, dict) else []):
                ev = e if isinstance(e, dict) else {}
                msgs += errors(by_type.get(ev.get("type")), e, "events/%d" % n)
            continue
        k = o.get("kind") if isinstance(o, dict) else None
        v = line_event.get(o.get("type")) if k == "event" else by_kind.get(k)
        msgs += errors(v, o, where)
    return msgs


def main(argv):
    if len(argv) < 2 or argv[1] not in ("build", "check", "validate", "members"):
        sys.stderr.write(__doc__)
        return 2
    if argv[1] == "build":
        sys.stdout.write(dump(build()))
        return 0
    if argv[1] == "members":
        text = members(build())
        if argv[2:] == ["--write"]:
            with open(MAN_JSON) as f:
                man = f.read()
            old = man_members(man)
            if old is None:
                print("schema: no members markers in %s" % MAN_JSON)
                return 1
            with open(MAN_JSON, "w") as f:
                f.write(man.replace(MEMBERS_BEGIN + old + MEMBERS_END, MEMBERS_BEGIN + text + MEMBERS_END))
        else:
            sys.stdout.write(text)
        return 0
    if argv[1] == "check":
        with open(MAN_JSON) as f:
            if man_members(f.read()) != members(build()):
                print("schema: the MEMBERS of man/tcpsift-json.5 are not the schema's "
                      "(run: scripts/schema.py members --write)")
                return 1
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
    if argv[2:3] == ["--jsonschema"]:
        return 1 if validate(argv[3:], slow=True) else 0
    return 1 if validate(argv[2:]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
