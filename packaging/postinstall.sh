#!/bin/sh
# $1 is "configure"; $2 is the version upgraded from, empty on a first
# install.
set -e
# The data directory and the configuration, which holds the relay
# password: readable by the service's group only.
install -d -o herald -g herald -m 0750 /var/lib/herald
install -d -o root -g herald -m 0750 /etc/herald
chown root:herald /etc/herald/herald.env
chmod 0640 /etc/herald/herald.env
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null || true
  if [ -n "$2" ]; then
    # An upgrade: a running service restarts on the new binary (it
    # applies the new migrations when it starts).
    systemctl try-restart herald.service >/dev/null || true
  fi
fi
if [ -z "$2" ]; then
  echo "herald: set HERALD_BASE_URL in /etc/herald/herald.env, then: systemctl enable --now herald"
  echo "herald: create a project with: sudo -u herald herald project create --name \"My project\""
fi
