# shellcheck shell=bash
# scenarios.sh - the runner loop shared by tests/lab/run.sh and
# tests/capture/run.sh (sourced after tests/lib.sh). Each scenario runs as
# `bash SCRIPT BIN PEER` under a timeout, all within a budget; it exits 0
# (pass), 77 (skip) or anything else (fail) and prints one line of measured
# vs expected, shown here; on failure the end of its stderr is shown too.

# scenarios_require NAME BIN PEER WHAT: skip the whole suite (t_skip, t_done,
# exit 0) without root and ip netns, or without the binaries.
scenarios_require()
{
	local name=$1 bin=$2 peer=$3 what=$4 why
	why=$(. tests/lab/common.sh && lab_require_root)
	if [ $? -eq 77 ]; then
		t_skip "$name: ${why#SKIP: } (run make check as root for $what)"
		t_done
		exit 0
	fi
	if [ ! -x "$bin" ] || [ ! -x "$peer" ]; then
		t_skip "$name: needs $bin and $peer (make O=$(dirname "$bin") tests)"
		t_done
		exit 0
	fi
}

# harness_only OUT: the scenario's output has failed checks, all of them
# the harness's (lab_harness, tests/lab/common.sh).
harness_only()
{
	grep -q '^  FAIL: ' "$1" && ! grep '^  FAIL: ' "$1" | grep -qv '(harness)$'
}

# harness_fails OUT: its first three failed checks on one line.
harness_fails()
{
	grep -m 3 '^  FAIL: ' "$1" | sed 's/^  FAIL: //' | tr '\n' ';'
}

# scenarios_run NAME PREFIX BIN PEER BUDGET PER_SCENARIO SCRIPT...
scenarios_run()
{
	local name=$1 prefix=$2 bin=$3 peer=$4 budget=$5 per=$6 logs start s n left limit t0 rc line took
	shift 6
	logs=$(mktemp -d "/tmp/tcpsift-$name-run.XXXXXX")
	# shellcheck disable=SC2064 # expand now: $logs is local
	trap "rm -rf '$logs'" EXIT
	start=$SECONDS
	for s in "$@"; do
		[ -f "$s" ] || continue
		n=$prefix$(basename "$s" .sh)
		left=$((budget - (SECONDS - start)))
		if [ "$left" -lt 10 ]; then
			t_fail "$n: not run, the $name suite's ${budget} s budget is spent"
			continue
		fi
		limit=$((left < per ? left : per))
		t0=$SECONDS
		timeout -k 5 "$limit" bash "$s" "$bin" "$peer" >"$logs/$n.out" 2>"$logs/$n.err"
		rc=$?
		# Every failure the experiment's own (lab_harness: a capture or a
		# veth dropped): once more, then a skip; no verdict on tcpsift.
		if [ "$rc" = 1 ] && harness_only "$logs/$n.out"; then
			echo "     $n: harness fault, run 2: $(harness_fails "$logs/$n.out")"
			left=$((budget - (SECONDS - start)))
			limit=$((left < per ? left : per))
			if [ "$limit" -ge 10 ]; then
				timeout -k 5 "$limit" bash "$s" "$bin" "$peer" >"$logs/$n.out" 2>"$logs/$n.err"
				rc=$?
			fi
			if [ "$rc" = 1 ] && harness_only "$logs/$n.out"; then
				t_skip "$n (harness, in both runs): $(harness_fails "$logs/$n.out")"
				continue
			fi
		fi
		line=$(head -n 1 "$logs/$n.out")
		took=$((SECONDS - t0))
		case $rc in
		0)
			t_pass "$n"
			echo "  ok   $line (${took} s)"
			;;
		77)
			line=${line#SKIP }
			t_skip "$n: ${line#"$n": }"
			;;
		*)
			[ "$rc" -eq 124 ] && line="timed out after $limit s${line:+: $line}"
			t_fail "$n (exit $rc, ${took} s): $line"
			tail -n +2 "$logs/$n.out" | sed 's/^/    /'
			tail -n 20 "$logs/$n.err" | sed 's/^/    stderr: /'
			;;
		esac
	done
	echo "$name: scenarios took $((SECONDS - start)) s"
}
