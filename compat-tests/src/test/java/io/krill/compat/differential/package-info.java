/**
 * Differential conformance: Krill's answers compared field by field with Apache Kafka 4.4's.
 *
 * <p>{@link io.krill.compat.differential.DifferentialConformanceTest} sends the same request sequences
 * to a Kafka 4.4 KRaft node that it starts in a JVM of its own ({@link
 * io.krill.compat.differential.KafkaKraftProcess}) and to an in-process Krill broker. Requests are encoded
 * by Krill's generated codecs ({@link io.krill.compat.differential.ClientRequests}, sent by {@link
 * io.krill.compat.differential.ConformanceClient}), answers are decoded and written as JSON by
 * kafka-clients ({@link io.krill.compat.differential.ResponseJson}), and {@link
 * io.krill.compat.differential.ResponseDiff} reports every path where they differ, except those the
 * short {@link io.krill.compat.differential.AllowList} names with a reason.
 */
package io.krill.compat.differential;
