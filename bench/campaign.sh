#!/usr/bin/env bash
# Campaign fan-out (issue 4): one campaign to CONTACTS contacts (default
# 100000) delivered into a local go-smtp sink with RSA-2048 DKIM, against
# go-msgauth alone signing the same message on all cores. The benchmark
# seeds the contacts itself; it also reports the process's peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
export HERALD_BENCH_CONTACTS=${CONTACTS:-100000}
go test ./web -run '^$' -bench '^BenchmarkCampaignFanout$' -benchtime 1x -timeout 60m "$@" | grep '^Benchmark'
go test ./web -run '^$' -bench '^BenchmarkMsgauthSignAllCores$' -benchtime 2000x "$@" | grep '^Benchmark'
