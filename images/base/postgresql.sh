#!/usr/bin/env bash
# Base image POSTGRESQL_IMAGE, for the chart's trial in-cluster database (postgresql.image): Debian
# minbase + Debian's postgresql-15, run as 70:70 like the postgres:*-alpine image the chart's
# securityContext names, with an entrypoint that honours the same environment (POSTGRES_USER,
# POSTGRES_PASSWORD, POSTGRES_DB, PGDATA): it initialises an empty data folder, then runs postgres.
set -euo pipefail
# shellcheck source=images/base/common.sh
source "$(dirname "$0")/common.sh"
has_image "$POSTGRESQL_IMAGE" && { echo "$POSTGRESQL_IMAGE already built"; exit 0; }

rootfs="$(debian_rootfs postgresql postgresql-15)"
c="$(bh from scratch)"
mnt="$(bh mount "$c")"
tar -C "$mnt" --numeric-owner -xf "$rootfs"
# The package's own cluster (15/main) is not used: the entrypoint makes one in PGDATA.
rm -rf "$mnt/var/lib/postgresql/15" "$mnt/etc/postgresql/15/main"
chroot "$mnt" groupmod --gid 70 postgres
chroot "$mnt" usermod --uid 70 --gid 70 postgres
chroot "$mnt" chown -R 70:70 /var/lib/postgresql /var/run/postgresql
install -m 0755 "$(dirname "$0")/postgresql-entrypoint.sh" "$mnt/usr/local/bin/postgresql-entrypoint"
bh umount "$c" >/dev/null
bh config --env PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin \
  --env PGDATA=/var/lib/postgresql/data --user 70:70 \
  --entrypoint '["/usr/local/bin/postgresql-entrypoint"]' --cmd '' --port 5432 "$c"
bh commit --quiet --rm "$c" "$POSTGRESQL_IMAGE" >/dev/null
rm -f "$images_cache/base-postgresql.tar"
echo "built $POSTGRESQL_IMAGE"
