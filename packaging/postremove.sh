#!/bin/sh
# $1 is "remove", "purge", "upgrade", ... Remove keeps the data and the
# configuration; purge deletes both. The herald user stays, as Debian
# leaves system users in place (files elsewhere may still belong to it).
set -e
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null 2>&1 || true
fi
if [ "$1" = purge ]; then
  rm -rf /var/lib/herald /etc/herald
fi
