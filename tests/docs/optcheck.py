#!/usr/bin/env python3
"""optcheck.py MANDIR TCPSIFT SAMPLE [OPTNAMES] - each verb's man page and its --help agree.

The verbs are those "tcpsift --help" lists; each has its own page
MANDIR/tcpsift-VERB.1, and every MANDIR/tcpsift-*.1 page is a verb's.
Both directions, whole option names (--frames is not documented by a
--frames-csv entry), short options paired with their long ones, and whether
an option takes a value:

  --help -> man   every option a verb's --help lists has an entry in the
                  OPTIONS section of tcpsift-VERB.1;
  man -> --help   every entry there (.TP/.TQ tag lines: .B, .BI, .BR ...) is
                  an option of that verb's --help, and so is every long
                  option named in the page's DESCRIPTION;
  table -> --help with OPTNAMES (tests/tools/optnames, built from the
                  verbs' *_option_names()), the option table and --help
                  list the same long names;
  --fail-on       every metric "analyze --help" names is in
                  tcpsift-analyze.1's "Metrics:" list, and every metric there
                  is one analyze accepts (run on SAMPLE: not exit 2); the
                  same for diff and tcpsift-diff.1.

Prints one "PASS what" or "FAIL what" line per check for tests/docs/run.sh.
"""
import glob
import os
import re
import subprocess
import sys

# Font escapes (\fB, \fI, \fR, \fP, \f(CW, \f[..]) carry no text.
FONT = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)")
# An option in roff source: '-' is written '\-'. A plain '-' inside a name
# (".B \-\-queue-mib") is caught separately: groff renders it as a hyphen.
LONG = re.compile(r"(?<![\w\\-])\\-\\-([a-z0-9]+(?:(?:\\-|-)[a-z0-9]+)*)")
SHORT = re.compile(r"(?<![\w\\-])\\-([A-Za-z0-9])(?![\w\\-])")


def roff_tokens(line):
    """The arguments of a macro line, quotes honoured, font escapes removed."""
    toks, cur, quoted, i = [], "", False, 0
    while i < len(line):
        c = line[i]
        if c == '"':
            if quoted and line[i + 1 : i + 2] == '"':  # "" inside quotes
                cur += '"'
                i += 2
                continue
            quoted = not quoted
            if not quoted:
                toks.append(cur)
                cur = ""
        elif c in " \t" and not quoted:
            if cur:
                toks.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        toks.append(cur)
    return [FONT.sub("", t) for t in toks]


class Opt:
    def __init__(self, long, short, takes_value, where):
        self.long, self.short, self.takes_value, self.where = long, short, takes_value, where


def parse_tag(page, line, lineno, fails):
    """The options of one .TP/.TQ tag line: [Opt] (a tag may name one option
    with its short form, or nothing at all)."""
    words = line.split(None, 1)
    toks = roff_tokens(words[1]) if line.startswith(".") and len(words) > 1 else roff_tokens(line)
    opts = []
    for k, tok in enumerate(toks):
        t = tok.strip()
        m = LONG.fullmatch(t)
        if m:
            name = m.group(1)
            if re.search(r"(?<!\\)-", name):
                fails.append(f"{page}:{lineno}: --{name.replace(chr(92), '')} written "
                             "with a plain '-' (groff prints a hyphen; write \\-)")
            name = name.replace("\\-", "-")
            # A value follows when a later token is more than punctuation.
            rest = [x.strip() for x in toks[k + 1 :]]
            value = any(x and x not in (",", "|") and not LONG.fullmatch(x) and
                        not SHORT.fullmatch(x) for x in rest)
            short = None
            for x in toks[:k]:
                s = SHORT.fullmatch(x.strip())
                if s:
                    short = s.group(1)
            opts.append(Opt(name, short, value, f"{page}:{lineno}"))
    if not opts:
        # A short option alone (no long name): keep it, paired with nothing.
        for k, tok in enumerate(toks):
            s = SHORT.fullmatch(tok.strip())
            if s:
                rest = [x.strip() for x in toks[k + 1 :]]
                value = any(x and x not in (",", "|") for x in rest)
                opts.append(Opt(None, s.group(1), value, f"{page}:{lineno}"))
    return opts


def parse_man(page, fails):
    """[Opt] from the page's OPTIONS, {long: lineno} from its DESCRIPTION."""
    lines = open(page, encoding="utf-8").read().split("\n")
    entries, mentions = [], {}
    section, want_tag = None, False
    for n, line in enumerate(lines, 1):
        if line.startswith(".SH"):
            section = " ".join(roff_tokens(line[3:])).strip()
            want_tag = False
            continue
        if section == "DESCRIPTION":
            for m in LONG.finditer(FONT.sub("", line)):
                mentions.setdefault(m.group(1).replace("\\-", "-"), n)
        if section != "OPTIONS":
            continue
        if line.startswith((".TP", ".TQ")):
            want_tag = True
            continue
        if want_tag:
            want_tag = False
            opts = parse_tag(page, line, n, fails)
            if not opts:
                fails.append(f"{page}:{n}: an OPTIONS entry names no option: {line}")
            entries.extend(opts)
    if not entries:
        fails.append(f"{page}: no OPTIONS entries found")
    return entries, mentions


def verbs_of(tcpsift, mandir, fails):
    """The verbs "tcpsift --help" lists ("  VERB ..." lines), each checked
    to have its page, and every verb page checked to be a verb's."""
    p = subprocess.run([tcpsift, "--help"], capture_output=True, text=True)
    verbs = [m.group(1) for m in re.finditer(r"^  ([a-z]+) ", p.stdout, re.M) if m.group(1) != "tcpsift"]
    if not verbs:
        fails.append("tcpsift --help lists no verbs")
    pages = {os.path.basename(f)[len("tcpsift-") : -2] for f in glob.glob(os.path.join(mandir, "tcpsift-*.1"))}
    for v in verbs:
        if v not in pages:
            fails.append(f"{mandir}/tcpsift-{v}.1 missing: tcpsift --help lists the verb {v}")
    for v in sorted(pages - set(verbs)):
        fails.append(f"{mandir}/tcpsift-{v}.1 is the page of no verb tcpsift --help lists")
    return [v for v in verbs if v in pages]


# "  -f, --filter EXPR   help" and "      --ndjson   help": option lines of --help.
HELP_LINE = re.compile(r"^\s{2,}(?:-([A-Za-z0-9]),\s+)?--([a-z0-9][a-z0-9-]*)(?:\s(\S+))?")


def parse_help(tcpsift, verb, fails):
    p = subprocess.run([tcpsift, verb, "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        fails.append(f"{verb} --help exits {p.returncode}")
    opts = []
    for line in p.stdout.split("\n"):
        m = HELP_LINE.match(line)
        if m:
            # A value is named in capitals (EXPR, FILE, MiB, N, K/N, ADDR:PORT),
            # or is one of a set ("qm|cpu|hash"), one space after the option;
            # the help text after it starts in lower case.
            value = bool(m.group(3)) and (
                re.fullmatch(r"[A-Z][A-Za-z0-9|_/:-]*", m.group(3)) is not None
                or re.fullmatch(r"[a-z0-9_-]+(?:\|[a-z0-9_-]+)+", m.group(3)) is not None)
            opts.append(Opt(m.group(2), m.group(1), value, f"{verb} --help"))
    if not opts:
        fails.append(f"{verb} --help lists no options")
    return opts


def metric_list(text):
    """Names of a "a, b (note, more), c (or d)" list: parenthesised notes
    dropped, except that "(or d)" names d, an alias of c."""
    depth, flat, note, aliases = 0, "", "", []
    for c in text:
        depth += c == "("
        if depth == 0:
            flat += c
        else:
            note += c
        if c == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                m = re.fullmatch(r"\(or (\w+)\)", note.strip())
                if m:
                    aliases.append(m.group(1))
                note = ""
    return [w.strip() for w in flat.split(",") if w.strip()] + aliases


def check_fail_on(man, tcpsift, sample, passes, fails, verb="analyze"):
    """--fail-on metrics: the verb's --help list is in its man page's, and
    the verb takes each metric the man page lists."""
    text = FONT.sub("", open(man, encoding="utf-8").read()).replace("\\-", "-")
    m = re.search(r"^Metrics: (.*?)\.(?:\s|$)", text, re.M | re.S)
    if not m:
        fails.append(f"{man}: no 'Metrics:' list in the --fail-on entry")
        return
    man_metrics = metric_list(" ".join(m.group(1).split()))
    p = subprocess.run([tcpsift, verb, "--help"], capture_output=True, text=True)
    h = re.search(r"^--fail-on metrics: (.*)$", p.stdout, re.M)
    if not h:
        fails.append(f"{verb} --help: no '--fail-on metrics:' line")
        return
    for name in metric_list(h.group(1)):
        if name in man_metrics:
            passes.append(f"man lists {verb} --fail-on metric {name}")
        else:
            fails.append(f"{man} does not list --fail-on metric {name} ({verb} --help does)")
    for name in man_metrics:
        if not re.fullmatch(r"[a-z_]+", name):
            fails.append(f"{man}: '{name}' in the --fail-on Metrics: list is not a metric name")
            continue
        # diff parses --fail-on before it reads a side: with missing sides,
        # exit 3 is a metric it takes, exit 2 one it refuses, at once.
        args = [sample] if verb == "analyze" else ["/nonexistent/a", "/nonexistent/b"]
        r = subprocess.run([tcpsift, verb, "--fail-on", f"{name}>0"] + args,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode in ((0, 1) if verb == "analyze" else (3,)):
            passes.append(f"{verb} takes the man page's --fail-on metric {name}")
        else:
            fails.append(f"{man} lists --fail-on metric {name}; {verb} --fail-on "
                         f"'{name}>0' exits {r.returncode}: {r.stderr.strip()[:160]}")


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: optcheck.py MANDIR TCPSIFT SAMPLE [OPTNAMES]")
    mandir, tcpsift, sample = sys.argv[1], sys.argv[2], sys.argv[3]
    optnames = sys.argv[4] if len(sys.argv) == 5 else None
    fails, passes = [], []
    verbs = verbs_of(tcpsift, mandir, fails)
    table = None
    if optnames:
        p = subprocess.run([optnames], capture_output=True, text=True)
        if p.returncode != 0:
            fails.append(f"{optnames} exits {p.returncode}")
        table = {v: set() for v in verbs}
        for line in p.stdout.split("\n"):
            if line.strip():
                v, name = line.split()
                table.setdefault(v, set()).add(name)
    for verb in verbs:
        page = os.path.join(mandir, f"tcpsift-{verb}.1")
        entries, mentions = parse_man(page, fails)
        helps = parse_help(tcpsift, verb, fails)
        hmap = {o.long: o for o in helps}
        mmap = {}
        for o in entries:
            if o.long is None:
                if not any(h.short == o.short for h in helps):
                    fails.append(f"{o.where}: man documents {verb} -{o.short}, not in --help")
                else:
                    fails.append(f"{o.where}: man documents {verb} -{o.short} without its long name")
                continue
            if o.long in mmap:
                fails.append(f"{o.where}: {verb} --{o.long} documented twice "
                             f"(also {mmap[o.long].where})")
            mmap[o.long] = o
        for name, h in hmap.items():
            o = mmap.get(name)
            if o is None:
                fails.append(f"{page} does not document {verb} --{name}")
                continue
            passes.append(f"man documents {verb} --{name}")
            if h.short != o.short:
                fails.append(f"{o.where}: {verb} --{name}: short option "
                             f"{'-' + o.short if o.short else 'none'} in the man page, "
                             f"{'-' + h.short if h.short else 'none'} in --help")
            else:
                passes.append(f"{verb} --{name}: same short option in man and --help")
            if h.takes_value != o.takes_value:
                fails.append(f"{o.where}: {verb} --{name} takes "
                             f"{'a value' if h.takes_value else 'no value'} in --help, "
                             f"{'a value' if o.takes_value else 'no value'} in the man page")
        for name, o in mmap.items():
            if name not in hmap:
                fails.append(f"{o.where}: man documents {verb} --{name}, "
                             f"which {verb} --help does not list")
            else:
                passes.append(f"{verb} --help lists man's --{name}")
        for name, n in sorted(mentions.items()):
            if name in hmap:
                passes.append(f"{verb} page's DESCRIPTION: --{name} is a {verb} option")
            else:
                fails.append(f"{page}:{n}: DESCRIPTION names --{name}, "
                             f"which {verb} --help does not list")
        if table is not None:
            t = table.get(verb, set())
            for name in sorted(t - set(hmap)):
                fails.append(f"{verb}: option table has --{name}, --help does not print it")
            for name in sorted(set(hmap) - t):
                fails.append(f"{verb}: --help prints --{name}, the option table lacks it")
            if t == set(hmap):
                passes.append(f"{verb}: --help prints exactly the option table ({len(t)} options)")
    check_fail_on(os.path.join(mandir, "tcpsift-analyze.1"), tcpsift, sample, passes, fails)
    check_fail_on(os.path.join(mandir, "tcpsift-diff.1"), tcpsift, sample, passes, fails, "diff")
    for p in passes:
        print("PASS", p)
    for f in fails:
        print("FAIL", f)


if __name__ == "__main__":
    main()
