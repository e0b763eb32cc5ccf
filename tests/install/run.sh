#!/usr/bin/env bash
# install/run.sh BUILD_DIR - `make install` and `make uninstall` with DESTDIR
# and PREFIX: exactly the expected files (the binary of BUILD_DIR, every
# man/*.1 and man/*.5, the JSON schemas, the bash completion), the
# installed binary runs, `man --warnings` is silent on every installed page
# at 80 columns, the completion completes a verb, options, option values, a
# file and an interface name (driven through COMP_WORDS/COMP_CWORD), and uninstall
# leaves no file of ours behind.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=install
. tests/lib.sh
dir=${1:?usage: run.sh BUILD_DIR}
[ -x "$dir/tcpsift" ] || { t_fail "no $dir/tcpsift"; t_done; exit; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The files an install under PREFIX must hold, from the source tree.
expected() {
	local p=${1#/} f
	echo "$p/bin/tcpsift"
	for f in man/*.1; do echo "$p/share/man/man1/${f#man/}"; done
	for f in man/*.5; do echo "$p/share/man/man5/${f#man/}"; done
	for f in man/*.schema.json; do echo "$p/share/tcpsift/${f#man/}"; done
	echo "$p/share/bash-completion/completions/tcpsift"
}

for prefix in /usr/local /opt/tcpsift; do
	d=$tmp/dest${prefix//\//_}
	args=(O="$dir" DESTDIR="$d")
	[ "$prefix" = /usr/local ] || args+=(PREFIX="$prefix") # the default, then another
	if ! make --no-print-directory -s install "${args[@]}" >"$tmp/make.log" 2>&1; then
		t_fail "make install ${args[*]}: $(head -c 300 "$tmp/make.log")"
		continue
	fi
	(cd "$d" && find . -type f | sed 's|^\./||' | sort) >"$tmp/have"
	expected "$prefix" | sort >"$tmp/want"
	if cmp -s "$tmp/have" "$tmp/want"; then
		t_pass "install under $prefix: the $(wc -l <"$tmp/want") expected files"
	else
		t_fail "install under $prefix: $(diff "$tmp/want" "$tmp/have" | grep '^[<>]' | head -5 | tr '\n' ' ')"
	fi
	b=$d$prefix/bin/tcpsift
	[ "$(stat -c %a "$b")" = 755 ] && [ "$(stat -c %a "$d$prefix/share/man/man1/tcpsift.1")" = 644 ] &&
		t_pass "modes 755 and 644" || t_fail "modes: $(stat -c '%a %n' "$b" "$d$prefix"/share/man/man1/*)"
	if [ "$("$b" --version)" = "$("$dir/tcpsift" --version)" ]; then t_pass "$prefix/bin/tcpsift runs"; else
		t_fail "$prefix/bin/tcpsift --version: $("$b" --version 2>&1 | head -c 200)"; fi

	if [ "$prefix" = /usr/local ]; then
		# man --warnings: groff's warnings on each page as man formats it.
		if command -v man >/dev/null; then
			n=0
			for page in "$d$prefix"/share/man/man?/*; do
				w=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" 2>&1 >/dev/null)
				if [ -z "$w" ]; then n=$((n + 1)); else t_fail "man --warnings ${page##*/}: ${w:0:300}"; fi
			done
			[ "$n" -ge 6 ] && t_pass "man --warnings: $n pages silent at 80 columns" ||
				t_fail "man --warnings: only $n pages silent"
		else
			t_fail "man not installed (scripts/deps.sh check installs man-db)"
		fi

		# The completion, as bash-completion would load it, on the installed binary.
		ifaces=()
		for f in /sys/class/net/*; do [ -e "$f" ] && ifaces+=("${f##*/}"); done
		iface=${ifaces[0]:-}
		PATH="$d$prefix/bin:$PATH" bash --norc -c '
			. "$1"
			c() { COMP_WORDS=("${@:2}"); COMP_CWORD=$(($# - 2)); _tcpsift; echo "$1 ${COMPREPLY[*]}"; }
			c verb tcpsift ana
			c verbs tcpsift ""
			c opt tcpsift analyze --fil
			c tuiopt tcpsift tui --spe
			c mergeopt tcpsift merge --nd
			c file tcpsift analyze samples/demo-http
			c iface tcpsift capture -i "${2:0:1}"
			c ifacelong tcpsift tui --interface ""
			c count tcpsift capture -W ""
			c fileval tcpsift analyze --frames-csv samples/zero-w
			c value tcpsift capture --fanout-mode ""
			c sortval tcpsift analyze --sort st
		' _ "$d$prefix/share/bash-completion/completions/tcpsift" "$iface" >"$tmp/comp" 2>&1
		want_comp() {
			local name=$1 want=$2 got
			got=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/^ /, ""); print }' "$tmp/comp")
			if [ "$got" = "$want" ]; then t_pass "completion $name: '$want'"; else
				t_fail "completion $name: '$got', want '$want' ($(head -c 200 "$tmp/comp"))"; fi
		}
		want_comp verb analyze
		verbs=$("$b" --help | awk '/^  [a-z]+ / && $1 != "tcpsift" { print $1 }' | tr '\n' ' ')
		want_comp verbs "${verbs}help --help --version"
		want_comp opt --filter
		want_comp tuiopt --speed
		want_comp mergeopt --ndjson
		want_comp file samples/demo-http-loss.pcapng
		want_comp count ""
		want_comp fileval samples/zero-window.pcap
		want_comp value "qm cpu hash"
		want_comp sortval "state stall"
		if [ -n "$iface" ]; then
			same=()
			for f in "${ifaces[@]}"; do [ "${f:0:1}" = "${iface:0:1}" ] && same+=("$f"); done
			want_comp iface "${same[*]}"
			want_comp ifacelong "${ifaces[*]}"
		else
			t_skip "no network interface in /sys/class/net: -i completion not checked"
		fi
	fi

	if ! make --no-print-directory -s uninstall "${args[@]}" >"$tmp/make.log" 2>&1; then
		t_fail "make uninstall ${args[*]}: $(head -c 300 "$tmp/make.log")"
	fi
	left=$(cd "$d" && find . -type f | head -5 | tr '\n' ' ')
	[ -e "$d$prefix/share/tcpsift" ] && left+=" $prefix/share/tcpsift/"
	[ -z "$left" ] && t_pass "uninstall under $prefix: none of our files left" ||
		t_fail "uninstall under $prefix left: $left"
done
t_done
