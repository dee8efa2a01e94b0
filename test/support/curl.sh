#!/bin/sh
# Installs Debian's curl when it is missing (the README examples test runs them as written).
# Tries the package lists as they are first, then refreshes them once.
set -e
if command -v curl >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends curl >/dev/null 2>&1 \
  || { $SUDO apt-get update >/dev/null 2>&1 && $SUDO apt-get install -y --no-install-recommends curl >/dev/null; }
command -v curl >/dev/null 2>&1
