package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.NewTopic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listener that takes its time (the partition manager creating thousands of logs) holds back neither
 * the image nor CreateTopics' answer, and is told of everything it missed when it is done.
 */
@Timeout(60)
class SlowListenerTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final BrokerInfo SELF = new BrokerInfo(1, null,
            Map.of("PLAINTEXT", new BrokerInfo.Endpoint("PLAINTEXT", "localhost", 9092)));

    @TempDir
    Path dir;

    @Test
    void createTopicsIsAnsweredFromThePublishedImageWhileAListenerIsBusy() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir.resolve("zk"), 0);
             ZooKeeperMetadataStore store = new ZooKeeperMetadataStore(
                     ZooKeeperStoreConfig.of(zk.connectString() + "/krill/slow", "slow", 1)
                             .withSessionTimeoutMs(10_000))) {
            CountDownLatch busy = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<MetadataImage[]> seen = new CopyOnWriteArrayList<>();
            store.addListener((previous, current) -> {
                seen.add(new MetadataImage[] {previous, current});
                if (current.topic("slow") != null && previous.topic("slow") == null) {
                    busy.countDown();
                    try {
                        release.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            store.registerBroker(SELF);
            await().atMost(PATIENCE).until(() -> !store.isFenced());
            try {
                assertNotNull(store.createTopic(NewTopic.of("slow", 2, 1)));
                assertTrue(busy.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS), "the listener got the topic");

                // The listener is still busy with "slow": the next creation is answered all the same.
                CompletableFuture<?> next = store.createTopics(List.of(NewTopic.of("next", 3, 1)));
                next.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
                assertNotNull(store.image().topic("next"), "served from the image at once");
                assertFalse(seen.stream().anyMatch(pair -> pair[1].topic("next") != null),
                        "the listener has not been told yet");
            } finally {
                release.countDown();
            }
            await().atMost(PATIENCE).until(() -> seen.stream().anyMatch(pair -> pair[1].topic("next") != null));
            MetadataImage[] last = seen.get(seen.size() - 1);
            assertEquals(3, last[1].topic("next").partitionCount());
            for (int i = 1; i < seen.size(); i++) {
                assertTrue(seen.get(i)[0] == seen.get(i - 1)[1], "each change starts where the last one ended");
            }
        }
    }
}
