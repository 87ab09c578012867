#!/usr/bin/env bash
# Every benchmark, RUNS times (default 3), then the README's table: for
# each figure the median and range of the runs, the baseline measured in
# the same run (the process right before or after, on the same machine),
# the ratio, the CPU time per unit of work and the peak resident memory. A
# figure whose runs spread more than 15% around its median says so: on a
# shared machine, read its ratio, not its rate.
#
# The baselines, and why each is the limit of its path:
#   /v1/track       an httprouter handler that decodes the same JSON and
#                   answers: the HTTP stack and the body, with no work.
#   /v1/send, campaign
#                   go-msgauth alone signing the benchmark's message
#                   (RSA-2048) on every core: a signed message cannot be
#                   sent faster than it can be signed.
#   queued mail     a raw go-smtp client sending the same signed bytes over
#                   as many connections: the sink, the network stack and
#                   SMTP itself.
#   open / click    an httprouter GET handler answering the same pixel,
#                   with no work: the HTTP stack.
#   segments        none: a count is a query; the target is absolute.
#   SMTP submission POST /v1/send of the same 10 KB from as many clients
#                   (4), delivery paused in both: the API's path to the
#                   same committed email (bench/submission.sh alone).
#
# Environment: RUNS (3); TRACK_N, SEND_N, ENGAGE_N (requests per run);
# CAMPAIGN_CONTACTS (100000); CAMPAIGN_LARGE (e.g. 1000000: one more
# campaign, run once, to show that cost and memory stay flat);
# SEGMENT_CONTACTS (1000000) and HERALD_BENCH_SEED_DIR (where the seeded
# segment database is kept between runs); OUT (a directory for the raw
# results; a temporary one by default).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
RUNS=${RUNS:-3}
TRACK_N=${TRACK_N:-20000}
SEND_N=${SEND_N:-2000}
ENGAGE_N=${ENGAGE_N:-20000}
CAMPAIGN_CONTACTS=${CAMPAIGN_CONTACTS:-100000}
SEGMENT_CONTACTS=${SEGMENT_CONTACTS:-1000000}
export HERALD_BENCH_SEED_DIR=${HERALD_BENCH_SEED_DIR:-${TMPDIR:-/tmp}/herald-bench-seed}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out" "$HERALD_BENCH_SEED_DIR"
: >"$out/results"

go test -c -o "$out/web.test" ./web
go test -c -o "$out/app.test" ./app

# bench RUN PACKAGE NAME BENCHTIME [VAR=value ...]: one benchmark in its
# own process (so that its peak memory is its own), results tagged RUN.
bench() {
	local run=$1 pkg=$2 name=$3 bt=$4
	shift 4
	echo "run $run: $name" >&2
	(cd "$root/$pkg" && env "$@" "$out/$pkg.test" -test.run '^$' -test.bench "^Benchmark$name\$" \
		-test.benchtime "$bt" -test.timeout 90m) | tee -a "$out/log" |
		awk -v run="$run" '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print run, $0 }' >>"$out/results"
}

for run in $(seq "$RUNS"); do
	bench "$run" web TrackFullStack "${TRACK_N}x"
	bench "$run" web TrackBaseline "${TRACK_N}x"
	bench "$run" web EngageOpen "${ENGAGE_N}x"
	bench "$run" web EngageClick "${ENGAGE_N}x"
	bench "$run" web EngageBaseline "${ENGAGE_N}x"
	bench "$run" web DeliveryQueued "${SEND_N}x"
	bench "$run" web RawSMTPClient "${SEND_N}x"
	bench "$run" web SendEndToEnd "${SEND_N}x"
	bench "$run" web MsgauthSignAllCores "${SEND_N}x"
	bench "$run" web SubmissionAccepted "${SEND_N}x"
	bench "$run" web SendAccepted4 "${SEND_N}x"
	bench "$run" web CampaignFanout 1x HERALD_BENCH_CONTACTS="$CAMPAIGN_CONTACTS"
	bench "$run" app SegmentCount 5x HERALD_BENCH_CONTACTS="$SEGMENT_CONTACTS"
done
if [ -n "${CAMPAIGN_LARGE:-}" ]; then
	bench L web CampaignFanout 1x HERALD_BENCH_CONTACTS="$CAMPAIGN_LARGE"
	bench L web MsgauthSignAllCores "${SEND_N}x"
fi

echo "raw results: $out/results" >&2
echo
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(uname -m)), $RUNS runs; load average before the report: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
awk -v runs="$RUNS" -f "$root/bench/report.awk" "$out/results"
