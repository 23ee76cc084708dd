/**
 * Kafka Connect 4.4 and MirrorMaker 2 against Krill: the real runtime (connect-runtime 4.4.0 from Maven
 * Central, test scope) in worker JVMs of their own ({@link io.krill.compat.connect.ConnectProcess}), driven
 * through Connect's REST API ({@link io.krill.compat.connect.ConnectRest}) or MirrorMaker's properties file.
 *
 * <p>The plugins are connect-file and connect-mirror 4.3.1, the newest on Maven Central: they run on the
 * 4.4.0 runtime with two bridge classes ({@code org.apache.kafka.common.utils.AppInfoParser} and
 * {@code Exit}, in the test sources) for the two kafka-clients classes 4.4 moved to an internals package;
 * ConnectProcess puts only those two on the workers' class path.
 */
package io.krill.compat.connect;
