#!/usr/bin/env bash
# Runs benchmark pairs in one go test process and prints each candidate's
# rate as a ratio to its baseline, measured in the same run.
#   bench/ratio.sh PACKAGE 'Candidate:Baseline:metric' ... [-- go test flags]
# Example: bench/ratio.sh ./web 'TrackFullStack:TrackBaseline:req/s' -- -benchtime 20000x
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=$1; shift
pairs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do pairs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
names=$(for p in "${pairs[@]}"; do IFS=: read -r a b _ <<<"$p"; printf '%s|%s|' "$a" "$b"; done)
out=$(go test "$pkg" -run '^$' -bench "^Benchmark(${names%|})\$" -count "${COUNT:-3}" "$@")
echo "$out" | grep '^Benchmark'
for p in "${pairs[@]}"; do
  IFS=: read -r cand base metric <<<"$p"
  echo "$out" | awk -v c="Benchmark$cand-" -v b="Benchmark$base-" -v m="$metric" '
    function val(line,   i, n, f) { n = split(line, f, /[ \t]+/); for (i = 2; i <= n; i++) if (f[i] == m) return f[i-1]; return 0 }
    index($1, c) == 1 { cs += val($0); cn++ }
    index($1, b) == 1 { bs += val($0); bn++ }
    END { if (cn && bn) printf "%s: %.0f %s vs %s: %.0f %s = %.0f%%\n", c, cs/cn, m, b, bs/bn, m, 100*(cs/cn)/(bs/bn) }'
done
