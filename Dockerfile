# Krill: a drop-in for the apache/kafka image, built from source in two stages.
#   docker build -t krill .
#   docker run -p 9092:9092 krill
# Stage 1 builds the distribution with Maven (dependencies from Maven Central; a BuildKit/buildah cache keeps
# them between builds). Stage 2 is a Java 17 runtime with the distribution, run as a non-root uid.
# Both images are build arguments, so that locally made images serve where no registry is reachable
# (docker/make-base-image.sh makes both; docker/test-image.sh builds, runs and checks the image):
#   docker build --build-arg BUILD_IMAGE=localhost/krill-build-jdk17 \
#                --build-arg BASE_IMAGE=localhost/krill-base-jre17 -t krill .
# With podman, build with --format docker (the OCI image format has no HEALTHCHECK) and --network=host
# where the build needs the host's route to Maven Central.
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG BASE_IMAGE=eclipse-temurin:17-jre

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# Maven reads every module's pom (the parent lists them all), so compat-tests' pom comes too; its sources do not.
COPY pom.xml ./
COPY wire/ wire/
COPY log/ log/
COPY controller/ controller/
COPY broker/ broker/
COPY compat-tests/pom.xml compat-tests/
COPY bin/ bin/
COPY config/ config/
COPY README.md ./
RUN --mount=type=cache,target=/root/.m2 \
    set -eu; \
    mvn -B -q -DskipTests -pl broker -am package; \
    mkdir /dist; \
    cp -a broker/target/krill/krill-*/. /dist/; \
    test -d /dist/libs

FROM ${BASE_IMAGE}
# The broker runs as this uid (numeric, so that runAsNonRoot-style checks can verify it). If the base image
# already has a user with this uid (Ubuntu-based images have "ubuntu" as 1000), that user is used.
ARG KRILL_UID=1000
# The data directory belongs to the broker's uid and to group 0, group-writable, so that the image also runs
# under an arbitrary uid in group 0 (docker run --user 12345:0, OpenShift).
RUN set -eu; \
    if ! getent passwd "${KRILL_UID}" >/dev/null; then \
      getent group "${KRILL_UID}" >/dev/null || groupadd --gid "${KRILL_UID}" krill; \
      useradd --uid "${KRILL_UID}" --gid "${KRILL_UID}" --home-dir /opt/krill --no-create-home \
        --shell /usr/sbin/nologin krill; \
    fi; \
    mkdir -p /var/lib/krill/data; \
    chown -R "${KRILL_UID}:0" /var/lib/krill; \
    chmod -R g=u /var/lib/krill

# The distribution (owned by root: the broker cannot change its own code or configuration).
COPY --from=build /dist/ /opt/krill/
COPY docker/server.properties /opt/krill/config/docker/server.properties
COPY docker/entrypoint.sh /opt/krill/bin/docker-entrypoint.sh
COPY docker/healthcheck.sh /opt/krill/bin/docker-healthcheck.sh

USER ${KRILL_UID}
WORKDIR /opt/krill
VOLUME ["/var/lib/krill/data"]
EXPOSE 9092
# Healthy when the broker's first client listener (as the broker process was given it: --override, KAFKA_LISTENERS
# or the configuration file) accepts connections; the broker opens its listeners only once its logs are loaded.
HEALTHCHECK --interval=5s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/opt/krill/bin/docker-healthcheck.sh"]
ENTRYPOINT ["/opt/krill/bin/docker-entrypoint.sh"]
