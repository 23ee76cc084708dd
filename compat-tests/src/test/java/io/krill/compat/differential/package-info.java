/**
 * Differential conformance: Krill's answers compared field by field with Apache Kafka 4.4's.
 *
 * <p>{@link io.krill.compat.differential.DifferentialNodes} starts, once for the run, a Kafka 4.4 KRaft node
 * in a JVM of its own ({@link io.krill.compat.differential.KafkaKraftProcess}) and an in-process Krill broker,
 * configured alike; {@link io.krill.compat.differential.SecureNodes} a second pair behind SASL_PLAINTEXT
 * (PLAIN) with the ACL authorizer; {@link io.krill.compat.differential.RestartedNodes} a third, of one class, restarted
 * once so that a partition has a stale leader epoch. One test class per API family (topics, produce and fetch, group offsets,
 * classic groups, KIP-848 groups, configs, transactions, operations, versions and security, authorization,
 * raw frames) extends {@link io.krill.compat.differential.DifferentialTest} and runs
 * {@link io.krill.compat.differential.Sequence}s: each names its API and its lowest meaningful version and
 * is compared at every version from there to the highest both brokers serve and the 4.4 client knows
 * ({@link io.krill.compat.differential.RequestVersions}). Requests are Krill's generated codecs
 * ({@link io.krill.compat.differential.ClientRequests}, {@link io.krill.compat.differential.GroupRequests},
 * {@link io.krill.compat.differential.TransactionRequests}, {@link io.krill.compat.differential.AdminRequests}),
 * sent by {@link io.krill.compat.differential.ConformanceClient} (raw bytes by
 * {@link io.krill.compat.differential.RawExchange}); answers are decoded and written as JSON by kafka-clients
 * ({@link io.krill.compat.differential.ResponseJson}, Fetch's record bytes included), random-by-design ids
 * are named ({@link io.krill.compat.differential.BrokerSide#names()}), and
 * {@link io.krill.compat.differential.ResponseDiff} reports every path where they differ, except those the
 * short {@link io.krill.compat.differential.AllowList} names with a reason.
 * {@link io.krill.compat.differential.Coverage} writes per (API, version) what was compared to
 * {@code target/differential-coverage.txt}.
 */
package io.krill.compat.differential;
