#!/usr/bin/env bash
# park/run.sh TCPSIFT - parking idle connections (--park-after) changes
# nothing a report says: `analyze --park-after 1` (every open connection
# idle a second or more is packed at each one-second sweep, and unpacked at
# its next packet) against `--park-after 0` (never), byte for byte, in
# text, JSON with per-frame verdicts and NDJSON, with one thread and two:
# the samples, the public captures when present, a generated capture whose
# connections pause for seconds and end idle (tests/shard/mkcap.py, also
# under --idle-timeout 2 so that parked connections expire), and 5 000
# connections that go idle after their handshake and 100 bytes
# (tests/scale/syns.py --idle: 4 000 parked, then drained from their
# packed form; evicted under --max-flows 2000, expired under
# --idle-timeout 3). Run under AddressSanitizer by make check: a parked
# entry read after it was given back is reported.
# What parking saves is tests/scale/run.sh's.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=park
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
export TZ=UTC LC_ALL=C
out=build/$T_SUITE
rm -rf "$out"
mkdir -p "$out"

# same NAME ARGS...: `analyze ARGS` parking every idle second, with
# --threads 1 and 2: the same bytes, stderr and exit as never parking with
# as many threads (under --max-flows, which connections a worker evicts
# depends on its share of the cap: threads are compared by threads/run.sh).
same() {
	local name=$1 t rc trc
	shift
	for t in 1 2; do
		"$bin" analyze --no-progress --threads $t --park-after 0 "$@" >"$out/$name.$t.ref" \
			2>"$out/$name.$t.ref.err"
		rc=$?
		"$bin" analyze --no-progress --threads $t --park-after 1 "$@" >"$out/$name.$t" \
			2>"$out/$name.$t.err"
		trc=$?
		t_agree "$name" "--threads $t --park-after 1" "$out/$name.$t.ref" $rc "$out/$name.$t" \
			$trc "never parking"
	done
}

for s in samples/*.pcap samples/*.pcapng; do
	b=$(basename "$s")
	same "$b.json" --json --frames "$s"
	same "$b.txt" "$s"
done

if public=$(t_public_dir); then
	for s in "$public"/*.pcap "$public"/*.pcapng; do
		same "public-$(basename "$s").json" --json --frames "$s"
	done
else
	t_skip "public captures: not here"
fi

python3 tests/shard/mkcap.py "$out/gen.pcap" || t_fail "mkcap.py"
same gen.json --json --frames "$out/gen.pcap"
same gen.ndjson --ndjson --frames "$out/gen.pcap"
same gen.txt "$out/gen.pcap"
same gen-expire.json --json --frames --idle-timeout 2 "$out/gen.pcap"
same gen-expire.ndjson --ndjson --idle-timeout 3 "$out/gen.pcap"

# 5 000 connections 1 ms apart that go idle after their handshake and 100
# bytes: 4 000 parked by the end, then drained from their packed form; under
# --max-flows 2 000 the parked ones are the ones evicted (and the ended
# ones' keys remembered); under --idle-timeout 3 parked ones expire.
python3 tests/scale/syns.py "$out/idle.pcap" 5000 --idle || t_fail "syns.py --idle"
same idle.json --json "$out/idle.pcap"
same idle.ndjson --ndjson "$out/idle.pcap"
same idle.txt "$out/idle.pcap"
same idle-evict.json --json --max-flows 2000 "$out/idle.pcap"
same idle-expire.ndjson --ndjson --idle-timeout 3 "$out/idle.pcap"

for bad in -1 x 1.5 31536001; do
	"$bin" analyze --park-after "$bad" samples/zero-window.pcap >/dev/null 2>"$out/bad.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$out/bad.err")" = 1 ] &&
		t_pass "--park-after $bad: usage error" || t_fail "--park-after $bad: exit $rc"
done
t_done
