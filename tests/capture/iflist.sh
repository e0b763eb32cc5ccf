#!/usr/bin/env bash
# iflist.sh TCPSIFT [LAB_PEER] - `tcpsift capture -D` lists the interfaces
# exactly as `tcpdump -D` does, and -i takes a number from that list.
#
# In a namespace of its own with lo and a veth pair end (so the list is the
# namespace's, not the host's): -D output is byte-identical to tcpdump -D;
# -i N, N being the veth's number in that list, captures on the veth
# ("listening on IF", and a download across it is in the file: every
# packet the two ends sent, IPv6 off so nothing else is); -i 0 and -i N
# past the end are usage errors (exit 2, one line naming -D); a numeric
# interface name that exists would be taken as a name (not tested: Linux
# names can be all digits, but lab tools do not make one).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-iflist tcpdump -- "$@"
lab_require_capture

lab_pair ciflist 1500 1
lab_pair_ipv6_off
ours="$LAB_TMP/ours.txt" theirs="$LAB_TMP/tcpdump.txt" cap="$LAB_TMP/iflist.pcapng"
ip netns exec "$LAB_NS_B" "$LAB_BIN" capture -D >"$ours" 2>"$LAB_TMP/ours.err" ||
	lab_fail "-D exited non-zero: $(head -n 1 "$LAB_TMP/ours.err")"
ip netns exec "$LAB_NS_B" tcpdump -D >"$theirs" 2>/dev/null ||
	lab_abort "tcpdump -D failed"
same=no
cmp -s "$ours" "$theirs" && same=yes
lab_check "-D differs from tcpdump -D: $(diff "$ours" "$theirs" | head -n 3 | tr '\n' ' ')" \
	"$same" = yes
n_if=$(wc -l <"$ours")
num=$(awk -F'[. ]' -v ifn="$LAB_IF_B" '$2 == ifn { print $1; exit }' "$ours")
[ -n "$num" ] || lab_abort "$LAB_IF_B is not in the -D list: $(tr '\n' ' ' <"$ours")"

lab_tcpsift_start "$LAB_NS_B" -i "$num" -w "$cap" ||
	lab_abort "-i $num did not start: $(head -n 3 "$LAB_TCAP_LOG")"
b_tx0=$(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" tx_packets)
a_tx0=$(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" tx_packets)
lab_downloads 1 256K 10
lab_downloads_wait
want=$(($(lab_link_stat "$LAB_NS_B" "$LAB_IF_B" tx_packets) - b_tx0 +
	$(lab_link_stat "$LAB_NS_A" "$LAB_IF_A" tx_packets) - a_tx0))
lab_tcpsift_stop INT 1
listening=$(grep -c "listening on $LAB_IF_B," "$LAB_TCAP_LOG" || true)
lab_check "-i $num: 'listening on $LAB_IF_B' lines $listening (want 1)" "$listening" -eq 1
written=$(lab_tcpsift_count written)
lab_check "-i $num: exit $LAB_TCAP_RC (0), $written packets written (want the $want on the veth)" \
	"$LAB_TCAP_RC/${written:-?}" = "0/$want"

bad_rc=()
for n in 0 $((n_if + 1)); do
	rc=0
	err=$(ip netns exec "$LAB_NS_B" "$LAB_BIN" capture -Z root -i "$n" -w "$cap" 2>&1) || rc=$?
	lab_check "-i $n: exit $rc (want 2)" "$rc" -eq 2
	lab_check "-i $n: said '$err' (want one line: no interface number $n (see -D))" \
		"$err" = "tcpsift capture: no interface number $n (see -D)"
	bad_rc+=("$rc")
done

lab_verdict "-D = tcpdump -D: $same ($n_if interfaces); -i $num -> $LAB_IF_B," \
	"$written packets ($want), exit $LAB_TCAP_RC; -i 0 / -i $((n_if + 1)): exit ${bad_rc[*]} (2 2)"
