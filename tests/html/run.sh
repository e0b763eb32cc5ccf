#!/usr/bin/env bash
# html/run.sh TCPSIFT - analyze --html: one self-contained page against the
# --json report of the same run (tests/html/check_html.py: well formed,
# fetches nothing, its sections, the connections in order of trouble by
# the documented score, idle and control connections folded, every
# finding with its frames, the graphs inline, every retransmission a mark
# or counted in a bin on a capture with more than 4096 of them), escaping,
# bounds; --plot DIR beside --html (the same page, DIR the graphs, no
# second page) and alone (DIR/index.html, report.json); and headless
# Chromium (tests/html/check_dom.py): a screenshot of the window's size
# that is not blank (a blank page as the negative control), and the DOM
# once the page's script ran (every graph taken, zoomed by #t=A-B, its
# time axis redrawn, the marks there). TCPSIFT_HTML_SHOTS=DIR keeps the
# screenshots. About 15 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=html
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
dir=$(dirname "$bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The temporary graph directories --html makes go with the run.
export TMPDIR=$tmp/tmpdir
mkdir -p "$TMPDIR"

# Run a checker, its PASS/FAIL lines as cases.
checker() { # SCRIPT ARGS...
	local line
	while IFS= read -r line; do
		case "$line" in
		PASS\ *) t_pass "${line#PASS }" ;;
		FAIL\ *) t_fail "${line#FAIL }" ;;
		*) t_fail "$1: $line" ;;
		esac
	done < <(python3 "$@" 2>&1)
}

# One run: NAME [--marks] then analyze arguments; the page and the report side by side.
page() {
	local name=$1 marks=()
	shift
	[ "$1" = --marks ] && marks=(--marks) && shift
	if ! "$bin" analyze --no-progress --html -o "$tmp/$name.html" "$@" 2>"$tmp/$name.err"; then
		t_fail "$name: analyze --html exit $? ($(head -c 200 "$tmp/$name.err"))"
		return 1
	fi
	"$bin" analyze --no-progress --json -o "$tmp/$name.json" "$@" 2>/dev/null
	checker tests/html/check_html.py "$tmp/$name.html" "$tmp/$name.json" --graphs "${marks[@]}"
}

page nagle samples/rr-nagle-delack.pcap
page loss --marks samples/demo-http-loss.pcapng
page ipv6 samples/ipv6-bulk.pcap
page zerowin samples/zero-window.pcap
page mtu samples/mtu-20532.pcap
page seed samples/mtu-seed-2013.pcap
page queues samples/reorder-queues-q0.pcap samples/reorder-queues-q1.pcap
# --conn 2 of a capture with two connections (reorder-relay.pcap holds one:
# that page selected nothing, silently, until --conn said so).
page one --conn 2 samples/vlan-qinq.pcap
# A path with every character HTML escapes: shown as text, the page still well formed.
ln -s "$PWD/samples/rr-nagle-delack.pcap" "$tmp/a<b&c\"d>.pcap"
page escaped "$tmp/a<b&c\"d>.pcap"
grep -q '&lt;b&amp;c&quot;d&gt;' "$tmp/escaped.html" && t_pass "escaped: path escaped in the markup" ||
	t_fail "escaped: the path is not escaped"
# An idle control connection (sll-lo: 1200 bytes, nothing wrong) beside a
# lossy transfer: folded at the end, the transfer first.
page control samples/sll-lo.pcap samples/demo-http-loss.pcapng
grep -q '<details id="idle">' "$tmp/control.html" && t_pass "control: the idle connection folded" ||
	t_fail "control: no folded part"
# The checker can fail: the seed page with its first two rows swapped and a
# script fetched from elsewhere.
python3 - "$tmp/seed.html" "$tmp/bad.html" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
rows = re.findall(r'<tr><td><a href="#c\d+">\d+</a></td>.*?</tr>\n', s)[:2]
s = s.replace(rows[0], "@@").replace(rows[1], rows[0]).replace("@@", rows[1])
s = s.replace("</head>", '<script src="https://cdn.example.org/x.js"></script></head>')
open(sys.argv[2], "w").write(s)
EOF
bad=$(python3 tests/html/check_html.py "$tmp/bad.html" "$tmp/seed.json")
if grep -q '^FAIL.*order of trouble' <<<"$bad" && grep -q '^FAIL.*self-contained' <<<"$bad"; then
	t_pass "control: rows out of order and an external script are caught"
else
	t_fail "control: a page out of order, fetching a script, passed: $(grep -c PASS <<<"$bad") checks"
fi
# More retransmissions than a graph keeps one by one (bench/gen, 8 % loss):
# every one a mark or counted in a bin, none dropped.
if [ -x "$dir/bench/gen" ]; then
	"$dir/bench/gen" -o "$tmp/lossy.pcap" --packets 120000 --connections 1 --concurrent 1 \
		--loss 8 --seed 3 2>/dev/null
	page lossy --marks "$tmp/lossy.pcap"
	n=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["connections"][0]; print(c["c2s"]["retransmissions"]+c["s2c"]["retransmissions"])' "$tmp/lossy.json")
	b=$(grep -o 'class="retrans bin" data-count="[0-9]*"' "$tmp/lossy.html" | tr -dc '0-9\n' |
		awk '{s += $1} END {print s + 0}')
	if [ "${n:-0}" -gt 4096 ] && [ "$b" -gt 0 ]; then
		t_pass "lossy: $n retransmissions (> 4096), $b of them in bins"
	else
		t_fail "lossy: ${n:-?} retransmissions, $b binned: not the capture this needs"
	fi
	rm -f "$tmp/lossy.pcap"
else
	t_skip "no $dir/bench/gen: the capture with > 4096 retransmissions is not made"
fi
# More connections than the page lists: the rest counted, not dropped silently.
if [ -x "$dir/tests/tools/synflood" ]; then
	"$dir/tests/tools/synflood" "$tmp/syn.pcap" 5200 >/dev/null
	page syn "$tmp/syn.pcap"
	[ "$(grep -c '^<tr><td>' "$tmp/syn.html")" -le 5000 ] && t_pass "syn: at most 5000 rows" ||
		t_fail "syn: more than 5000 rows"
else
	t_skip "no $dir/tests/tools/synflood: the row bound is not checked"
fi
# The --json reports the pages were checked against follow the schema.
if scripts/schema.py validate "$tmp"/*.json >"$tmp/schema" 2>&1; then
	t_pass "schema: the JSON reports are valid"
else
	t_fail "schema: $(head -c 300 "$tmp/schema")"
fi

# --plot DIR alone: the same page as DIR/index.html, and DIR/report.json the
# document --json writes.
plotted() { # NAME analyze-arguments...
	local name=$1
	shift
	if ! "$bin" analyze --no-progress --plot "$tmp/$name" "$@" >/dev/null 2>"$tmp/$name.err"; then
		t_fail "$name: analyze --plot exit $? ($(head -c 200 "$tmp/$name.err"))"
		return 1
	fi
	"$bin" analyze --no-progress --json -o "$tmp/$name.json" "$@" 2>/dev/null
	cmp -s "$tmp/$name/report.json" "$tmp/$name.json" && t_pass "$name: report.json is the --json report" ||
		t_fail "$name: report.json differs from the --json report"
	checker tests/html/check_html.py "$tmp/$name/index.html" "$tmp/$name.json" --graphs
}
plotted plot-loss samples/demo-http-loss.pcapng
plotted plot-queues samples/reorder-queues-q0.pcap samples/reorder-queues-q1.pcap
# --html with --plot DIR: one page, where -o says, the same as without
# --plot; DIR holds the graphs and no page.
"$bin" analyze --no-progress --html -o "$tmp/both.html" --plot "$tmp/both" \
	samples/demo-http-loss.pcapng 2>/dev/null
if cmp -s "$tmp/both.html" "$tmp/loss.html" && [ ! -e "$tmp/both/index.html" ] &&
	[ -s "$tmp/both/conn-1-s2c-tseq.svg" ]; then
	t_pass "--html -o with --plot DIR: one page (the same), DIR the graphs"
else
	t_fail "--html -o with --plot DIR: $(cmp "$tmp/both.html" "$tmp/loss.html" 2>&1 | head -1); $(ls "$tmp/both" | head -3)"
fi
# Each inline graph is its SVG file (the style kept once a page): without
# the script it shows the whole connection, as the file does.
if python3 - "$tmp/both.html" "$tmp/both" <<'EOF'; then
import os, re, sys
page, d = open(sys.argv[1]).read(), sys.argv[2]
nostyle = lambda s: re.sub(r"<style>.*?</style>\n", "", s, flags=re.S)
figs = dict(re.findall(r'<figure class="graph" id="g-([^"]+)"[^>]*>\n(.*?)</figure>', page, re.S))
files = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
bad = [f for f in files if nostyle(figs.get(f[5:-4], "")) !=
       nostyle(open(os.path.join(d, f)).read().split("\n", 1)[1])]
sys.exit(1 if bad or not files or len(figs) != len(files) else 0)
EOF
	t_pass "every inline graph is its SVG file"
else
	t_fail "an inline graph differs from its SVG file, or one is missing"
fi
left=$(ls -A "$TMPDIR")
[ -z "$left" ] && t_pass "--html leaves no temporary graph directory" ||
	t_fail "--html left in TMPDIR: $(echo "$left" | head -3)"
# A directory that cannot hold the page: one line, exit 3, no report half written.
mkdir -p "$tmp/ro" && : >"$tmp/ro/index.html" && chmod 0444 "$tmp/ro/index.html"
if [ "$(id -u)" -ne 0 ]; then
	"$bin" analyze --plot "$tmp/ro" samples/rr-nagle-delack.pcap >/dev/null 2>"$tmp/ro.err"
	rc=$?
	[ $rc -eq 3 ] && [ "$(wc -l <"$tmp/ro.err")" -eq 1 ] && t_pass "unwritable index.html: one line, exit 3" ||
		t_fail "unwritable index.html: exit $rc, $(head -c 200 "$tmp/ro.err")"
fi
: >"$tmp/file"
"$bin" analyze --plot "$tmp/file/sub" samples/rr-nagle-delack.pcap >/dev/null 2>"$tmp/f.err"
rc=$?
[ $rc -eq 3 ] && [ "$(wc -l <"$tmp/f.err")" -eq 1 ] && t_pass "--plot under a file: one line, exit 3" ||
	t_fail "--plot under a file: exit $rc, $(head -c 200 "$tmp/f.err")"

# Rendered by headless Chromium (a profile of its own, no sandbox so it
# runs as root too, a timeout).
chrome() { # ARGS... URL
	timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/chromium" "$@" 2>/dev/null
}
if command -v chromium >/dev/null; then
	# A screenshot of the window's size, with ink and colours; a blank page
	# is blank.
	printf '<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>\n' >"$tmp/blank.html"
	if chrome --window-size=1400,1000 --screenshot="$tmp/loss.png" "file://$tmp/loss.html" >/dev/null &&
		chrome --window-size=1400,1000 --screenshot="$tmp/blank.png" "file://$tmp/blank.html" >/dev/null; then
		s=$(python3 tests/tools/pngstat.py --min-ink 0.05 --min-colors 16 "$tmp/loss.png")
		rc=$?
		[ $rc -eq 0 ] && [ "${s%% *}" = 1400x1000 ] && t_pass "chromium renders the page ($s)" ||
			t_fail "chromium: the page renders blank or at another size ($s)"
		if chrome --window-size=1000,560 --screenshot="$tmp/tseq.png" \
			"file://$tmp/both/conn-1-s2c-tseq.svg" >/dev/null &&
			s=$(python3 tests/tools/pngstat.py --min-ink 0.01 --min-colors 16 "$tmp/tseq.png"); then
			t_pass "chromium renders a time-sequence graph, no script ($s)"
		else
			t_fail "chromium: the time-sequence graph renders blank (${s:-no screenshot})"
		fi
		if s=$(python3 tests/tools/pngstat.py --min-ink 0.05 --min-colors 16 "$tmp/blank.png"); then
			t_fail "pngstat.py takes a blank page for a rendered one ($s)"
		else
			t_pass "negative control: a blank page is blank ($s)"
		fi
	else
		t_fail "chromium --headless --screenshot failed"
	fi
	# The DOM once the script ran, the pages opened on a time window.
	chrome --dump-dom "file://$tmp/loss.html#t=0.05-0.1" >"$tmp/loss.dom"
	checker tests/html/check_dom.py "$tmp/loss.html" "$tmp/loss.dom" 0.05 0.1
	if [ -f "$tmp/lossy.html" ]; then
		chrome --dump-dom "file://$tmp/lossy.html#t=600-640" >"$tmp/lossy.dom"
		checker tests/html/check_dom.py "$tmp/lossy.html" "$tmp/lossy.dom" 600 640
	fi
	if [ -n "${TCPSIFT_HTML_SHOTS:-}" ]; then
		cp "$tmp/loss.png" "$TCPSIFT_HTML_SHOTS/" 2>/dev/null
		[ -f "$tmp/lossy.html" ] && chrome --window-size=1400,1200 \
			--screenshot="$TCPSIFT_HTML_SHOTS/lossy.png" "file://$tmp/lossy.html#t=600-640" >/dev/null
	fi
else
	t_skip "chromium is not installed (scripts/deps.sh check installs it): the page is not rendered"
fi
t_done
