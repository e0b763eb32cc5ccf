#!/usr/bin/env python3
"""examples.py MANDIR TCPSIFT - run the EXAMPLES of the man pages.

Each page's EXAMPLES section is a list of ".TP", a caption, then the command
(".B command" or a ".nf" block of one line). The examples run with bash
(pipefail) in one scratch directory holding a link to the source tree's
samples/, in page order (tcpsift.1, tcpsift-analyze.1, the other verbs'
pages, section 5 last), so that an example may read what an earlier one
wrote (tcpsift-merge(1) merges the shards of tcpsift-analyze(1)'s example);
"tcpsift" is TCPSIFT. Each must exit with the status its caption names
("exit N"), else 0. A tui example runs in a private tmux server and is
quit with q. The JSON and NDJSON reports the examples write are validated
against the schema (scripts/schema.py validate).

An example is skipped, by rule and named, when it:
  - needs root and a network interface (capture, tui -i, tcpdump -i);
  - reads a file that neither samples/ nor an earlier example provides
    (one named samples/... that is not there fails);
  - needs a program that is not installed (jq, tmux, ...).

Prints one "PASS what", "FAIL what" or "SKIP what" line per example for
tests/docs/run.sh, and "COUNT ran skipped".
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# Files an example reads or writes, by their extension.
FILE = re.compile(r"\.(?:pcap|pcapng|ndjson|json|gz|erf|csv|xz|bz2)$")


def unroff(s):
    """A command line as the reader sees it."""
    s = re.sub(r"\\f(?:\[[^\]]*\]|\(..|.)", "", s)
    for a, b in (("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\e", "\\"), ("\\(rs", "\\"), ("\\&", "")):
        s = s.replace(a, b)
    return s


def examples(page):
    """[(caption, command)] of a page's EXAMPLES section."""
    lines = open(page, encoding="utf-8").read().split("\n")
    out, inside, caption, k = [], False, None, 0
    while k < len(lines):
        line = lines[k]
        if line.startswith(".SH"):
            inside = line.split(None, 1)[1:] == ["EXAMPLES"]
        elif inside and line.startswith(".TP"):
            caption = []
        elif inside and caption is not None:
            if line.startswith(".B "):
                out.append((unroff(" ".join(caption)), unroff(line[3:])))
                caption = None
            elif line == ".nf":
                cmd = []
                k += 1
                while k < len(lines) and lines[k] != ".fi":
                    cmd.append(unroff(lines[k]))
                    k += 1
                out.append((unroff(" ".join(caption)), "\n".join(cmd)))
                caption = None
            elif not line.startswith("."):
                caption.append(line)
        k += 1
    return out


def page_order(mandir):
    pages = sorted(os.listdir(mandir))
    rank = lambda p: (p != "tcpsift.1", p != "tcpsift-analyze.1", p.endswith(".5"), p)
    return [os.path.join(mandir, p) for p in sorted(pages, key=rank) if re.fullmatch(r"tcpsift.*\.[1-8]", p)]


def skip_reason(cmd, work):
    if re.search(r"\btcpsift capture\b|\btcpsift tui -i\b|\btcpdump -i\b", cmd):
        return "needs root and a network interface"
    try:
        words = shlex.split(cmd.replace("\n", " "))
    except ValueError as e:
        return None if False else f"cannot be parsed: {e}"
    outputs, prev = set(), None
    for w in words:
        if prev in (">", "-o", "-w", "--output") or w.startswith(">"):
            outputs.add(w.lstrip(">"))
        prev = w
    for w in words:
        name = w.split(":", 1)[1] if re.match(r"^[a-z]+:", w) else w
        if FILE.search(name) and name not in outputs and not re.search(r"[$*{]", name) and \
                not os.path.exists(os.path.join(work, name)):
            return f"reads {w}, which neither samples/ nor an earlier example provides"
    lex = shlex.shlex(cmd.replace("\n", ";"), posix=True, punctuation_chars=True)
    at_start = True
    for tok in lex:
        if tok and set(tok) <= set("|;&()<>"):
            at_start = tok not in ("<", ">", ">>")
            continue
        if at_start and tok not in ("for", "do", "done", "wait", "then", "fi", "time") and \
                not re.match(r"^[A-Za-z_]+=", tok):
            at_start = False
            if tok == "for":
                continue
            if tok != "tcpsift" and not shutil.which(tok):
                return f"needs {tok}, not installed"
        elif tok == "for":
            at_start = False
    return None


def run_tui(cmd, work, env):
    """Run a tui example on a private tmux server; q quits it. Exit status or None."""
    if not shutil.which("tmux"):
        return None, "needs tmux, not installed"
    sock = f"tcpsift-docs-{os.getpid()}"
    tmux = ["tmux", "-L", sock]
    rc_file = os.path.join(work, ".tui-rc")
    script = os.path.join(work, ".tui.sh")
    with open(script, "w") as f:
        f.write("export LANG=C.UTF-8 TERM=xterm-256color PATH=%s\n" % shlex.quote(env["PATH"]))
        f.write("cd %s\n%s\necho $? >%s\nsleep 30\n" % (shlex.quote(work), cmd, shlex.quote(rc_file)))
    try:
        subprocess.run(tmux + ["new-session", "-d", "-s", "ex", "-x", "120", "-y", "40", "bash " + script],
                       check=True)
        shown = False
        for _ in range(100):
            screen = subprocess.run(tmux + ["capture-pane", "-p", "-t", "ex"], capture_output=True,
                                    text=True).stdout
            if re.search(r"\d+ pkts|conn|CONN", screen):
                shown = True
                break
            time.sleep(0.1)
        subprocess.run(tmux + ["send-keys", "-t", "ex", "q"])
        for _ in range(100):
            if os.path.exists(rc_file) and open(rc_file).read().strip():
                rc = int(open(rc_file).read())
                return rc, None if shown else "the screen never showed the connections"
            time.sleep(0.1)
        return -1, "did not quit on q within 10 s"
    finally:
        subprocess.run(tmux + ["kill-server"], stderr=subprocess.DEVNULL)
        # kill-server leaves its socket file behind
        tmpdir = os.environ.get("TMUX_TMPDIR", "/tmp")
        for f in (rc_file, script, os.path.join(tmpdir, "tmux-%d" % os.getuid(), sock)):
            if os.path.exists(f):
                os.unlink(f)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: examples.py MANDIR TCPSIFT")
    mandir, tcpsift = sys.argv[1], os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="tcpsift-examples.")
    ran = skipped = 0
    try:
        bindir = os.path.join(work, ".bin")
        os.mkdir(bindir)
        os.symlink(tcpsift, os.path.join(bindir, "tcpsift"))
        os.symlink(os.path.join(ROOT, "samples"), os.path.join(work, "samples"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C", TZ="UTC")
        reports = []
        for page in page_order(mandir):
            name = os.path.basename(page)
            for n, (caption, cmd) in enumerate(examples(page), 1):
                shown = cmd.replace("\n", "; ")  # a block of several commands on one line
                what = f"{name} example {n} ({shown if len(shown) < 90 else shown[:87] + '...'})"
                why = skip_reason(cmd, work)
                if why and "reads samples/" in why:  # a sample the page names that is not there
                    print(f"FAIL {what}: {why.split(',')[0]}, which samples/ does not have")
                    continue
                if why:
                    print(f"SKIP {what}: {why}")
                    skipped += 1
                    continue
                m = re.search(r"\bexit (\d+)", caption)
                want = int(m.group(1)) if m else 0
                if re.match(r"tcpsift tui\b", cmd):
                    rc, err = run_tui(cmd, work, env)
                    if rc is None:
                        print(f"SKIP {what}: {err}")
                        skipped += 1
                        continue
                    out = ""
                else:
                    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                                       capture_output=True, text=True, timeout=120)
                    rc, err, out = p.returncode, p.stderr.strip()[:200], p.stdout
                    # A report on stdout is validated too.
                    if re.search(r"--(nd)?json", cmd) and "|" not in cmd and ">" not in cmd and "-o" not in cmd.split():
                        path = os.path.join(work, f".stdout.{name}.{n}.json")
                        with open(path, "w") as f:
                            f.write(out)
                        reports.append(path)
                ran += 1
                if rc != want:
                    print(f"FAIL {what}: exit {rc}, the page implies {want}: {err}")
                elif not out.strip() and ">" not in cmd and "-o" not in cmd.split() and not cmd.startswith("tcpsift tui"):
                    print(f"FAIL {what}: printed nothing")
                else:
                    print(f"PASS {what}: exit {rc}")
        reports += [os.path.join(work, f) for f in sorted(os.listdir(work)) if re.search(r"\.(nd)?json$", f)]
        if reports:
            p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "schema.py"), "validate"] + reports,
                               capture_output=True, text=True)
            if p.returncode == 0:
                print(f"PASS the examples' {len(reports)} JSON/NDJSON reports are valid against the schema")
            else:
                print("FAIL examples' reports against the schema: " + p.stdout.strip()[:300].replace("\n", "; "))
        else:
            print("FAIL the examples wrote no JSON report to validate")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"COUNT {ran} {skipped}")


if __name__ == "__main__":
    main()
