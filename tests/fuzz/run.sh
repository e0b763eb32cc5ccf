#!/usr/bin/env bash
# fuzz/run.sh BUILD_DIR [SECONDS] - replay the committed corpus through every
# fuzz target, then (SECONDS > 0) fuzz each one for that long.
#
# Replay (always): BUILD_DIR/tests/fuzz/fuzz_NAME, the target linked with
# tests/fuzz/replay.c in a sanitizer tree (`make O=build/san SAN=1 tests`),
# runs every file of tests/fuzz/corpus/fuzz_NAME/ once (fuzz_savefile also
# samples/*.pcap*, samples/bad/*; fuzz_diff also fuzz_jsonin's corpus):
# deterministic, no fuzzing engine needed.
# Any sanitizer report, trap, leak or hang fails.
#
# Fuzzing (SECONDS > 0): the libFuzzer builds build/fuzz/fuzz_NAME (`make
# fuzz`), seeded from the same files in a scratch corpus; skipped when they
# are not built. A crasher is kept under build/fuzz/artifacts/; README.md
# says how it becomes a reproducer in the corpus.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
T_SUITE=fuzz
. tests/lib.sh
dir=${1:?usage: run.sh BUILD_DIR [SECONDS]}
secs=${2:-0}
replay_timeout=${FUZZ_REPLAY_TIMEOUT:-300}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p build/fuzz/artifacts

# The inputs of target $1: its corpus folder, and the samples for the reader.
inputs() {
	[ -d "tests/fuzz/corpus/$1" ] && echo "tests/fuzz/corpus/$1"
	if [ "$1" = fuzz_savefile ]; then
		ls samples/*.pcap samples/*.pcapng samples/bad/*.pcap samples/bad/*.txt 2>/dev/null
	fi
	# The reader's corpus is the comparison's too (tcpsift diff reads reports).
	if [ "$1" = fuzz_diff ] && [ -d tests/fuzz/corpus/fuzz_jsonin ]; then
		echo tests/fuzz/corpus/fuzz_jsonin
	fi
}

n=0
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bin=$dir/tests/fuzz/$name
	log=build/fuzz/$name.replay.log
	n=$((n + 1))
	if [ ! -x "$bin" ]; then
		t_fail "$name: no $bin (make O=$dir SAN=1 tests)"
		continue
	fi
	mapfile -t in < <(inputs "$name")
	if [ ${#in[@]} -eq 0 ]; then
		t_fail "$name: no inputs (tests/fuzz/corpus/$name/ missing)"
		continue
	fi
	t0=$(date +%s.%N)
	if timeout "$replay_timeout" "$bin" "${in[@]}" >"$log" 2>&1; then
		t1=$(date +%s.%N)
		count=$(sed -n 's/^replay: \([0-9]*\) inputs.*/\1/p' "$log")
		if [ "${count:-0}" -gt 0 ]; then
			t_pass "$name: replay"
			printf '%s: replayed %s (%s)\n' "$name" "$(tail -1 "$log" | sed 's/^replay: //')" \
				"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }')"
		else
			t_fail "$name: replay ran no inputs (tests/fuzz/corpus/$name/ empty)"
		fi
	else
		rc=$?
		t_fail "$name: replay failed (exit $rc, see $log)"
		[ "$rc" -eq 124 ] && echo "  timed out after ${replay_timeout}s"
		grep '^replay: ' "$log" | grep -v ' inputs, ' | tail -1 | sed 's/^replay:/  last input:/'
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5
	fi
done
[ "$n" -gt 0 ] || t_fail "no tests/fuzz/fuzz_*.c"

if [ "$secs" -gt 0 ]; then
	for src in tests/fuzz/fuzz_*.c; do
		name=$(basename "$src" .c)
		bin=build/fuzz/$name
		if [ ! -x "$bin" ]; then
			t_skip "$name: fuzzing (no libFuzzer build $bin: make fuzz)"
			continue
		fi
		work=$(mktemp -d)
		mapfile -t in < <(inputs "$name")
		for i in "${in[@]}"; do
			if [ -d "$i" ]; then cp "$i"/* "$work"/ 2>/dev/null; else cp "$i" "$work"/; fi
		done
		if "$bin" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
			-artifact_prefix=build/fuzz/artifacts/"$name"- "$work" >build/fuzz/"$name".log 2>&1; then
			t_pass "$name: fuzzing"
			echo "$name: $(grep -oE '#[0-9]+' build/fuzz/"$name".log | tail -1 | tr -d '#') runs in ${secs}s"
		else
			t_fail "$name: fuzzing found a crash (see build/fuzz/$name.log)"
			grep -E 'ERROR|SUMMARY|artifact' build/fuzz/"$name".log | head -5
		fi
		rm -rf "$work"
	done
fi
t_done
