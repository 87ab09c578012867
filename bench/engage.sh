#!/usr/bin/env bash
# GET /t/o/{token} (open pixel) and GET /t/c/{token} (click redirect)
# through the full stack, each event recorded before the answer, against an
# empty httprouter GET handler answering the same pixel; 64 clients.
exec "$(dirname "$0")/ratio.sh" ./web 'EngageOpen:EngageBaseline:req/s' 'EngageClick:EngageBaseline:req/s' -- -benchtime "${N:-20000}x" "$@"
