#!/usr/bin/env bash
# Segment counts over HERALD_BENCH_CONTACTS contacts (default here
# 1,000,000; the target is under 50 ms per count on 2 cores), one per shape:
# data equals, data exists, data range, data within (a date window), data
# not-equals, event triggered, event within, not-triggered, data AND event,
# data OR event, subscribed AND data, nested groups; then the first page
# of a dynamic segment's members with its total (GET /segments/{id}/contacts).
# Counts and pages combine in-process bitmaps (storage/bitmap_*.go) once
# their sets are held; after-a-write and first-count-after-start measure a
# count whose sets must be read again (one changed set; a fresh process).
# Each reports ms and CPU ms per count. Seeding a million contacts takes
# minutes; HERALD_BENCH_SEED_DIR keeps the seeded database between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
HERALD_BENCH_CONTACTS="${HERALD_BENCH_CONTACTS:-1000000}" \
  go test ./app -run '^$' -bench '^BenchmarkSegmentCount$' -benchtime "${N:-5}x" -timeout 60m "$@" |
  grep -E '^Benchmark|seeded'
