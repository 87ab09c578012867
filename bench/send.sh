#!/usr/bin/env bash
# Sending (issue 3): queued delivery against a raw go-smtp client, and
# /v1/send end to end against go-msgauth signing on all cores; then the
# accepted /v1/send rate and p99 at 64 clients.
d="$(dirname "$0")"
"$d/ratio.sh" ./web 'DeliveryQueued:RawSMTPClient:msg/s' 'SendEndToEnd:MsgauthSignAllCores:msg/s' -- -benchtime "${N:-2000}x" "$@"
cd "$d/.." && go test ./web -run '^$' -bench '^BenchmarkSendAccepted$' -benchtime "${N:-2000}x" -count "${COUNT:-3}" "$@" | grep '^Benchmark'
