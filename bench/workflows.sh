#!/usr/bin/env bash
# Workflows (issue 9): the four figures of the engine, each against a
# baseline measured in the same run.
#   1. /v1/track with 50 enabled workflows listening for other events, as a
#      ratio to /v1/track with none (target >= 90%).
#   2. TRIGGER -> UPDATE_CONTACT -> EXIT on every tracked event: executions
#      completed per second against /v1/track's rate in the same benchmark
#      (target >= 50%). EVENTS events (50,000).
#   3. DELAY_N (100,000) executions parked on DELAYs that end at one
#      instant: steps per second once the clock moves, against single-row
#      write transactions per second on the same database (target >= 100%),
#      and the process's peak RSS (target < 250 MB). It also reports CPU
#      per step and per baseline transaction; WAVE_CPUPROFILE=file writes
#      a CPU profile of the wave alone.
#   4. WAIT_N (10,000) executions in WAIT_FOR_EVENT, the awaited event
#      tracked for each: p99 from the track to the step's completion
#      (target < 1 s).
# COUNT repeats each (default 3; medians and spread are for the reader).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-3}
echo "== 1. /v1/track, 50 workflows on other events vs none"
COUNT=$count bench/ratio.sh ./web 'TrackWith50Workflows:TrackNoWorkflows:req/s' -- -benchtime "${N:-20000}x"
echo "== 2. executions completed/s vs track/s (exec-%-of-track)"
go test ./web -run '^$' -bench '^BenchmarkWorkflowThroughput$' -benchtime "${EVENTS:-50000}x" -count "$count" -timeout 60m | grep '^Benchmark'
echo "== 3. DELAY wave: steps/s vs single-row tx/s (steps-%-of-tx), peak RSS"
for _ in $(seq "$count"); do # one process each: peak RSS is the run's own
  DELAY_N=${DELAY_N:-100000} go test ./web -run '^$' -bench '^BenchmarkWorkflowDelayWave$' -benchtime 1x -count 1 -timeout 60m | grep '^Benchmark'
done
echo "== 4. WAIT_FOR_EVENT answered: p99 track -> step completed"
WAIT_N=${WAIT_N:-10000} go test ./web -run '^$' -bench '^BenchmarkWorkflowWaitLatency$' -benchtime 1x -count "$count" -timeout 60m | grep '^Benchmark'
