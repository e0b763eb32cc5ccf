#!/usr/bin/env bash
# docs/run.sh TCPSIFT - each verb's man page (man/tcpsift-VERB.1) documents
# exactly the options its --help lists (and --fail-on's metrics), every page
# renders without a warning, the README names the setup
# commands; --help and --version work, usage errors are one line, exit 2.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=docs
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}

# Each verb's page and its --help list the same options, whole names,
# both ways, short forms and values alike (tests/docs/optcheck.py); with the
# optnames tool built beside the binary, --help is also checked against the
# verbs' option tables.
optnames=$(dirname "$bin")/tests/tools/optnames
[ -x "$optnames" ] || { t_skip "no $optnames: --help not checked against the option tables"; optnames=; }
nopt=0
while IFS= read -r line; do
	case "$line" in
	PASS\ *) t_pass "${line#PASS }"; nopt=$((nopt + 1)) ;;
	FAIL\ *) t_fail "${line#FAIL }" ;;
	*) t_fail "optcheck.py: $line" ;;
	esac
done < <(python3 tests/docs/optcheck.py man "$bin" samples/rr-nagle-delack.pcap \
	${optnames:+"$optnames"} 2>&1)
[ "$nopt" -gt 50 ] || t_fail "optcheck.py checked only $nopt things"
# tcpsift-json(5) lists every member of the schema (generated), explains
# each name in prose somewhere, and names every event type; the fast
# validator of scripts/schema.py agrees with jsonschema.
while IFS= read -r line; do
	case "$line" in
	PASS\ *) t_pass "${line#PASS }" ;;
	FAIL\ *) t_fail "${line#FAIL }" ;;
	*) t_fail "jsondoc.py: $line" ;;
	esac
done < <(python3 tests/docs/jsondoc.py man "$bin" 2>&1)
"$bin" --version | grep -qE '^tcpsift ' && t_pass "--version" || t_fail "--version"
"$bin" --help | grep -q analyze && t_pass "--help" || t_fail "--help"
for w in "make demo" "make check"; do
	grep -q "$w" README.md && t_pass "README: $w" || t_fail "README lacks '$w'"
done
for page in man/*.[1-8]; do
	w=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
	[ -z "$w" ] && t_pass "$page renders cleanly" || t_fail "$page warnings: $w"
done
grep -qE '^##+ Compar(e|ing) two runs' README.md && t_pass "README: tcpsift diff" || t_fail "README lacks the diff section"

# Every man page example that reads samples/ runs with the exit status its
# caption implies; the others are listed as skipped, with the rule
# (tests/docs/examples.py).
nran=0
while IFS= read -r line; do
	case "$line" in
	PASS\ *) t_pass "${line#PASS }" ;;
	FAIL\ *) t_fail "${line#FAIL }" ;;
	SKIP\ *) t_skip "${line#SKIP }" ;;
	COUNT\ *) read -r _ nran _ <<<"$line" ;;
	*) t_fail "examples.py: $line" ;;
	esac
done < <(python3 tests/docs/examples.py man "$bin" 2>&1)
[ "$nran" -ge 10 ] || t_fail "only $nran man page examples ran"

# The README's demo report is the one the binary prints (the version aside).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '/^`make demo` prints a report/ { f = 1 } f && /^```$/ { if (n++) exit; next } f && n' README.md |
	sed -E 's/^tcpsift [^:]*:/tcpsift V:/' >"$tmp/readme.txt"
"$bin" analyze samples/demo-http-loss.pcapng 2>&1 | sed -E 's/^tcpsift [^:]*:/tcpsift V:/' >"$tmp/demo.txt"
if [ -s "$tmp/readme.txt" ] && diff -u "$tmp/readme.txt" "$tmp/demo.txt" >"$tmp/readme.diff"; then
	t_pass "README: the demo report is what make demo prints"
else
	t_fail "README's demo report differs from the binary's: $(head -c 400 "$tmp/readme.diff")"
fi

# The README's accuracy tables are MATRIX.md's (tests/lab/matrix_summary.py).
awk '/<!-- BEGIN MATRIX SUMMARY -->/ { f = 1; next } /<!-- END MATRIX SUMMARY -->/ { f = 0 } f' \
	README.md >"$tmp/readme-matrix.md"
python3 tests/lab/matrix_summary.py tests/lab/MATRIX.md >"$tmp/matrix.md"
if [ -s "$tmp/readme-matrix.md" ] && diff -u "$tmp/readme-matrix.md" "$tmp/matrix.md" >"$tmp/m.diff"; then
	t_pass "README: the accuracy tables are MATRIX.md's"
else
	t_fail "README's accuracy tables differ from MATRIX.md's: $(head -c 400 "$tmp/m.diff")"
fi

# Progress goes to stderr only, never into the report: one line rewritten
# with \r (percent, bytes of the total, packets, rate, live connections,
# RSS, ETA), erased at the end.
for _ in $(seq 40); do cat samples/demo-http-loss.pcapng; done >"$tmp/many.pcapng" # sections concatenate
"$bin" analyze --json --no-progress "$tmp/many.pcapng" >"$tmp/quiet.json" 2>/dev/null
"$bin" analyze --json --progress "$tmp/many.pcapng" >"$tmp/out.json" 2>"$tmp/err"
line=$(tr '\r' '\n' <"$tmp/err" | grep -m1 .)
if cmp -s "$tmp/out.json" "$tmp/quiet.json"; then t_pass "--progress: the JSON is the same byte for byte"; else
	t_fail "--progress changes the JSON"; fi
scripts/schema.py validate "$tmp/quiet.json" >"$tmp/schema" 2>&1 && t_pass "schema: 40 sections' report valid" ||
	t_fail "schema: $(head -c 300 "$tmp/schema")"
if echo "$line" | grep -qE '^ *[0-9.]+% [0-9.]+ [KMG]?i?B/[0-9.]+ [KMG]?i?B  [0-9]+ pkts [0-9.]+ [kMG]?pkt/s  [0-9]+ live  RSS [0-9.]+ [KMG]?i?B  ETA [0-9:]+'; then
	t_pass "--progress: percent, bytes, packets, rate, live, RSS, ETA"
else
	t_fail "--progress line: $(head -c 200 "$tmp/err" | cat -v)"
fi
case "$(tail -c 4 "$tmp/err" | od -An -c | tr -d ' ')" in
'\r033[K') t_pass "--progress: the line is erased at the end" ;;
*) t_fail "--progress: stderr ends with $(tail -c 20 "$tmp/err" | cat -v)" ;;
esac
# A pipe has no size: no percent, no ETA, the rest still there.
cat "$tmp/many.pcapng" | "$bin" analyze --json --progress - >/dev/null 2>"$tmp/err"
line=$(tr '\r' '\n' <"$tmp/err" | grep -m1 .)
if echo "$line" | grep -qE '^[0-9.]+ [KMG]?i?B  [0-9]+ pkts .* live  RSS ' && ! echo "$line" | grep -q ETA; then
	t_pass "--progress on stdin: no percent or ETA"
else
	t_fail "--progress on stdin: $(head -c 200 "$tmp/err" | cat -v)"
fi
"$bin" analyze --json "$tmp/many.pcapng" 2>"$tmp/err2" >/dev/null
[ ! -s "$tmp/err2" ] && t_pass "no progress when stderr is not a terminal" ||
	t_fail "progress printed to a non-terminal"
# Garbage options: one line, exit 2.
for args in "--nope" "--max-flows" "--max-flows abc" "--idle-timeout -1" "--rto-min x" ""; do
	# shellcheck disable=SC2086
	"$bin" analyze $args >/dev/null 2>"$tmp/e"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ]; then t_pass "usage error: '$args'"; else
		t_fail "'analyze $args': exit $rc, $(wc -l <"$tmp/e") lines"; fi
done
for args in "" "-i lo" "-w x" "-i lo -w x --fanout 0" "-i lo -w x --fanout-mode rr" "-i lo -w x -W 3"; do
	# shellcheck disable=SC2086
	"$bin" capture $args >/dev/null 2>"$tmp/e"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ]; then t_pass "capture usage error: '$args'"; else
		t_fail "'capture $args': exit $rc, $(wc -l <"$tmp/e") lines"; fi
done
# A missing value is not an unknown option: each verb says which it is.
for verb in analyze capture tui diff; do
	"$bin" $verb --filter </dev/null >/dev/null 2>"$tmp/e"
	grep -q "option '--filter' needs a value" "$tmp/e" && t_pass "$verb: missing value named" ||
		t_fail "$verb --filter: $(head -c 200 "$tmp/e")"
	"$bin" $verb --no-such-option </dev/null >/dev/null 2>"$tmp/e"
	grep -q "unknown option '--no-such-option'" "$tmp/e" && t_pass "$verb: unknown option named" ||
		t_fail "$verb --no-such-option: $(head -c 200 "$tmp/e")"
done
"$bin" bogus-verb >/dev/null 2>&1
[ $? -eq 2 ] && t_pass "unknown verb exits 2" || t_fail "unknown verb"
"$bin" analyze /nonexistent/file.pcap >/dev/null 2>"$tmp/e"
rc=$?
if [ $rc -eq 3 ] && grep -q "/nonexistent/file.pcap" "$tmp/e"; then t_pass "missing file exits 3 naming it"; else
	t_fail "missing file: exit $rc"; fi
t_done
