# Krill: a drop-in for the apache/kafka image.
#   mvn -B -DskipTests package && docker build -t krill .
#   docker run -p 9092:9092 krill
# The base is a build argument so that a locally made JRE image can be used where no registry is
# reachable: docker build --build-arg BASE_IMAGE=localhost/jre17 -t krill .
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}

ARG KRILL_VERSION=0.1.0-SNAPSHOT
RUN groupadd --system --gid 1000 krill 2>/dev/null || true; \
    useradd --system --uid 1000 --gid 1000 --home-dir /opt/krill --shell /usr/sbin/nologin krill 2>/dev/null || true; \
    mkdir -p /var/lib/krill/data && chown -R 1000:1000 /var/lib/krill

COPY broker/target/krill/krill-${KRILL_VERSION}/ /opt/krill/
COPY docker/server.properties /opt/krill/config/docker/server.properties
COPY docker/entrypoint.sh /opt/krill/bin/docker-entrypoint.sh

USER 1000:1000
WORKDIR /opt/krill
VOLUME ["/var/lib/krill/data"]
EXPOSE 9092
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD bash -c 'exec 3<>/dev/tcp/127.0.0.1/9092' || exit 1
ENTRYPOINT ["/opt/krill/bin/docker-entrypoint.sh"]
