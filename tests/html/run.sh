#!/usr/bin/env bash
# html/run.sh TCPSIFT - analyze --html: the page against the --json report of
# the same run (tests/html/check_html.py: well formed, every connection, each
# one's events by value, escaping, bounds), and the page rendered by headless
# Chromium to a PNG that must not be blank (tests/tools/pngstat.py), with a
# blank page as the negative control. --plot DIR: its index.html checked
# the same way with the graphs beside it (every graph linked, every link a
# graph), its report.json equal to --json, a time-sequence graph and the
# index rendered; a DIR that cannot take them is one line, exit 3.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=html
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
dir=$(dirname "$bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run: NAME then analyze arguments; the page and the report side by side.
page() {
	local name=$1
	shift
	if ! "$bin" analyze --no-progress --html -o "$tmp/$name.html" "$@" 2>"$tmp/$name.err"; then
		t_fail "$name: analyze --html exit $? ($(head -c 200 "$tmp/$name.err"))"
		return 1
	fi
	"$bin" analyze --no-progress --json -o "$tmp/$name.json" "$@" 2>/dev/null
	while IFS= read -r line; do
		case "$line" in
		PASS\ *) t_pass "${line#PASS }" ;;
		FAIL\ *) t_fail "${line#FAIL }" ;;
		*) t_fail "check_html.py: $line" ;;
		esac
	done < <(python3 tests/html/check_html.py "$tmp/$name.html" "$tmp/$name.json" 2>&1)
}

page nagle samples/rr-nagle-delack.pcap
page loss samples/demo-http-loss.pcapng
page ipv6 samples/ipv6-bulk.pcap
page zerowin samples/zero-window.pcap
page mtu samples/mtu-20532.pcap
page queues samples/reorder-queues-q0.pcap samples/reorder-queues-q1.pcap
# --conn 2 of a capture with two connections (reorder-relay.pcap holds one:
# that page selected nothing, silently, until --conn said so).
page one --conn 2 samples/vlan-qinq.pcap
# A path with every character HTML escapes: shown as text, the page still well formed.
ln -s "$PWD/samples/rr-nagle-delack.pcap" "$tmp/a<b&c\"d>.pcap"
page escaped "$tmp/a<b&c\"d>.pcap"
grep -q '&lt;b&amp;c&quot;d&gt;' "$tmp/escaped.html" && t_pass "escaped: path escaped in the markup" ||
	t_fail "escaped: the path is not escaped"
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

# --plot DIR: the page beside the graphs, linking every graph there, and
# DIR/report.json the same document --json writes.
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
	while IFS= read -r line; do
		case "$line" in
		PASS\ *) t_pass "${line#PASS }" ;;
		FAIL\ *) t_fail "${line#FAIL }" ;;
		*) t_fail "check_html.py: $line" ;;
		esac
	done < <(python3 tests/html/check_html.py --graph-dir "$tmp/$name" "$tmp/$name/index.html" \
		"$tmp/$name.json" 2>&1)
}
plotted plot-loss samples/demo-http-loss.pcapng
plotted plot-nagle samples/rr-nagle-delack.pcap
plotted plot-queues samples/reorder-queues-q0.pcap samples/reorder-queues-q1.pcap
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

# Rendered by a browser: ink and colours, against a blank page.
shot() { # URL PNG
	timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/chromium" --window-size=1400,1000 --screenshot="$2" "$1" \
		>/dev/null 2>&1
}
if command -v chromium >/dev/null; then
	printf '<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>\n' >"$tmp/blank.html"
	if shot "file://$tmp/loss.html" "$tmp/loss.png" && shot "file://$tmp/blank.html" "$tmp/blank.png"; then
		if s=$(python3 tests/tools/pngstat.py --min-ink 0.05 --min-colors 16 "$tmp/loss.png"); then
			t_pass "chromium renders the page ($s)"
		else
			t_fail "chromium: the page renders blank ($s)"
		fi
		if shot "file://$tmp/plot-loss/conn-1-s2c-tseq.svg" "$tmp/tseq.png" &&
			s=$(python3 tests/tools/pngstat.py --min-ink 0.01 --min-colors 16 "$tmp/tseq.png"); then
			t_pass "chromium renders a time-sequence graph ($s)"
		else
			t_fail "chromium: the time-sequence graph renders blank (${s:-no screenshot})"
		fi
		if shot "file://$tmp/plot-loss/index.html" "$tmp/index.png" &&
			s=$(python3 tests/tools/pngstat.py --min-ink 0.05 --min-colors 16 "$tmp/index.png"); then
			t_pass "chromium renders --plot's index.html ($s)"
		else
			t_fail "chromium: index.html renders blank (${s:-no screenshot})"
		fi
		if s=$(python3 tests/tools/pngstat.py --min-ink 0.05 --min-colors 16 "$tmp/blank.png"); then
			t_fail "pngstat.py takes a blank page for a rendered one ($s)"
		else
			t_pass "negative control: a blank page is blank ($s)"
		fi
	else
		t_fail "chromium --headless --screenshot failed"
	fi
else
	t_fail "chromium is not installed (scripts/deps.sh check installs it)"
fi
t_done
