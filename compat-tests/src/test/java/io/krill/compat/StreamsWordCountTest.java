package io.krill.compat;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.krill.compat.support.Clients;
import io.krill.compat.support.TransactionApis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Streams 4.4 application, unchanged: word count (lines -> flatMapValues into words -> groupBy
 * word, through a repartition topic -> count in a RocksDB store with a changelog topic -> output topic)
 * against one Krill broker. The stock Java consumer reads the output topic; the last count of every
 * word must be its number of occurrences in the input. With the record cache off every update is
 * emitted, so under exactly_once_v2 the counts of a word must be exactly 1, 2, ..., n: nothing
 * duplicated, nothing lost. exactly_once_v2 fails at once (naming the missing APIs) if the broker does
 * not advertise the transaction APIs.
 */
class StreamsWordCountTest {
    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("offsets.topic.num.partitions", "3")
            .with("transaction.state.log.num.partitions", "3")
            .with("group.initial.rebalance.delay.ms", "0");

    private static final Duration WAIT = Duration.ofSeconds(45);
    private static final List<String> TEXT = List.of(
            "The quick brown fox jumps over the lazy dog",
            "the dog barks; the fox runs",
            "A lazy afternoon, a quick nap",
            "Brown bread and brown rice",
            "Jumps, runs, naps: the fox and the dog");

    @TempDir
    Path stateDir;

    @Test
    void wordCountAtLeastOnce() throws Exception {
        Map<String, List<Long>> counts = runWordCount("wc-alo", StreamsConfig.AT_LEAST_ONCE);
        assertEquals(expectedCounts(), lastValues(counts));
    }

    @Test
    void wordCountExactlyOnceV2() throws Exception {
        TransactionApis.assertServed(KRILL.apis());
        Map<String, List<Long>> counts = runWordCount("wc-eos", StreamsConfig.EXACTLY_ONCE_V2);
        assertEquals(expectedCounts(), lastValues(counts));
        Map<String, List<Long>> sequences = new HashMap<>();
        expectedCounts().forEach((word, n) -> sequences.put(word, IntStream.rangeClosed(1, n.intValue())
                .mapToObj(Long::valueOf).toList()));
        assertEquals(sequences, counts, "every count exactly once, in order");
    }

    /** Runs the application until the output holds every final count; returns the counts per word. */
    private Map<String, List<Long>> runWordCount(String applicationId, String guarantee) throws Exception {
        String input = applicationId + "-lines";
        String output = applicationId + "-counts";
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(input, 2, (short) 1), new NewTopic(output, 2, (short) 1)))
                    .all().get(60, TimeUnit.SECONDS);
        }
        Map<String, Long> expected = expectedCounts();
        Map<String, List<Long>> counts = new HashMap<>();
        KafkaStreams streams = new KafkaStreams(wordCount(input, output), properties(applicationId, guarantee));
        try (KafkaConsumer<String, Long> reader = outputReader(output)) {
            streams.start();
            produceLines(input);
            await("final counts on " + output).atMost(WAIT).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                reader.poll(Duration.ofMillis(200)).forEach(r -> counts.computeIfAbsent(r.key(),
                        k -> new ArrayList<>()).add(r.value()));
                assertEquals(KafkaStreams.State.RUNNING, streams.state());
                assertEquals(expected, lastValues(counts));
            });
        } finally {
            streams.close(Duration.ofSeconds(30));
            streams.cleanUp();
        }
        return counts;
    }

    private static Topology wordCount(String input, String output) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(StreamsWordCountTest::words)
                .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as("word-counts"))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private Properties properties(String applicationId, String guarantee) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KRILL.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return props;
    }

    private static void produceLines(String input) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < TEXT.size(); i++) {
                acks.add(producer.send(new ProducerRecord<>(input, "line-" + i, TEXT.get(i))));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
    }

    /** Both partitions of the output from the beginning, read_committed: EOS output counts once committed. */
    private static KafkaConsumer<String, Long> outputReader(String output) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new LongDeserializer());
        List<TopicPartition> partitions = List.of(new TopicPartition(output, 0), new TopicPartition(output, 1));
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return consumer;
    }

    private static List<String> words(String line) {
        return Arrays.stream(line.toLowerCase(Locale.ROOT).split("\\W+")).filter(w -> !w.isEmpty()).toList();
    }

    private static Map<String, Long> expectedCounts() {
        Map<String, Long> counts = new HashMap<>();
        TEXT.forEach(line -> words(line).forEach(w -> counts.merge(w, 1L, Long::sum)));
        return counts;
    }

    private static Map<String, Long> lastValues(Map<String, List<Long>> counts) {
        Map<String, Long> last = new HashMap<>();
        counts.forEach((word, values) -> last.put(word, values.get(values.size() - 1)));
        return last;
    }
}
