#!/bin/sh
# Installs Debian's OpenAPI::Client (Perl, on Mojolicious and JSON::Validator) when it is missing: the client
# in a second language that the OpenAPI 3.0 test drives. It reads OpenAPI 3.0 documents only, and builds its
# methods from the document's operation ids. Tries the package lists as they are first, then refreshes them once.
set -e
if perl -MOpenAPI::Client -e 1 >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends libopenapi-client-perl >/dev/null 2>&1 \
  || { $SUDO apt-get update >/dev/null 2>&1 && $SUDO apt-get install -y --no-install-recommends libopenapi-client-perl >/dev/null; }
perl -MOpenAPI::Client -e 1
