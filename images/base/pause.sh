#!/usr/bin/env bash
# Base image PAUSE_IMAGE: the pod sandbox's process (kubernetes' build/pause, compiled statically by
# test/cluster/build.sh), alone on an empty image; containerd's sandbox_image in the test cluster.
set -euo pipefail
# shellcheck source=images/base/common.sh
source "$(dirname "$0")/common.sh"
has_image "$PAUSE_IMAGE" && { echo "$PAUSE_IMAGE already built"; exit 0; }

"$root/test/cluster/build.sh" >/dev/null
c="$(bh from scratch)"
bh copy --chmod 0755 "$c" "$root/.cache/cluster/$KUBERNETES_VERSION/pause" /pause
bh config --user 65535:65535 --entrypoint '["/pause"]' --cmd '' "$c"
bh commit --quiet --rm "$c" "$PAUSE_IMAGE" >/dev/null
rm -f "$images_cache/base-pause.tar"
echo "built $PAUSE_IMAGE"
