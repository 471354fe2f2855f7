#!/usr/bin/env bash
# `make images` on a machine without docker or podman: builds, with buildah and no registry,
#   the base images  images/base/*.sh (Debian root filesystems from deb.debian.org + Node 22 from
#                    the npm registry; PostgreSQL from Debian's package; kubectl; pause)
#   the Countersign image from images/Dockerfile (`buildah bud`, NODE_IMAGE set to the local base)
# and writes each as an OCI archive under .cache/images/ (`ctr -n k8s.io images import` reads them).
# buildah's storage is confined to .cache/images/storage; nothing is written to the machine's own
# container storage. Root is required (buildah without rootless setup, debootstrap).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
IMAGE="${IMAGE:-countersign}"
TAG="${TAG:-dev}"
out="${IMAGES_DIR:-$root/.cache/images}"
mkdir -p "$out"

# shellcheck source=images/base/common.sh
source "$root/images/base/common.sh"

start=$SECONDS
"$root/images/base/node.sh"
"$root/images/base/postgresql.sh"
"$root/images/base/kubectl.sh"
"$root/images/base/pause.sh"
# Exported once: a base script that rebuilds its image removes its archive (images/base/common.sh).
for base in "$POSTGRESQL_IMAGE" "$KUBECTL_IMAGE" "$PAUSE_IMAGE"; do
  file="${base#localhost/countersign-base/}"
  file="$out/base-${file%%:*}.tar"
  [[ -f "$file" ]] || export_image "$base" "$file"
done
echo "base images built in $((SECONDS - start))s"

# The Countersign image. The build stages run `npm ci`: the host's npm cache is mounted as an
# overlay (:O, writes discarded), so packages already on this machine are not fetched again and the
# image's `npm cache clean` cannot empty the host's cache.
start=$SECONDS
name="localhost/$IMAGE:$TAG"
# IMAGE_SOURCE=<git revision> (HEAD, a tag, a commit) builds that commit (git archive) rather than
# the working tree (IMAGE_SOURCE=tree, the default): uncommitted edits do not decide what it runs.
context="$root"
source_revision="${IMAGE_SOURCE:-tree}"
if [[ "$source_revision" != tree ]]; then
  context="$(mktemp -d)"
  trap 'rm -rf "$context"' EXIT
  git -C "$root" archive "$source_revision" | tar -x -C "$context"
  echo "building $name from $(git -C "$root" rev-parse --short "$source_revision")"
fi
npm_cache="$(npm config get cache 2>/dev/null || echo "$HOME/.npm")"
mkdir -p "$npm_cache"
build_volumes=(-v "$npm_cache:/root/.npm:O")
# A machine whose HTTPS goes through an intercepting proxy trusts its CA in the system bundle (Node
# on the host reads it through NODE_EXTRA_CA_CERTS); npm inside the build is told the same through
# a global npmrc mounted for the build only (mounts are not part of the image's layers).
host_ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
if [[ -f "$host_ca" ]]; then
  printf 'cafile=/etc/ssl/certs/host-ca-certificates.crt\n' >"$out/build-npmrc"
  build_volumes+=(-v "$host_ca:/etc/ssl/certs/host-ca-certificates.crt:ro" -v "$out/build-npmrc:/usr/local/etc/npmrc:ro")
fi
bh bud --network host --layers -f "$root/images/Dockerfile" \
  --build-arg "NODE_IMAGE=$NODE_BASE" "${build_volumes[@]}" \
  -t "$name" "$context"
export_image "$name" "$out/$IMAGE-$TAG.tar"
echo "built $name in $((SECONDS - start))s -> $out/$IMAGE-$TAG.tar"
echo "(programs: api/dist/main.js, gateway/dist/main.js, operator/dist/main.js, api/dist/migrate-main.js)"
