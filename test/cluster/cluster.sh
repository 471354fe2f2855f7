#!/usr/bin/env bash
# A real single-node Kubernetes cluster for tests, started and stopped by this one script (root):
#   etcd, kube-apiserver            test/control-plane/build.sh's binaries
#   kube-controller-manager, kube-scheduler, kubelet, kube-proxy (iptables), CoreDNS
#                                   test/cluster/build.sh's binaries (.cache/cluster/<version>/)
#   containerd + runc               Debian's, with its own config, root, state and socket
#   CNI                             Debian's bridge, host-local, loopback, portmap plugins
# Everything is confined: the state under CLUSTER_DIR (a temporary folder), a bridge of its own
# (CLUSTER_BRIDGE, CLUSTER_SUBNET) whose gateway address every server binds to, cgroups under
# /countersign-cluster, iptables rules that kube-proxy removes on stop (--cleanup).
#
#   test/cluster/cluster.sh [CLUSTER_DIR]
# runs in the foreground; when the node is Ready and DNS answers it writes CLUSTER_DIR/ready (the
# admin kubeconfig is CLUSTER_DIR/admin.kubeconfig). SIGTERM or SIGINT stops every process, removes
# pods' network namespaces, mounts, cgroups and iptables rules, the bridge, and restores the sysctls
# it changed (net.ipv4.ip_forward, net.bridge.bridge-nf-call-iptables). See docs/cluster.md.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
KUBERNETES_VERSION="${KUBERNETES_VERSION:-$(cat "$root/test/control-plane/version")}"
cp_bin="$root/.cache/control-plane/$KUBERNETES_VERSION"
bin="$root/.cache/cluster/$KUBERNETES_VERSION"
dir="${1:-${CLUSTER_DIR:-$(mktemp -d /tmp/countersign-cluster.XXXXXX)}}"
bridge="${CLUSTER_BRIDGE:-cs-cluster0}"
# Pods get 10.213.0.2-254 on the bridge; 10.213.0.1 (the bridge) is the node and every server's
# address; Services take 10.214.0.0/24 (10.214.0.1: the kubernetes Service).
prefix="${CLUSTER_SUBNET_PREFIX:-10.213.0}"
node_ip="$prefix.1"
pod_cidr="$prefix.0/24"
service_cidr="${CLUSTER_SERVICE_CIDR:-10.214.0.0/24}"
kubernetes_service_ip="${service_cidr%.0/24}.1"
node_name="${CLUSTER_NODE_NAME:-countersign-node}"
cgroup_root=/countersign-cluster
PAUSE_IMAGE="${PAUSE_IMAGE:-localhost/countersign-base/pause:3.10}"

[[ $(id -u) == 0 ]] || { echo "cluster.sh: run as root (containerd, kubelet, iptables)" >&2; exit 1; }
for b in "$cp_bin/etcd" "$cp_bin/kube-apiserver" "$bin/kubelet" "$bin/kube-proxy" "$bin/coredns"; do
  [[ -x "$b" ]] || { echo "cluster.sh: $b is missing: run make cluster" >&2; exit 1; }
done
if ip link show "$bridge" >/dev/null 2>&1; then
  echo "cluster.sh: bridge $bridge exists: another cluster runs (or did not stop)" >&2
  exit 1
fi
mkdir -p "$dir"/{pki,logs,containerd,cni/net.d,cni/ipam,kubelet,volumes}
dir="$(cd "$dir" && pwd)"
sock="$dir/containerd/containerd.sock"
log() { echo "cluster.sh: $*" >&2; }

# --- stop and clean up (also after a failed start) ------------------------------------------
pids=()
declare -A pid_of=()
netns_before="$(ls /var/run/netns 2>/dev/null || true)"
ip_forward_before="$(cat /proc/sys/net/ipv4/ip_forward)"
bridge_nf_before="$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null || echo)"
# Rules and chains named KUBE-* belong to kubelet and kube-proxy; the script removes them on stop
# only if the machine had none before it started (then they are all this cluster's).
kube_chains() { for t in filter nat mangle raw; do iptables -t "$t" -S; ip6tables -t "$t" -S 2>/dev/null; done | grep -c '^-N KUBE-' || true; }
kube_chains_before="$(kube_chains)"
remove_kube_chains() {
  local cmd t chains c rule
  for cmd in iptables ip6tables; do
    for t in filter nat mangle raw; do
      chains="$("$cmd" -t "$t" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\)$/\1/p')"
      [[ -n "$chains" ]] || continue
      "$cmd" -t "$t" -S | grep -E '^-A [^ ]+ .*-j KUBE-' | grep -v '^-A KUBE-' | sed 's/^-A/-D/' |
        while read -r rule; do eval "$cmd -t $t $rule"; done
      for c in $chains; do "$cmd" -t "$t" -F "$c"; done
      for c in $chains; do "$cmd" -t "$t" -X "$c"; done
    done
  done
}
stopping=0
stop() {
  ((stopping)) && return
  stopping=1
  set +e
  log "stopping"
  # Pods first, through kubelet, so that CNI tears their networks down (veths, host-local leases);
  # the controllers are stopped before, so that no ReplicaSet or StatefulSet makes them again.
  for name in kube-controller-manager kube-scheduler; do
    [[ -n "${pid_of[$name]:-}" ]] && kill "${pid_of[$name]}" 2>/dev/null
  done
  if [[ -f "$dir/ready" || -f "$dir/admin.kubeconfig" ]]; then
    rm -f "$dir/ready"
    timeout 20 "$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" delete pods --all -A --force --grace-period=0 --wait=false >/dev/null 2>&1
    for _ in $(seq 1 30); do
      [[ -z "$(ctr --address "$sock" -n k8s.io tasks ls -q 2>/dev/null)" ]] && break
      sleep 1
    done
  fi
  # Then every process in reverse start order.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null
  done
  # Containers whose shim outlived containerd: the shims of this containerd name its socket.
  for pid in $(pgrep -f -- "-address $sock" || true); do kill -9 "$pid" 2>/dev/null; done
  # kube-proxy's and kubelet's iptables chains (KUBE-*) and the rules that jump to them.
  "$bin/kube-proxy" --cleanup >/dev/null 2>&1
  ((kube_chains_before)) || remove_kube_chains
  # Network namespaces the pods had (containerd CRI makes them under /var/run/netns).
  for path in /var/run/netns/cni-*; do
    [[ -e "$path" ]] || continue
    grep -qx "${path##*/}" <<<"$netns_before" && continue
    umount "$path" 2>/dev/null
    rm -f "$path"
  done
  # Mounts under the cluster's folder (secrets' tmpfs, containers' rootfs), deepest first.
  findmnt -rn -o TARGET | grep "^$dir/" | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  # cgroups of the pods (cgroup v1 hierarchies and the unified one).
  for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
    [[ -d "$h${cgroup_root#/}" ]] && find "$h${cgroup_root#/}" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  ip link del "$bridge" 2>/dev/null
  iptables -D FORWARD -i "$bridge" -j ACCEPT -m comment --comment countersign-cluster 2>/dev/null
  iptables -D FORWARD -o "$bridge" -j ACCEPT -m comment --comment countersign-cluster 2>/dev/null
  echo "$ip_forward_before" >/proc/sys/net/ipv4/ip_forward
  [[ -n "$bridge_nf_before" ]] && echo "$bridge_nf_before" >/proc/sys/net/bridge/bridge-nf-call-iptables
  if [[ "${KEEP_CLUSTER_DIR:-0}" != 1 ]]; then rm -rf "$dir"; fi
  log "stopped"
}
trap 'stop; exit 0' TERM INT
trap stop EXIT

start() { # name, then the command: runs in the background, output in logs/<name>.log
  local name="$1"
  shift
  "$@" >"$dir/logs/$name.log" 2>&1 &
  pids+=($!)
  pid_of[$name]=$!
}
wait_for() { # description, seconds, command
  local what="$1" seconds="$2"
  shift 2
  for _ in $(seq 1 "$((seconds * 2))"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  log "$what did not come up in ${seconds}s; logs in $dir/logs"
  tail -n 20 "$dir"/logs/*.log >&2 || true
  exit 1
}

# --- network: the bridge and the switches kube-proxy and the bridge plugin need ---------------
ip link add "$bridge" type bridge
ip addr add "$node_ip/24" dev "$bridge"
ip link set "$bridge" up
echo 1 >/proc/sys/net/ipv4/ip_forward
[[ -n "$bridge_nf_before" ]] && echo 1 >/proc/sys/net/bridge/bridge-nf-call-iptables
iptables -I FORWARD -i "$bridge" -j ACCEPT -m comment --comment countersign-cluster
iptables -I FORWARD -o "$bridge" -j ACCEPT -m comment --comment countersign-cluster
# CLUSTER_PUBLIC_HOSTS="name=address ...": servers "outside the cluster" at public addresses (the
# Gateway refuses private ones, SPEC 6.4). Each address is put on the bridge (so it is this machine,
# for the cluster's life only: it goes with the bridge) and each name into CoreDNS.
public_hosts=""
for entry in ${CLUSTER_PUBLIC_HOSTS:-}; do
  ip addr add "${entry#*=}/32" dev "$bridge"
  public_hosts+="    ${entry#*=} ${entry%%=*}"$'\n'
done

# --- certificates -------------------------------------------------------------------------------
pki="$dir/pki"
(
  cd "$pki"
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key 2>/dev/null
  openssl req -x509 -new -key ca.key -subj "/CN=countersign-cluster-ca" -days 2 -out ca.crt 2>/dev/null
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key 2>/dev/null
  openssl pkey -in sa.key -pubout -out sa.pub 2>/dev/null
  cert() { # name, subject, extensions
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null
    openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
    printf '%s\n' "$3" >"$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  }
  client="keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth"
  cert apiserver "/CN=kube-apiserver" "keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:$node_ip,IP:$kubernetes_service_ip,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert admin "/O=system:masters/CN=countersign-cluster-admin" "$client"
  cert apiserver-kubelet "/O=system:masters/CN=kube-apiserver-kubelet-client" "$client"
  cert controller-manager "/CN=system:kube-controller-manager" "$client"
  cert scheduler "/CN=system:kube-scheduler" "$client"
  cert kubelet "/O=system:nodes/CN=system:node:$node_name" "$client"
  cert kube-proxy "/CN=system:kube-proxy" "$client"
)
kubeconfig() { # name: a kubeconfig with that client certificate
  cat >"$dir/$1.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: countersign-cluster
    cluster:
      server: https://$node_ip:6443
      certificate-authority: $pki/ca.crt
users:
  - name: $1
    user:
      client-certificate: $pki/$1.crt
      client-key: $pki/$1.key
contexts:
  - name: countersign-cluster
    context: { cluster: countersign-cluster, user: $1 }
current-context: countersign-cluster
KUBECONFIG
}
for k in admin controller-manager scheduler kubelet kube-proxy; do kubeconfig "$k"; done
export KUBECONFIG="$dir/admin.kubeconfig"
kubectl() { "$bin/kubectl" "$@"; }

# --- control plane ------------------------------------------------------------------------------
start etcd "$cp_bin/etcd" --name countersign-cluster --data-dir "$dir/etcd" \
  --listen-client-urls "http://$node_ip:2379" --advertise-client-urls "http://$node_ip:2379" \
  --listen-peer-urls "http://$node_ip:2380" --initial-advertise-peer-urls "http://$node_ip:2380" \
  --initial-cluster "countersign-cluster=http://$node_ip:2380" \
  --unsafe-no-fsync
start kube-apiserver "$cp_bin/kube-apiserver" \
  --etcd-servers "http://$node_ip:2379" --bind-address "$node_ip" --advertise-address "$node_ip" --secure-port 6443 \
  --service-cluster-ip-range "$service_cidr" --allow-privileged=true \
  --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
  --client-ca-file "$pki/ca.crt" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
  --kubelet-preferred-address-types InternalIP --kubelet-client-certificate "$pki/apiserver-kubelet.crt" --kubelet-client-key "$pki/apiserver-kubelet.key" \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --api-audiences https://kubernetes.default.svc.cluster.local \
  --profiling=false
wait_for kube-apiserver 90 kubectl get --raw /readyz
start kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$dir/controller-manager.kubeconfig" \
  --secure-port 0 --leader-elect=false --use-service-account-credentials \
  --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
  --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
  --service-cluster-ip-range "$service_cidr" --controllers '*,-cloud-node-lifecycle'
start kube-scheduler "$bin/kube-scheduler" --kubeconfig "$dir/scheduler.kubeconfig" \
  --authentication-kubeconfig "$dir/scheduler.kubeconfig" --authorization-kubeconfig "$dir/scheduler.kubeconfig" \
  --bind-address "$node_ip" --secure-port 10259 --leader-elect=false

# --- node: containerd, CNI, kubelet ---------------------------------------------------------------
cat >"$dir/containerd/config.toml" <<TOML
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
[grpc]
  address = "$sock"
[ttrpc]
  address = "$dir/containerd/containerd-ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  enable_selinux = false
  # This machine does not let even root lower oom_score_adj (no CAP_SYS_RESOURCE): kubelet asks
  # -998 for sandboxes; containerd clamps it to its own value instead of runc failing.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "${CLUSTER_RUNC:-runc}"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni/net.d"
TOML
cat >"$dir/cni/net.d/10-countersign-cluster.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "countersign-cluster",
  "plugins": [
    {
      "type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$dir/cni/ipam",
                "ranges": [[{ "subnet": "$pod_cidr", "gateway": "$node_ip" }]],
                "routes": [{ "dst": "0.0.0.0/0" }] }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON
start containerd containerd --config "$dir/containerd/config.toml"
wait_for containerd 30 ctr --address "$sock" version

# Images (no registry): the pause image (the sandbox, make images) and any OCI archive given in
# CLUSTER_IMAGES (space-separated paths).
for archive in "${PAUSE_ARCHIVE:-$root/.cache/images/base-pause.tar}" ${CLUSTER_IMAGES:-}; do
  ctr --address "$sock" -n k8s.io images import "$archive" >/dev/null
done

cat >"$dir/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $node_ip
port: 10250
readOnlyPort: 0
healthzBindAddress: $node_ip
healthzPort: 10248
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $pki/ca.crt }
authorization: { mode: Webhook }
cgroupDriver: cgroupfs
cgroupRoot: $cgroup_root
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$sock
clusterDNS: [$node_ip]
clusterDomain: cluster.local
resolvConf: $dir/kubelet/resolv.conf
serializeImagePulls: false
evictionHard: { memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1% }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
maxPods: 60
YAML
# Pods resolve only cluster names (no network beyond the machine).
echo "search cluster.local" >"$dir/kubelet/resolv.conf"
# The cgroup under which kubelet puts every pod, in each hierarchy (cgroup v1 here: kubelet 1.32
# accepts it with failCgroupV1: false); cpuset needs its CPUs and memory nodes copied from the root.
for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/unified/; do
  if [[ -d "$h" ]] && mountpoint -q "$h"; then mkdir -p "$h${cgroup_root#/}"; fi
done
if [[ -f /sys/fs/cgroup/cpuset/cpuset.cpus ]]; then
  cat /sys/fs/cgroup/cpuset/cpuset.cpus >"/sys/fs/cgroup/cpuset$cgroup_root/cpuset.cpus"
  cat /sys/fs/cgroup/cpuset/cpuset.mems >"/sys/fs/cgroup/cpuset$cgroup_root/cpuset.mems"
fi
start kubelet "$bin/kubelet" --config "$dir/kubelet/config.yaml" --kubeconfig "$dir/kubelet.kubeconfig" \
  --root-dir "$dir/kubelet/root" --cert-dir "$dir/kubelet/pki" --hostname-override "$node_name" --node-ip "$node_ip"

# --- kube-proxy and CoreDNS (processes on the node, bound to the bridge's address) -------------
cat >"$dir/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: { kubeconfig: $dir/kube-proxy.kubeconfig }
hostnameOverride: $node_name
bindAddress: $node_ip
clusterCIDR: $pod_cidr
healthzBindAddress: $node_ip:10256
metricsBindAddress: $node_ip:10249
nodePortAddresses: ["$pod_cidr"]
conntrack: { maxPerCore: 0, min: 0 }
YAML
start kube-proxy "$bin/kube-proxy" --config "$dir/kube-proxy.yaml"
cat >"$dir/Corefile" <<COREFILE
.:53 {
  bind $node_ip
  errors
  hosts {
$public_hosts    fallthrough
  }
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $dir/admin.kubeconfig countersign-cluster
    pods insecure
    fallthrough in-addr.arpa ip6.arpa
  }
  cache 5
}
COREFILE
start coredns "$bin/coredns" -conf "$dir/Corefile"

wait_for "node $node_name" 120 sh -c "'$bin/kubectl' get node '$node_name' -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
wait_for "the default ServiceAccount" 60 kubectl -n default get serviceaccount default

# Two local volumes for PersistentVolumeClaims without a StorageClass (the chart's trial database).
for n in 1 2; do
  mkdir -p "$dir/volumes/pv$n"
  chmod 0777 "$dir/volumes/pv$n"
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: { name: countersign-cluster-pv$n }
spec:
  capacity: { storage: 20Gi }
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Delete
  hostPath: { path: $dir/volumes/pv$n, type: Directory }
YAML
done

touch "$dir/ready"
log "ready: KUBECONFIG=$dir/admin.kubeconfig (node $node_name, $node_ip)"
while :; do
  for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then log "a cluster process ($pid) exited; see $dir/logs"; exit 1; fi
  done
  sleep 2
done
