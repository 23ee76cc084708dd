#!/usr/bin/env bash
# Makes the local images the Dockerfile's two stages build from where no image registry is reachable:
# a minimal Debian (debootstrap, from a Debian package mirror) imported into podman (or docker).
#   docker/make-base-image.sh [image]           the runtime: openjdk-17-jre-headless (localhost/krill-base-jre17)
#   docker/make-base-image.sh --build [image]   the build stage: openjdk-17-jdk-headless and Maven
#                                               (localhost/krill-build-jdk17)
# Idempotent: does nothing if the image exists.
# Environment: CONTAINER_CLI (podman), DEBIAN_SUITE (bookworm), DEBIAN_MIRROR (http://deb.debian.org/debian).
# Needs root (debootstrap) and the debootstrap package.
set -euo pipefail
kind=runtime
if [ "${1:-}" = --build ]; then kind=build; shift; fi
if [ $kind = build ]; then
  image=${1:-localhost/krill-build-jdk17}
  packages=openjdk-17-jdk-headless,maven,bash
  what="openjdk-17-jdk-headless + maven"
else
  image=${1:-localhost/krill-base-jre17}
  packages=openjdk-17-jre-headless,bash
  what="openjdk-17-jre-headless"
fi
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
debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror"

# The build stage downloads from Maven Central over TLS: trust the CAs this host added locally (an
# intercepting proxy's, a company's), as the host's own Maven does. Debian's hook adds them to Java's cacerts.
if [ $kind = build ] && compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
  mount -t proc proc "$rootfs/proc"
  chroot "$rootfs" update-ca-certificates
  umount "$rootfs/proc"
fi

# Smaller image: no package caches, lists, documentation or manuals (Java and Maven do not need them).
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
java_home=$(cd "$rootfs" && ls -d usr/lib/jvm/java-17-openjdk-* | head -n 1)
[ -n "$java_home" ] || { echo "no Java 17 under $rootfs/usr/lib/jvm" >&2; exit 1; }
"$rootfs/$java_home/bin/java" -version 2>&1 | head -n 1 || true

tar --numeric-owner -C "$rootfs" -c . | "$cli" import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV JAVA_HOME=/$java_home" \
  --change "ENV LANG=C.UTF-8" \
  --change 'CMD ["/bin/bash"]' \
  --message "Debian $suite minbase + $what (docker/make-base-image.sh)" \
  - "$image"
echo "Made $image in $(( $(date +%s) - start )) s"
"$cli" image ls "$image"
