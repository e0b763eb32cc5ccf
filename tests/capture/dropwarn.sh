#!/usr/bin/env bash
# dropwarn.sh TCPSIFT [LAB_PEER] - `tcpsift capture` warns on stderr while
# packets are being dropped, with advice, rate-limited; a calm capture says
# nothing.
#
# lab_pair (1 queue, offloads on: 64 KiB super-frames, IPv6 off); on B:
#   calm:  default ring, one paced 1 MiB download: no warning line at all
#          (negative control), exit 0, no drop in the summary;
#   flood: -B 1 (the smallest ring), --analyze-json on stdout, downloads
#          at full speed for SECS seconds: a "tcpsift capture: warning: N of
#          M packets dropped (P %) in the last T s" line on stderr while the
#          capture still runs (read before the SIGINT), advising a larger -B (the
#          1 MiB ring holds under a second of this traffic) and -s 128 (full
#          64 KiB frames kept); at most one warning per 5 s of capture plus
#          the first; every warning's count within the summary's drops; the
#          JSON on stdout parses and holds no warning.
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-dropwarn python3 -- "$@"
lab_require_capture
SECS=${DROPWARN_SECS:-7}

lab_pair cdropw 1500 1
lab_pair_ipv6_off
pcap="$LAB_TMP/calm.pcapng"

# --- calm: no warning ---------------------------------------------------------
lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -w "$pcap" >/dev/null ||
	lab_abort "calm: tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
lab_downloads 1 1M 20 --pacing-rate 2M
lab_downloads_wait
lab_tcpsift_stop INT 2
calm_log=$LAB_TCAP_LOG
lab_check "calm: tcpsift exited $LAB_TCAP_RC (want 0)" "$LAB_TCAP_RC" -eq 0
calm_drops=$(($(lab_tcpsift_count kernel) + $(lab_tcpsift_count ours)))
lab_check "calm: $calm_drops packets dropped (want 0: the control is not calm)" "$calm_drops" -eq 0
calm_warn=$(grep -c 'warning' "$calm_log" || true)
lab_check "calm: $calm_warn warning lines (want 0): $(grep -m1 warning "$calm_log" || true)" \
	"$calm_warn" -eq 0

# --- flood: warnings while it runs ----------------------------------------------
lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -w "$LAB_TMP/flood.pcapng" -B 1 --analyze-json \
	>"$LAB_TMP/flood.json" ||
	lab_abort "flood: tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
t0=$SECONDS
lab_downloads 2 8G "$SECS" --pacing-rate 0 2>/dev/null || true
sleep "$SECS"
# Read while tcpsift still captures: the warning must come during the drops.
live_warn=$(grep -c '^tcpsift capture: warning: ' "$LAB_TCAP_LOG" || true)
kill -0 "$LAB_TCAP_PID" 2>/dev/null || lab_fail "flood: tcpsift ended before the SIGINT"
for p in "${LAB_DL_PIDS[@]}"; do lab_wait "$p" || true; done # cut short: 8G is not sent
lab_tcpsift_stop INT 1
took=$((SECONDS - t0))
log=$LAB_TCAP_LOG
lab_check "flood: tcpsift exited $LAB_TCAP_RC (want 0)" "$LAB_TCAP_RC" -eq 0
kdrops=$(lab_tcpsift_count kernel)
ours=$(lab_tcpsift_count ours)
lab_check "flood: ${kdrops:-?} kernel drops in the summary (want > 0: no flood?)" "${kdrops:-0}" -gt 0
lab_check "flood: $live_warn warnings on stderr while capturing (want >= 1)" "$live_warn" -ge 1
mapfile -t warns < <(grep '^tcpsift capture: warning: ' "$log" || true)
max=$((took / 5 + 2))
lab_check "flood: ${#warns[@]} warnings in $took s (want <= $max: one per 5 s and the first)" \
	"${#warns[@]}" -le "$max"
sum=0
for w in "${warns[@]}"; do
	if [[ $w =~ warning:\ ([0-9]+)\ of\ ([0-9]+)\ packets\ dropped\ \(([0-9.]+)\ %\)\ in\ the\ last\ ([0-9.]+)\ s,\ [^:]+:\ try\ (.+)$ ]]; then
		sum=$((sum + BASH_REMATCH[1]))
		[ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] || lab_fail "flood: more dropped than received: $w"
	else
		lab_fail "flood: not a warning line: $w"
	fi
done
lab_check "flood: the warnings count $sum drops, the summary $((kdrops + ours)) (want <=)" \
	"$sum" -le $((kdrops + ours))
first=${warns[0]:-}
[[ $first =~ -B\ [0-9]+\ \(the\ kernel\ ring,\ 1\ MiB,\ holds\ [0-9]+\ (us|ms)\ of\ this\ traffic\) ]] ||
	lab_fail "flood: the first warning does not advise a larger -B: $first"
[[ $first == *"-s 128 (headers are all tcpsift reads"* ]] ||
	lab_fail "flood: the first warning does not advise -s 128: $first"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$LAB_TMP/flood.json" ||
	lab_fail "flood: stdout is not the JSON report alone"
! grep -q warning "$LAB_TMP/flood.json" || lab_fail "flood: a warning on stdout"
pct=$(sed -n 's/.*dropped (\([0-9.]*\) %).*/\1/p' <<<"$first")
lab_verdict "calm: 0 warnings, 0 drops; flood (-B 1): ${#warns[@]} warnings in $took s, first ${pct:-?} % dropped, advising $(sed -n 's/.*: try //p' <<<"$first" | sed 's/ ([^)]*)//g'); $((kdrops + ours)) drops counted"
