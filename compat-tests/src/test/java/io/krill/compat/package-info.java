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
 * <p>Tests of features the broker does not serve yet assume on what it advertises in ApiVersions
 * ({@link io.krill.compat.support.BrokerApis}), so that they start running when it does. A test that
 * shows a broker bug is {@code @Disabled} with the bug in its reason.
 */
package io.krill.compat;
