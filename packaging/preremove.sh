#!/bin/sh
# $1 is "remove" or "upgrade". On remove the service stops; an upgrade
# restarts it after the new files are in place (postinstall).
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
  systemctl stop herald.service >/dev/null 2>&1 || true
  systemctl disable herald.service >/dev/null 2>&1 || true
fi
