#!/bin/sh
# Create the system user and group the service runs as, before the files
# that belong to them are unpacked.
set -e
if ! getent group herald >/dev/null; then
  groupadd --system herald
fi
if ! getent passwd herald >/dev/null; then
  useradd --system --gid herald --home-dir /var/lib/herald --no-create-home \
    --shell /usr/sbin/nologin --comment "Herald email service" herald
fi
