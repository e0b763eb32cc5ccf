#!/usr/bin/env bash
# fuzz/run.sh [SECONDS] - run every fuzzer under build/fuzz for a short while,
# seeded from samples/ and the regression corpus tests/fuzz/corpus/NAME/.
# A crash, leak or sanitizer report fails; the crasher is kept under
# build/fuzz/artifacts/ to be added to the regression corpus.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=fuzz
. tests/lib.sh
secs=${1:-20}
mkdir -p build/fuzz/artifacts
for bin in build/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	work=$(mktemp -d)
	cp samples/*.pcap samples/*.pcapng "$work"/ 2>/dev/null
	[ -d "tests/fuzz/corpus/$name" ] && cp "tests/fuzz/corpus/$name"/* "$work"/ 2>/dev/null
	if "$bin" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
		-artifact_prefix=build/fuzz/artifacts/"$name"- "$work" >build/fuzz/"$name".log 2>&1; then
		t_pass "$name: $(grep -oE '#[0-9]+' build/fuzz/"$name".log | tail -1 | tr -d '#') runs in ${secs}s"
	else
		t_fail "$name (see build/fuzz/$name.log)"
		grep -E 'ERROR|SUMMARY|artifact' build/fuzz/"$name".log | head -5
	fi
	rm -rf "$work"
done
t_done
