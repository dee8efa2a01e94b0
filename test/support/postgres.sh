#!/bin/sh
# Installs Debian's PostgreSQL server when it is missing (the store tests start a throwaway cluster
# on a loopback port) and prints the folder of its programs (initdb, postgres, pg_isready, psql).
# Tries the package lists as they are first, then refreshes them once.
set -e
bindir() {
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ] && [ -x "$dir/pg_isready" ] && [ -x "$dir/psql" ]; then echo "$dir"; return 0; fi
  done
  return 1
}
if bindir; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends postgresql >/dev/null 2>&1 \
  || { $SUDO apt-get update >/dev/null 2>&1 && $SUDO apt-get install -y --no-install-recommends postgresql >/dev/null; }
bindir
