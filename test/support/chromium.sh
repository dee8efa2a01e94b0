#!/bin/sh
# Installs Debian's chromium when it is missing (the /docs browser test drives it with playwright-core).
# Tries the package lists as they are first, then refreshes them once.
set -e
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
  || { $SUDO apt-get update >/dev/null 2>&1 && $SUDO apt-get install -y --no-install-recommends chromium >/dev/null; }
[ -x /usr/bin/chromium ]
