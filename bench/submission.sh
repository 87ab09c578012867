#!/usr/bin/env bash
# SMTP submission (issue 25): 10 KB messages accepted per second over 4
# parallel SMTP sessions (STARTTLS, AUTH), against POST /v1/send of the
# same 10 KB of HTML from 4 clients, measured in the same run: each
# benchmark in its own process, the two alternating, RUNS times (default
# 5). Prints each one's median with its range, and the ratio run by run
# (median and range). Delivery is paused in both: they measure accepting.
#   RUNS=5 N=2000 bench/submission.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
N=${N:-2000}
out=$(mktemp -d)
go test -c -o "$out/web.test" ./web
for run in $(seq "$RUNS"); do
	for name in SubmissionAccepted SendAccepted4; do
		echo "run $run: $name" >&2
		(cd web && "$out/web.test" -test.run '^$' -test.bench "^Benchmark$name\$" -test.benchtime "${N}x" -test.timeout 30m) |
			awk -v run="$run" '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print run, $0 }' | tee -a "$out/results" >&2
	done
done
echo
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -m)), $RUNS runs of $N messages; load average: $(cut -d' ' -f1-3 /proc/loadavg)."
awk '
	{ for (i = 4; i < NF; i += 2) val[$1, $2, $(i + 1)] = $i; runs[$1] = 1 }
	function sort(xs, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && xs[j-1] > xs[j]; j--) { t = xs[j]; xs[j] = xs[j-1]; xs[j-1] = t } }
	function median(xs, n) { sort(xs, n); return n % 2 ? xs[(n+1)/2] : (xs[n/2] + xs[n/2+1]) / 2 }
	function show(name, unit,   r, xs, n, mid) {
		n = 0; for (r in runs) if ((r, name, unit) in val) xs[++n] = val[r, name, unit]
		if (n == 0) return "—"
		mid = median(xs, n); return sprintf("%.0f (%.0f–%.0f)", mid, xs[1], xs[n])
	}
	END {
		c = "BenchmarkSubmissionAccepted"; b = "BenchmarkSendAccepted4"
		n = 0; for (r in runs) if ((r, c, "msg/s") in val && (r, b, "msg/s") in val) q[++n] = val[r, c, "msg/s"] / val[r, b, "msg/s"]
		print "| what | result: median (range) | baseline, same run | ratio | CPU per message | target | |"
		print "|---|---|---|---|---|---|---|"
		m = n ? median(q, n) : 0
		printf("| SMTP submission, 4 sessions, 10 KB messages accepted, vs `POST /v1/send` from 4 clients | %s msg/s | %s | **%.0f%%** (%.0f–%.0f%%) | %s cpu-µs (baseline %s) | ≥ 80%% | %s |\n",
			show(c, "msg/s"), show(b, "msg/s"), 100 * m, 100 * q[1], 100 * q[n],
			show(c, "cpu-µs/msg"), show(b, "cpu-µs/msg"), m >= 0.8 ? "met" : "**not met**")
	}' "$out/results"
