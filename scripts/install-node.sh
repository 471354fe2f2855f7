#!/usr/bin/env bash
# Node.js 22 for this repository from the npm registry: the `node-linux-<arch>` package carries the
# official binary, so a machine that has only an older Node and npm needs no other download. It is
# unpacked once into .cache/node/<version>/; the script prints that folder's bin directory, to put
# first on PATH:   export PATH="$(scripts/install-node.sh):$PATH"
set -euo pipefail
cd "$(dirname "$0")/.."
version="${COUNTERSIGN_NODE_VERSION:-22.23.3}"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "install-node.sh: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
dir="$PWD/.cache/node/$version"
if [ ! -x "$dir/bin/node" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$version" >/dev/null)
  tar -xzf "$tmp"/node-linux-"$arch"-*.tgz -C "$tmp"
  mkdir -p "$dir/bin"
  install -m 0755 "$tmp/package/bin/node" "$dir/bin/node"
fi
"$dir/bin/node" --version >/dev/null
echo "$dir/bin"
