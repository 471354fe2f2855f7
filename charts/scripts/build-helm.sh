#!/usr/bin/env bash
# Builds helm once into .cache/helm/<version>/helm (ignored by Git), through the Go module
# proxy: `go install helm.sh/helm/v3/cmd/helm@<version>` has no replace directives, so it
# works directly. No binary is downloaded from anywhere else.
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-$(cat "$(dirname "$0")/helm-version")}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${HELM_DIR:-$root/.cache/helm/$HELM_VERSION}"

if [[ -x "$cache/helm" ]]; then
  echo "helm $HELM_VERSION already built in $cache"
  exit 0
fi
command -v go >/dev/null 2>&1 || { echo "go is required to build helm" >&2; exit 1; }
mkdir -p "$cache"
echo "building helm $HELM_VERSION through the Go module proxy (a few minutes the first time)"
# The stamps helm's own Makefile sets: its version, and the Kubernetes version `helm template` and
# `helm lint` assume without a cluster (that of the k8s.io modules it is built with; unstamped it
# would be v1.20 and refuse the chart's kubeVersion).
module_dir="$(go mod download -json "helm.sh/helm/v3@$HELM_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
k8s_minor="$(sed -n 's#^[[:space:]]*k8s.io/client-go v0\.\([0-9]*\)\..*#\1#p' "$module_dir")"
[[ -n "$k8s_minor" ]] || { echo "could not read the k8s.io/client-go version of helm $HELM_VERSION" >&2; exit 1; }
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in pkg/lint/rules pkg/chartutil; do
  ldflags+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$k8s_minor"
done
CGO_ENABLED=0 GOBIN="$cache/.bin" go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
mv "$cache/.bin/helm" "$cache/helm"
rmdir "$cache/.bin"
"$cache/helm" version --short
