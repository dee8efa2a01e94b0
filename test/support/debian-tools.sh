#!/bin/sh
# Installs the Debian packages the deployment tests use, each only when its command is missing:
#   sh debian-tools.sh COMMAND:PACKAGE ...   e.g. buildah:buildah debootstrap:debootstrap nginx:nginx
# Tries the package lists as they are first, then refreshes them once. Services a package would start
# (nginx) are not started: the tests only run `nginx -t` on a configuration of their own.
set -e
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive RUNLEVEL=1
missing=""
for pair in "$@"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${pair%%:*}" ] || missing="$missing ${pair#*:}"
done
[ -z "$missing" ] && exit 0
$SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 \
  || { $SUDO apt-get update >/dev/null 2>&1 && $SUDO apt-get install -y --no-install-recommends $missing >/dev/null; }
for pair in "$@"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${pair%%:*}" ] || { echo "${pair%%:*} is still missing after apt-get install ${pair#*:}" >&2; exit 1; }
done
