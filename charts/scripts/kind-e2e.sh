#!/usr/bin/env bash
# `make kind-e2e`: charts/countersign end to end in a throwaway kind cluster, for machines with a
# container engine (docker or podman) and kind. Builds and loads the image, installs the chart
# with the in-cluster trial PostgreSQL, waits for every server, applies the sample Organization,
# writes an organization ready for decisions and runs one decision through the in-cluster Gateway Service.
# KEEP_CLUSTER=1 leaves the cluster for a look around.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cluster="${KIND_CLUSTER:-countersign-e2e}"
ns=countersign-system
helm="$root/.cache/helm/$(cat "$root/charts/scripts/helm-version")/helm"
image=countersign
tag=e2e

command -v kind >/dev/null 2>&1 || { echo "kind-e2e: kind is not installed (https://kind.sigs.k8s.io)" >&2; exit 1; }
command -v kubectl >/dev/null 2>&1 || { echo "kind-e2e: kubectl is not installed" >&2; exit 1; }
IMAGE="$image" TAG="$tag" "$root/images/build.sh"

cleanup() {
  if [[ -n "${forward_pid:-}" ]]; then kill "$forward_pid" 2>/dev/null || true; fi
  if [[ "${KEEP_CLUSTER:-0}" != 1 ]]; then kind delete cluster --name "$cluster" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

kind create cluster --name "$cluster" --wait 120s
kubectl config use-context "kind-$cluster"
kind load docker-image "$image:$tag" --name "$cluster"

"$helm" install countersign "$root/charts/countersign" --namespace "$ns" --create-namespace \
  --set image.repository="$image" --set image.tag="$tag" --set image.pullPolicy=Never \
  --set postgresql.enabled=true --set postgresql.image=docker.io/library/postgres:17-alpine \
  --set api.replicas=1 --set gateway.autoscaling.minReplicas=1 \
  --wait --timeout 10m
kubectl -n "$ns" rollout status deployment/countersign-api deployment/countersign-gateway deployment/countersign-operator --timeout=5m

# The servers answer inside the cluster, through their Services.
kubectl -n "$ns" run probe --rm -i --restart=Never --image=curlimages/curl:8.11.1 -- \
  sh -c 'curl -fsS http://countersign-api:8080/readyz && curl -fsS http://countersign-gateway:8081/readyz'

# The sample Organization is accepted by the CRD (its reconcile needs an owner's binding, see NOTES).
kubectl create namespace payments-team
kubectl apply -f "$root/config/samples/organization.yaml"

# An organization ready for decisions, written through a port-forward to the trial database.
kubectl -n "$ns" port-forward svc/countersign-postgresql 15432:5432 >/dev/null &
forward_pid=$!
sleep 3
password="$(kubectl -n "$ns" get secret countersign-database -o jsonpath='{.data.POSTGRES_PASSWORD}' | base64 -d)"
key_hash_secret="$(kubectl -n "$ns" get secret countersign-secrets -o jsonpath='{.data.COUNTERSIGN_KEY_HASH_SECRET}' | base64 -d)"
seed="$(cd "$root" && DATABASE_URL="postgres://countersign:$password@127.0.0.1:15432/countersign" COUNTERSIGN_KEY_HASH_SECRET="$key_hash_secret" \
  node --conditions=countersign-source --import tsx charts/scripts/kind-seed.ts)"
key="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).gateway_key)' "$seed")"
body="$(node -e 'const s=JSON.parse(process.argv[1]); process.stdout.write(JSON.stringify({tool:s.tool,arguments:s.arguments,idempotency_key:"kind-e2e-1"}))' "$seed")"

# One decision through the in-cluster Gateway Service.
answer="$(kubectl -n "$ns" run decide --rm -i --restart=Never --image=curlimages/curl:8.11.1 -- \
  curl -sS -X POST http://countersign-gateway:8081/v1/authorize -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$body")"
echo "$answer"
echo "$answer" | grep -q '"allowed":true' || { echo "kind-e2e: the decision was not allowed" >&2; exit 1; }
echo "kind-e2e: passed"
