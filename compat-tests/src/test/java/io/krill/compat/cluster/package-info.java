/**
 * Stock Kafka clients and tools against a Krill cluster of several broker processes.
 *
 * <p>{@link io.krill.compat.cluster.KrillCluster} runs one ZooKeeper in the test JVM and each broker as
 * its own process from the built distribution ({@code bin/krill-server-start.sh}), so tests can do to a
 * broker what operators and failures do: SIGKILL, SIGTERM, SIGSTOP/SIGCONT, restart on the same data.
 * {@link io.krill.compat.cluster.KrillClusterExtension} shares one cluster per test class, heals it after
 * each test and attaches the brokers' logs to failures. Leader epochs, which the Admin client does not
 * show, come from raw Metadata requests ({@link io.krill.compat.cluster.RawRequests}).
 */
package io.krill.compat.cluster;
