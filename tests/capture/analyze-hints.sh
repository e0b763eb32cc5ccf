#!/usr/bin/env bash
# analyze-hints.sh TCPSIFT [LAB_PEER] - the tshark lines of `tcpsift capture
# --analyze` name the file written (each rotated file with -C), never the
# interface, with frame numbers counted within that file.
#
# lab_pair (offloads off, IPv6 off), 3% random drop at B's ingress so the
# report lists retransmission frames (with -C, from the second file on, so
# they are found in later files); on B, during FLOWS paced downloads:
#   one file:  capture -w live.pcapng --analyze: every "tshark -r 'X'" line
#              names live.pcapng, and the report's "frames" lines are those
#              of `tcpsift analyze live.pcapng` (the same packets);
#   rotation:  capture -w rot.pcapng -C 1 --analyze: every line names one of
#              the rot_NNNNN_*.pcapng files written, and the "frames" lines
#              ("FILE:#N", N within that file) are those of `tcpsift analyze`
#              of those files together (merged by time: the same order);
# in both, tshark finds in each named file exactly as many frames as its
# line lists (the numbers exist there), and no line names the interface.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-analyze-hints tshark ethtool -- "$@"
lab_require_capture
FLOWS=${HINTS_FLOWS:-2} BYTES=${HINTS_BYTES:-3M} RATE=${HINTS_RATE:-4M}

lab_pair chints 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off
drop() { lab_nft_drop "$LAB_NS_B" "ingress:$LAB_IF_B" 3 tcp sport 5001-5099; }

# run NAME AFTER ARGS...: capture on B into $LAB_TMP/NAME/ with --analyze
# during the downloads, the report in $LAB_TMP/NAME.txt; the drop rule goes
# in once the file AFTER exists ("": from the start) and out at the end.
run()
{
	local name=$1 after=$2
	shift 2
	mkdir -p "$LAB_TMP/$name"
	[ -n "$after" ] || drop
	lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -w "$LAB_TMP/$name/$name.pcapng" --analyze \
		"$@" >"$LAB_TMP/$name.txt" ||
		lab_abort "$name: tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
	lab_downloads "$FLOWS" "$BYTES" 20 --pacing-rate "$RATE"
	if [ -n "$after" ]; then
		for _ in $(seq 200); do
			compgen -G "$LAB_TMP/$name/$after" >/dev/null && break
			sleep 0.05
		done
		drop
	fi
	lab_downloads_wait
	ip netns exec "$LAB_NS_B" nft delete table netdev lab_loss
	lab_tcpsift_stop INT 2
	lab_check "$name: tcpsift exited $LAB_TCAP_RC after SIGINT (want 0)" "$LAB_TCAP_RC" -eq 0
}

# check NAME FILES...: the tshark lines of NAME's report against FILES (the
# files written) and the frames lines against analyze of FILES. Sets LINES.
check()
{
	local name=$1 line f frames n want
	shift
	LINES=0
	"$LAB_BIN" analyze --no-progress "$@" >"$LAB_TMP/$name.offline.txt" ||
		lab_fail "$name: tcpsift analyze of the files: exit $?"
	grep -E '^ +frames ' "$LAB_TMP/$name.txt" >"$LAB_TMP/$name.frames" || true
	grep -E '^ +frames ' "$LAB_TMP/$name.offline.txt" >"$LAB_TMP/$name.offline.frames" || true
	[ -s "$LAB_TMP/$name.frames" ] || lab_fail "$name: the report lists no frames (no loss?)"
	cmp -s "$LAB_TMP/$name.frames" "$LAB_TMP/$name.offline.frames" ||
		lab_fail "$name: frames differ from analyze of the files: $(diff "$LAB_TMP/$name.offline.frames" "$LAB_TMP/$name.frames" | head -n 4 | tr '\n' ' ')"
	while IFS= read -r line; do
		LINES=$((LINES + 1))
		[[ $line =~ tshark\ -r\ \'([^\']*)\'\ -Y\ \'frame\.number\ in\ \{([0-9,]*)\}\' ]] || {
			lab_fail "$name: not a tshark line: $line"
			continue
		}
		f=${BASH_REMATCH[1]} frames=${BASH_REMATCH[2]}
		printf '%s\n' "$@" | grep -qxF -- "$f" ||
			lab_fail "$name: tshark line names $f, not a file written"
		want=$(tr ',' '\n' <<<"$frames" | wc -l)
		n=$(lab_pcap_read "$f" -Y "frame.number in {$frames}" -T fields -e frame.number | wc -l) ||
			lab_fail "$name: tshark could not read $f"
		[ "$n" -eq "$want" ] || lab_fail "$name: tshark finds $n of the $want frames {$frames} in $f"
	done < <(grep -E "^ +tshark -r " "$LAB_TMP/$name.txt")
	[ "$LINES" -gt 0 ] || lab_fail "$name: no tshark line in the report"
	! grep -qE "tshark -r '$LAB_IF_B'" "$LAB_TMP/$name.txt" ||
		lab_fail "$name: a tshark line names the interface $LAB_IF_B"
}

run one ""
check one "$LAB_TMP/one/one.pcapng"
one_lines=$LINES

# Loss only once the second file is written: the frames listed are in later
# files, where a file's numbers are not the capture's.
run rot 'rot_00002_*.pcapng' -C 1
mapfile -t rot_files < <(find "$LAB_TMP/rot" -name 'rot_*.pcapng' | sort)
lab_check "rotation: ${#rot_files[@]} files (want >= 3)" "${#rot_files[@]}" -ge 3
check rot "${rot_files[@]}"
rot_named=$(grep -E "^ +tshark -r " "$LAB_TMP/rot.txt" | sed "s/^ *tshark -r '\([^']*\)'.*/\1/" |
	sort -u | wc -l)
grep -qE "^ +tshark -r '[^']*rot_0000[2-9]_" "$LAB_TMP/rot.txt" ||
	lab_fail "rotation: no tshark line names a file after the first (the loss began in the second)"
lab_verdict "one file: $one_lines tshark lines, all naming it, frames = analyze's; -C 1: ${#rot_files[@]} files, $LINES lines naming $rot_named of them, frames = analyze's"
