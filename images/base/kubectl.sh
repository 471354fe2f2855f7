#!/usr/bin/env bash
# Base image KUBECTL_IMAGE, for the chart's CRD upgrade Job (crds.upgradeJob.image): kubectl built
# from the cluster's Kubernetes version (test/cluster/build.sh), alone on an empty image (the Job
# runs `kubectl apply`, no shell).
set -euo pipefail
# shellcheck source=images/base/common.sh
source "$(dirname "$0")/common.sh"
has_image "$KUBECTL_IMAGE" && { echo "$KUBECTL_IMAGE already built"; exit 0; }

"$root/test/cluster/build.sh" >/dev/null
c="$(bh from scratch)"
bh copy --chmod 0755 "$c" "$root/.cache/cluster/$KUBERNETES_VERSION/kubectl" /usr/local/bin/kubectl
bh config --env HOME=/tmp --user 65532:65532 --entrypoint '["/usr/local/bin/kubectl"]' --cmd '' "$c"
bh commit --quiet --rm "$c" "$KUBECTL_IMAGE" >/dev/null
rm -f "$images_cache/base-kubectl.tar"
echo "built $KUBECTL_IMAGE"
