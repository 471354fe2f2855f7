#!/usr/bin/env bash
# Builds the control plane the operator tests run against, once, into
# .cache/control-plane/<kubernetes version>/ (ignored by Git):
#   kube-apiserver  from k8s.io/kubernetes/cmd/kube-apiserver through the Go module proxy
#   etcd            Debian's etcd-server (3.4), linked into the same folder
# Nothing is downloaded outside the package registries (Go module proxy, apt).
#
# Why a wrapper module: k8s.io/kubernetes requires its staging modules at v0.0.0 and
# replaces them with local folders, so `go install k8s.io/kubernetes/cmd/kube-apiserver@v`
# is refused. We write a small module that requires k8s.io/kubernetes at one version and
# replaces every staging module with the published k8s.io/<name> at the paired v0.M.N.
# The list of staging modules is read from the tag's own go.mod, so a version bump needs
# no edit here.
set -euo pipefail

KUBERNETES_VERSION="${KUBERNETES_VERSION:-$(cat "$(dirname "$0")/version")}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${CONTROL_PLANE_DIR:-$root/.cache/control-plane/$KUBERNETES_VERSION}"
staging_version="v0.${KUBERNETES_VERSION#v1.}"

if [[ -x "$cache/kube-apiserver" && -x "$cache/etcd" ]]; then
  echo "control plane $KUBERNETES_VERSION already built in $cache"
  exit 0
fi
mkdir -p "$cache"

# etcd: Debian's etcd-server when the machine lacks an etcd binary.
if [[ ! -x "$cache/etcd" ]]; then
  if ! command -v etcd >/dev/null 2>&1; then
    echo "installing etcd-server through apt"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null
  fi
  ln -sf "$(command -v etcd)" "$cache/etcd"
fi

# kubectl: the tests drive it too; Debian ships it.
if ! command -v kubectl >/dev/null 2>&1; then
  echo "installing kubectl through apt"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubectl >/dev/null
fi

if [[ ! -x "$cache/kube-apiserver" ]]; then
  command -v go >/dev/null 2>&1 || { echo "go is required to build kube-apiserver" >&2; exit 1; }
  module="$cache/module"
  rm -rf "$module"
  mkdir -p "$module"
  cd "$module"

  echo "reading the staging modules of k8s.io/kubernetes $KUBERNETES_VERSION"
  gomod="$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  staging="$(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\1#p' "$gomod")"
  [[ -n "$staging" ]] || { echo "no staging modules found in $gomod" >&2; exit 1; }

  {
    echo "module countersign.dev/control-plane"
    echo
    echo "go 1.22"
    echo
    echo "require k8s.io/kubernetes $KUBERNETES_VERSION"
    echo
    echo "replace ("
    for name in $staging; do echo "	$name => $name $staging_version"; done
    echo ")"
  } >go.mod

  echo "resolving modules (several hundred MB on a cold module cache)"
  go get "k8s.io/kubernetes/cmd/kube-apiserver@$KUBERNETES_VERSION"

  minor="${KUBERNETES_VERSION#v1.}"
  minor="${minor%%.*}"
  ldflags="-s -w"
  ldflags+=" -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION"
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
  ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor"
  ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
  echo "compiling kube-apiserver $KUBERNETES_VERSION (many minutes on 2 cores the first time)"
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$cache/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$cache/kube-apiserver.tmp" "$cache/kube-apiserver"
fi

"$cache/kube-apiserver" --version
echo "control plane ready in $cache"
