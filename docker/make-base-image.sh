#!/usr/bin/env bash
# Makes a local Java 17 runtime image to build Krill's image from where no image registry is reachable:
# a minimal Debian (debootstrap, from a Debian package mirror) with openjdk-17-jre-headless, imported into
# podman (or docker) as localhost/krill-base-jre17. Idempotent: does nothing if the image exists.
#   docker/make-base-image.sh [image]
# Environment: CONTAINER_CLI (podman), DEBIAN_SUITE (bookworm), DEBIAN_MIRROR (http://deb.debian.org/debian).
# Needs root (debootstrap) and the debootstrap package.
set -euo pipefail
image=${1:-localhost/krill-base-jre17}
cli=${CONTAINER_CLI:-podman}
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if "$cli" image inspect "$image" >/dev/null 2>&1; then
  echo "Base image $image exists; nothing to do"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }

rootfs=$(mktemp -d /var/tmp/krill-base-rootfs.XXXXXX)
cleanup() {
  # debootstrap may leave /proc or /sys mounted in the chroot after a failure; never delete through a mount.
  for m in proc sys dev/pts dev; do
    mountpoint -q "$rootfs/$m" 2>/dev/null && umount -l "$rootfs/$m" || true
  done
  rm -rf --one-file-system "$rootfs"
}
trap cleanup EXIT

echo "debootstrap $suite from $mirror into $rootfs"
start=$(date +%s)
debootstrap --variant=minbase --include=openjdk-17-jre-headless,bash "$suite" "$rootfs" "$mirror"

# Smaller image: no package caches, lists, documentation or manuals (the JRE does not need them).
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
java_home=$(cd "$rootfs" && ls -d usr/lib/jvm/java-17-openjdk-* | head -n 1)
[ -n "$java_home" ] || { echo "no JRE 17 under $rootfs/usr/lib/jvm" >&2; exit 1; }
"$rootfs/$java_home/bin/java" -version 2>&1 | head -n 1 || true

tar --numeric-owner -C "$rootfs" -c . | "$cli" import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV JAVA_HOME=/$java_home" \
  --change "ENV LANG=C.UTF-8" \
  --change 'CMD ["/bin/bash"]' \
  --message "Debian $suite minbase + openjdk-17-jre-headless (docker/make-base-image.sh)" \
  - "$image"
echo "Made $image in $(( $(date +%s) - start )) s"
"$cli" image ls "$image"
