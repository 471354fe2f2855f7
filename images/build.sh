#!/usr/bin/env bash
# `make images`: builds the Countersign image (api, gateway, operator, migrations) with docker or
# podman. Fails clearly on a machine without a container engine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
IMAGE="${IMAGE:-countersign}"
TAG="${TAG:-dev}"

engine="${CONTAINER_ENGINE:-}"
if [[ -z "$engine" ]]; then
  for candidate in docker podman; do
    if command -v "$candidate" >/dev/null 2>&1; then engine="$candidate"; break; fi
  done
fi
if [[ -z "$engine" ]] || ! "$engine" info >/dev/null 2>&1; then
  echo "make images: no container engine is available (looked for docker and podman, or CONTAINER_ENGINE)." >&2
  echo "Install docker or podman and start it, then run make images again." >&2
  exit 1
fi

echo "building $IMAGE:$TAG with $engine"
"$engine" build -f "$root/images/Dockerfile" -t "$IMAGE:$TAG" "$root"
echo "built $IMAGE:$TAG (programs: api/dist/main.js, gateway/dist/main.js, operator/dist/main.js, api/dist/migrate-main.js)"
