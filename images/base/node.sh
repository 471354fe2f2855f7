#!/usr/bin/env bash
# Base image NODE_BASE: Debian minbase + Node.js 22 (the official binary from the npm registry's
# node-linux-<arch> package, as scripts/install-node.sh) + npm, with the unprivileged user
# node (1000:1000) that images/Dockerfile runs as. Stands in for node:22-bookworm-slim.
set -euo pipefail
# shellcheck source=images/base/common.sh
source "$(dirname "$0")/common.sh"
has_image "$NODE_BASE" && { echo "$NODE_BASE already built"; exit 0; }

rootfs="$(debian_rootfs minbase ca-certificates)"
node_bin="$(COUNTERSIGN_NODE_VERSION="$NODE_VERSION" "$root/scripts/install-node.sh")/node"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "npm@$NPM_VERSION" >/dev/null && tar -xzf npm-*.tgz)

c="$(bh from scratch)"
mnt="$(bh mount "$c")"
tar -C "$mnt" --numeric-owner -xf "$rootfs"
install -m 0755 "$node_bin" "$mnt/usr/local/bin/node"
mkdir -p "$mnt/usr/local/lib/node_modules"
cp -a "$tmp/package" "$mnt/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
chroot "$mnt" groupadd --gid 1000 node
chroot "$mnt" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
bh umount "$c" >/dev/null
bh config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" --cmd node "$c"
bh commit --quiet --rm "$c" "$NODE_BASE" >/dev/null
echo "built $NODE_BASE"
