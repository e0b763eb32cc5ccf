#!/usr/bin/env bash
# hostile/run.sh BIN - crafted captures (tests/hostile/gen.py writes them and
# their expectations): each gives its expected exit code, at most one stderr
# line saying what is wrong and where, no sanitizer report, no hang, and in
# every output format a report a consumer can parse (JSON: one document
# valid by the schema, its errors list naming the input when it failed).
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=hostile
. tests/lib.sh
bin=${1:?usage: run.sh BIN}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tests/hostile/gen.py "$tmp" || { t_fail "gen.py failed"; t_done; exit; }

# json_check FILE RC EXPR: the report is one valid document (the schema's),
# its errors list names the input when the run failed (exit 3) and is empty
# otherwise, and EXPR (if any) holds over its summary s.
json_check() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
sys.path.insert(0, "scripts")
import schema  # scripts/schema.py: its fast validator, jsonschema's message
d = json.load(open(sys.argv[1]))
full = json.load(open(schema.COMMITTED))
if not schema.Fast(full).ok(full, d):
    sys.exit("; ".join(schema.validate_slow(full, [("", d, False)])[:3]) or "invalid by the fast validator")
s = d["summary"]
if (int(sys.argv[2]) == 3) != (len(d["errors"]) == 1):
    sys.exit("errors list %r with exit %s" % (d["errors"], sys.argv[2]))
if sys.argv[3] and not eval(sys.argv[3]):
    sys.exit("fails " + sys.argv[3])
PY
}

sanitized() { grep -qE 'runtime error|AddressSanitizer|LeakSanitizer|Assertion|Abort' "$1"; }

while IFS=$'\x1f' read -r name want err check; do
	f=$tmp/$name
	for fmt in --json --ndjson text; do
		opt=$fmt
		[ $fmt = text ] && opt=
		timeout 30 "$bin" analyze $opt --no-progress "$f" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		what="$name ($fmt)"
		if [ $rc -ne "$want" ]; then
			t_fail "$what: exit $rc, want $want: $(head -c 300 "$tmp/err")"
			continue
		fi
		if sanitized "$tmp/err"; then
			t_fail "$what: $(grep -m1 -E 'runtime error|Sanitizer|Assertion|Abort' "$tmp/err")"
			continue
		fi
		lines=$(wc -l <"$tmp/err")
		if [ -z "$err" ]; then
			[ "$lines" -eq 0 ] || { t_fail "$what: unexpected stderr: $(head -c 300 "$tmp/err")"; continue; }
		elif [ "$lines" -ne 1 ] || ! grep -qiE "^tcpsift analyze: .*$err" "$tmp/err"; then
			t_fail "$what: want one line matching /$err/, got $lines: $(head -c 300 "$tmp/err")"
			continue
		fi
		case $fmt in
		--json)
			if ! json_check "$tmp/out" $rc "$check" 2>"$tmp/py"; then
				t_fail "$what: $(tail -1 "$tmp/py")"
				continue
			fi ;;
		--ndjson)
			if ! python3 -c 'import json,sys
for l in open(sys.argv[1]): json.loads(l)' "$tmp/out" 2>"$tmp/py"; then
				t_fail "$what: a line is not JSON: $(tail -1 "$tmp/py")"
				continue
			fi
			# Validated against the schema below, all in one call.
			mkdir -p "$tmp/ndjson"
			[ -s "$tmp/out" ] && cp "$tmp/out" "$tmp/ndjson/$name.ndjson" ;;
		esac
		t_pass "$what: exit $rc"
	done
done <"$tmp/cases.txt"
reports=("$tmp"/ndjson/*.ndjson)
if [ ! -f "${reports[0]}" ]; then
	t_fail "schema: no NDJSON report to validate"
elif scripts/schema.py validate "${reports[@]}" >"$tmp/schema" 2>&1; then
	t_pass "schema: the ${#reports[@]} NDJSON reports are valid"
else
	t_fail "schema: $(head -c 300 "$tmp/schema")"
fi
t_done
