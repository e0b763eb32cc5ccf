#!/usr/bin/env bash
# docs/run.sh TCPSIFT - every option --help lists is documented in the man
# page and the README names the setup commands; --help and --version work.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=docs
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}

help=$("$bin" analyze --help) || t_fail "analyze --help exits non-zero"
opts=$(echo "$help" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
[ -n "$opts" ] || t_fail "analyze --help lists no options"
for o in $opts; do
	# In roff, '-' is written '\-'.
	pat=$(echo "$o" | sed 's/-/\\\\-/g')
	if grep -q -- "$pat" man/tcpsift.1; then t_pass "man documents $o"; else
		t_fail "man/tcpsift.1 does not document $o"; fi
done
"$bin" --version | grep -qE '^tcpsift ' && t_pass "--version" || t_fail "--version"
"$bin" --help | grep -q analyze && t_pass "--help" || t_fail "--help"
for w in "make demo" "make check"; do
	grep -q "$w" README.md && t_pass "README: $w" || t_fail "README lacks '$w'"
done
w=$(groff -man -Tutf8 -ww -z man/tcpsift.1 2>&1); [ -z "$w" ] && t_pass "man page renders cleanly" || t_fail "man page warnings: $w"
t_done
