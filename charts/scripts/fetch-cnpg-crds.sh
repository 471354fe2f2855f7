#!/usr/bin/env bash
# Copies CloudNativePG's CRDs (postgresql.cnpg.io) once into .cache/cnpg-crds/<version>/ (ignored
# by Git), for the chart test of the CloudNativePG mode (test/chart/cloudnativepg.test.ts): the
# server-side dry run of the rendered Cluster and Pooler needs them installed on the apiserver.
# They come from CloudNativePG's Go module (its config/crd/bases), through the Go module proxy:
# nothing third-party is committed, nothing is downloaded from anywhere else.
set -euo pipefail

CNPG_VERSION="${CNPG_VERSION:-$(cat "$(dirname "$0")/cnpg-version")}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${CNPG_CRDS_DIR:-$root/.cache/cnpg-crds/$CNPG_VERSION}"

if [[ -s "$cache/postgresql.cnpg.io_clusters.yaml" && -s "$cache/postgresql.cnpg.io_poolers.yaml" ]]; then
  echo "CloudNativePG $CNPG_VERSION CRDs already in $cache"
  exit 0
fi
command -v go >/dev/null 2>&1 || { echo "go is required to fetch CloudNativePG's CRDs" >&2; exit 1; }
# `go mod download` of a module needs no go.mod of ours; run it outside the repository all the same.
module_dir="$(cd /tmp && go mod download -json "github.com/cloudnative-pg/cloudnative-pg@$CNPG_VERSION" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[[ -d "$module_dir/config/crd/bases" ]] || { echo "no config/crd/bases in CloudNativePG $CNPG_VERSION" >&2; exit 1; }
mkdir -p "$cache"
cp "$module_dir"/config/crd/bases/postgresql.cnpg.io_*.yaml "$cache/"
chmod u+w "$cache"/*.yaml # the module cache is read-only
echo "CloudNativePG $CNPG_VERSION CRDs copied to $cache"
