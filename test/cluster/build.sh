#!/usr/bin/env bash
# Builds the node components of the single-node test cluster, once, into
# .cache/cluster/<kubernetes version>/ (ignored by Git). The control plane (kube-apiserver, etcd)
# comes from test/control-plane/build.sh; this adds, from the same k8s.io/kubernetes module
# version through the Go module proxy:
#   kubelet, kube-controller-manager, kube-scheduler, kube-proxy, kubectl (for the CRD upgrade Job image)
# and:
#   coredns   github.com/coredns/coredns at COREDNS_VERSION (Go module proxy)
#   pause     kubernetes' build/pause/linux/pause.c (from the same module), compiled statically
# The wrapper module is the one test/control-plane/build.sh explains (staging modules replaced by
# their published k8s.io/<name> v0.M.N).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
KUBERNETES_VERSION="${KUBERNETES_VERSION:-$(cat "$root/test/control-plane/version")}"
COREDNS_VERSION="${COREDNS_VERSION:-$(cat "$here/coredns-version")}"
cache="${CLUSTER_BIN_DIR:-$root/.cache/cluster/$KUBERNETES_VERSION}"
staging_version="v0.${KUBERNETES_VERSION#v1.}"
components=(kubelet kube-controller-manager kube-scheduler kube-proxy kubectl)

"$root/test/control-plane/build.sh"
mkdir -p "$cache"

# The published version of a staging module paired with KUBERNETES_VERSION; when the module proxy
# refuses that exact version (seen: k8s.io/endpointslice v0.32.13 answers 403), the newest published
# patch of the same minor (the staging module's code changes little between patches).
published_version() {
  if go mod download "$1@$staging_version" >/dev/null 2>&1; then echo "$staging_version"; return; fi
  local minor_prefix="${staging_version%.*}."
  local v
  v="$(go list -m -versions "$1" | tr ' ' '\n' | grep "^${minor_prefix//./\\.}[0-9]*$" | sort -V | tail -1)"
  [[ -n "$v" ]] || { echo "no published $1 for $staging_version" >&2; exit 1; }
  echo "warning: $1@$staging_version is not available; using $v" >&2
  echo "$v"
}

missing=()
for c in "${components[@]}"; do [[ -x "$cache/$c" ]] || missing+=("$c"); done
if ((${#missing[@]})); then
  module="$cache/module"
  rm -rf "$module"
  mkdir -p "$module"
  cd "$module"
  gomod="$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  staging="$(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\1#p' "$gomod")"
  [[ -n "$staging" ]] || { echo "no staging modules found in $gomod" >&2; exit 1; }
  {
    echo "module countersign.dev/cluster"
    echo
    echo "go 1.22"
    echo
    echo "require k8s.io/kubernetes $KUBERNETES_VERSION"
    echo
    echo "replace ("
    for name in $staging; do echo "	$name => $name $staging_version"; done
    echo ")"
  } >go.mod
  for c in "${missing[@]}"; do
    for _ in 1 2 3 4; do
      if go get "k8s.io/kubernetes/cmd/$c@$KUBERNETES_VERSION" 2>"$module/get.err"; then break; fi
      cat "$module/get.err" >&2
      refused="$(sed -n "s#.*\(k8s\.io/[a-z0-9-]*\)@$staging_version: reading .*#\1#p" "$module/get.err" | sort -u)"
      [[ -n "$refused" ]] || exit 1
      for name in $refused; do go mod edit -replace "$name=$name@$(published_version "$name")"; done
    done
  done

  minor="${KUBERNETES_VERSION#v1.}"
  minor="${minor%%.*}"
  ldflags="-s -w"
  ldflags+=" -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION"
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
  ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor"
  ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
  for c in "${missing[@]}"; do
    echo "compiling $c $KUBERNETES_VERSION"
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$cache/$c.tmp" "k8s.io/kubernetes/cmd/$c"
    mv "$cache/$c.tmp" "$cache/$c"
  done
fi

if [[ ! -x "$cache/coredns" ]]; then
  echo "compiling coredns $COREDNS_VERSION"
  CGO_ENABLED=0 GOBIN="$cache/gobin" go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
  mv "$cache/gobin/coredns" "$cache/coredns"
  rmdir "$cache/gobin"
fi

if [[ ! -x "$cache/pause" ]]; then
  src="$(go env GOMODCACHE)/k8s.io/kubernetes@$KUBERNETES_VERSION/build/pause/linux/pause.c"
  [[ -f "$src" ]] || go mod download "k8s.io/kubernetes@$KUBERNETES_VERSION"
  echo "compiling pause from $src"
  gcc -Os -static -DVERSION="\"$KUBERNETES_VERSION\"" -o "$cache/pause.tmp" "$src"
  strip "$cache/pause.tmp"
  mv "$cache/pause.tmp" "$cache/pause"
fi

"$cache/kubelet" --version
"$cache/coredns" -version | sed -n 1p
echo "cluster node components ready in $cache"
