#!/bin/sh
# Create the system user the service runs as.
set -e
if ! getent passwd herald >/dev/null; then
  useradd --system --home-dir /var/lib/herald --shell /usr/sbin/nologin herald
fi
