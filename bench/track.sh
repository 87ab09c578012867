#!/usr/bin/env bash
# POST /v1/track through the full stack against an empty httprouter
# handler decoding the same body, 64 concurrent clients (issue 2).
exec "$(dirname "$0")/ratio.sh" ./web 'TrackFullStack:TrackBaseline:req/s' -- -benchtime "${N:-20000}x" "$@"
