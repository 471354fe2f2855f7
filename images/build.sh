#!/usr/bin/env bash
# `make images`: builds the Countersign image (api, gateway, operator, migrations) with docker or
# podman; on a machine with neither, with buildah and base images built here (images/buildah.sh,
# OCI archives under .cache/images/). Fails clearly when none of the three is present.
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
if [[ -z "$engine" || "$engine" == buildah ]] || ! "$engine" info >/dev/null 2>&1; then
  if [[ "${CONTAINER_ENGINE:-buildah}" == buildah ]] && command -v buildah >/dev/null 2>&1; then
    exec "$root/images/buildah.sh"
  fi
  echo "make images: no container engine is available (looked for docker, podman and buildah, or CONTAINER_ENGINE)." >&2
  echo "Install docker, podman or buildah (root), then run make images again." >&2
  exit 1
fi

echo "building $IMAGE:$TAG with $engine"
"$engine" build -f "$root/images/Dockerfile" -t "$IMAGE:$TAG" "$root"
echo "built $IMAGE:$TAG (programs: api/dist/main.js, gateway/dist/main.js, operator/dist/main.js, api/dist/migrate-main.js)"
