#!/usr/bin/env bash
# Shared by images/buildah.sh and images/base/*.sh: buildah confined to .cache/images, the local
# base image names, a cached Debian root filesystem and the OCI archive export.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
images_cache="${IMAGES_DIR:-$root/.cache/images}"
DEBIAN_SUITE="${DEBIAN_SUITE:-bookworm}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
export NODE_VERSION="${COUNTERSIGN_NODE_VERSION:-22.23.3}"
# npm as bundled with Node 22 (the node-linux package carries only the binary).
NPM_VERSION="${NPM_VERSION:-10.9.4}"
KUBERNETES_VERSION="${KUBERNETES_VERSION:-$(cat "$root/test/control-plane/version")}"
# Every base image lives under localhost/ so that kubelet's name normalisation keeps it local.
export NODE_BASE="localhost/countersign-base/node:22-$DEBIAN_SUITE"
export POSTGRESQL_IMAGE="localhost/countersign-base/postgresql:15-$DEBIAN_SUITE"
export KUBECTL_IMAGE="localhost/countersign-base/kubectl:$KUBERNETES_VERSION"
export PAUSE_IMAGE="localhost/countersign-base/pause:3.10"

bh() { buildah --root "$images_cache/storage" --runroot "$images_cache/run" --storage-driver overlay "$@"; }

# A Debian root filesystem (debootstrap, minbase, plus the packages given), cached as a tarball
# under .cache/images/rootfs/ and printed as its path.
debian_rootfs() {
  local name="$1" include="${2:-}"
  local tarball="$images_cache/rootfs/$DEBIAN_SUITE-$name.tar"
  if [[ ! -f "$tarball" ]]; then
    mkdir -p "$images_cache/rootfs"
    local dir
    dir="$(mktemp -d "$images_cache/rootfs/$name.XXXX")"
    echo "debootstrap $DEBIAN_SUITE ($name${include:+: $include})" >&2
    debootstrap --variant=minbase ${include:+--include="$include"} "$DEBIAN_SUITE" "$dir" "$DEBIAN_MIRROR" >&2
    # Package lists and caches have no use in an image.
    rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/* "$dir"/var/log/*
    tar -C "$dir" --numeric-owner -cf "$tarball.tmp" .
    mv "$tarball.tmp" "$tarball"
    rm -rf "$dir"
  fi
  echo "$tarball"
}

# Whether a local image exists already (base images are built once).
has_image() { bh inspect --type image "$1" >/dev/null 2>&1; }

# An image as an OCI archive whose reference is the full name, for `ctr images import`. Layers are
# left uncompressed: the archive only travels to containerd on this machine, and gzip of the
# image's node_modules was most of the export's time.
export_image() {
  local name="$1" file="$2"
  rm -f "$file"
  bh push --quiet --disable-compression "$name" "oci-archive:$file.tmp:$name" >/dev/null
  mv "$file.tmp" "$file"
}
