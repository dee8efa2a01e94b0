#!/bin/sh
# Installs Debian's redis-server when it is missing (the store tests start one on a loopback port).
# Tries the package lists as they are first, then refreshes them once.
set -e
if command -v redis-server >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends redis-server >/dev/null 2>&1 \
  || { $SUDO apt-get update >/dev/null 2>&1 && $SUDO apt-get install -y --no-install-recommends redis-server >/dev/null; }
command -v redis-server >/dev/null 2>&1
