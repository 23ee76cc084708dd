/**
 * Stock Kafka clients and tools against a running Krill broker: the judges of compatibility.
 *
 * <p>Every test class starts its own broker in-process ({@link io.krill.compat.KrillBrokerExtension}, a
 * free loopback port, its own data folder) and uses its own topic names. A failing test carries the
 * last lines the broker logged (a suppressed exception on the failure).
 *
 * <ul>
 *   <li>Kafka 4.4's command-line tools run in this JVM through {@link io.krill.compat.support.ToolRunner}
 *       (their {@code main}, standard streams captured, {@code Exit.exit} turned into an exit code,
 *       shutdown hooks run as the JVM would): TopicCommandTest, ConsoleToolsTest, GetOffsetShellTest,
 *       DeleteRecordsCommandTest, ConfigCommandTest, PerformanceToolsTest, ClusterToolsTest.</li>
 *   <li>Native clients run as processes with a deadline ({@link io.krill.compat.support.Processes}):
 *       KcatTest (librdkafka), PythonClientTest (confluent-kafka-python). They are skipped only when the
 *       program or module is missing; .ci/run installs both.</li>
 *   <li>Older Java clients (OldJavaClientTest): kafka-clients 2.8.2 and 3.6.2, copied by the build into
 *       target/old-clients, each in its own class loader.</li>
 *   <li>The 4.4 Java client itself: ProduceConsumeTest, ClientEdgeCasesTest, LogAppendTimeTest.</li>
 * </ul>
 *
 * <p>A test is skipped only when its environment is truly missing (kcat or confluent_kafka not installed,
 * not root for the fault campaign); never because of what the broker advertises. Every API is served,
 * so a test that needs some asserts on ApiVersions ({@link io.krill.compat.support.BrokerApis#assertServes},
 * {@link io.krill.compat.support.TransactionApis}): a handler dropped from the broker's table fails it,
 * naming the API. A test that shows a broker bug is {@code @Disabled} with the bug in its reason.
 *
 * <p>No test can wait forever: conditions are awaited with a bound (Awaitility's {@code atMost}), futures,
 * joins and processes with a timeout that fails the test; nothing asserts on wall-clock time (timing is
 * bench/'s), and a deliberate quiet period is an Awaitility {@code during}, not a bare sleep.
 */
package io.krill.compat;
