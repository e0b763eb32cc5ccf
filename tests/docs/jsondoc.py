#!/usr/bin/env python3
"""jsondoc.py MANDIR - the JSON report as documented is the JSON report the schema describes.

  MEMBERS         man/tcpsift-json.5's list of every object's members is
                  the one scripts/schema.py generates from the schema (so a
                  member added to the schema is listed: `schema.py check`);
  every member    every member name of the schema is also explained in the
                  prose of some page (outside that generated list);
  event types     the "Event types:" sentence of tcpsift-json(5) names
                  exactly the schema's event types.

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


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: jsondoc.py MANDIR")
    mandir = sys.argv[1]
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
