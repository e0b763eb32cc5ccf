#!/usr/bin/env bash
# check-hardening.sh BINARY... - is each binary built as the Makefile's
# hardening flags promise? Read from the ELF itself (readelf), not the flags:
#   PIE          ELF type DYN (-fPIE -pie)
#   full RELRO   a GNU_RELRO segment (-z relro) and BIND_NOW / FLAGS_1 NOW
#                (-z now: the GOT is read-only before main)
#   NX stack     GNU_STACK without E
#   canary       __stack_chk_fail imported (-fstack-protector-strong)
#   FORTIFY      checked calls imported (__*_chk: -D_FORTIFY_SOURCE, which
#                needs -O1 or more; not in the sanitizer tree)
# -fstack-clash-protection leaves no mark readelf can see; the compile line
# carries it (Makefile HARDEN_CFLAGS). One line per binary, then the
# readelf lines it was judged on; exit 1 when a property is missing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
T_SUITE=hardening
. tests/lib.sh

[ $# -gt 0 ] || set -- build/rel/tcpsift
command -v readelf >/dev/null || { echo "check-hardening: needs readelf (binutils)" >&2; exit 1; }

for bin in "$@"; do
	if [ ! -f "$bin" ]; then
		t_fail "$bin: no such binary (build it first)"
		continue
	fi
	hdr=$(readelf -hW "$bin") dyn=$(readelf -dW "$bin") seg=$(readelf -lW "$bin")
	syms=$(readelf --dyn-syms -W "$bin" | awk '$7 == "UND" {sub(/@.*/, "", $8); print $8}' | sort -u)
	type=$(awk '/^ *Type:/ {print $2}' <<<"$hdr")
	bind=$(grep -E '\((BIND_NOW|FLAGS_1|FLAGS)\)' <<<"$dyn" | grep -cw NOW)
	relro=$(grep -c GNU_RELRO <<<"$seg")
	stack=$(awk '$1 == "GNU_STACK" {print $(NF-1)}' <<<"$seg")
	canary=$(grep -cx __stack_chk_fail <<<"$syms")
	chk=$(grep -E '^__.*_chk$' <<<"$syms" | grep -vx __stack_chk_fail)
	nchk=$(grep -c . <<<"$chk")
	missing=()
	[ "$type" = DYN ] || missing+=("PIE (type $type)")
	[ "$bind" -gt 0 ] || missing+=("BIND_NOW")
	[ "$relro" -gt 0 ] || missing+=("GNU_RELRO")
	[ "$stack" = RW ] || missing+=("non-executable stack (GNU_STACK $stack)")
	[ "$canary" -gt 0 ] || missing+=("__stack_chk_fail")
	[ "$nchk" -gt 0 ] || missing+=("FORTIFY (__*_chk)")
	if [ ${#missing[@]} -eq 0 ]; then
		t_pass "$bin"
		echo "check-hardening: $bin: PIE, full RELRO, NX stack, canary, FORTIFY ($nchk checked calls)"
	else
		t_fail "$bin: missing ${missing[*]}"
	fi
	# The evidence, for the record (the issue's closing note quotes it).
	grep -E '^ *Type:' <<<"$hdr" | sed -E "s/ +/ /g; s|^ *|  $bin: |"
	grep -E '\((BIND_NOW|FLAGS_1|FLAGS)\)' <<<"$dyn" | sed -E "s/ +/ /g; s|^ *|  $bin: |"
	grep -E 'GNU_RELRO|GNU_STACK' <<<"$seg" | sed -E "s/ +/ /g; s|^ *|  $bin: |"
	echo "  $bin: __stack_chk_fail ${canary:-0}; $(tr '\n' ' ' <<<"$chk")"
done
t_done
