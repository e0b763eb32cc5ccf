#!/usr/bin/env bash
# html/run.sh TCPSIFT - analyze --html: the page against the --json report of
# the same run (tests/html/check_html.py: well formed, every connection, each
# one's events by value, escaping, bounds), and the page rendered by headless
# Chromium to a PNG that must not be blank (tests/tools/pngstat.py), with a
# blank page as the negative control. With --plot graphs beside it, the
# graph checks run too (check_html.py --graph-dir).
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
page one --conn 2 samples/reorder-relay.pcap
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
