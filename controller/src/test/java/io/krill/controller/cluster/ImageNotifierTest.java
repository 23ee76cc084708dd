package io.krill.controller.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The apply thread's story: ordered, coalesced while listeners are busy, fencing kept in place. */
@Timeout(30)
class ImageNotifierTest {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private static MetadataImage image() {
        return new MetadataImage(null, -1, List.of(), List.of());
    }

    @Test
    void imagesPublishedWhileAListenerIsBusyAreCoalescedAndWaitersCompleteAfterTheirApply() throws Exception {
        MetadataImage initial = image();
        MetadataImage first = image();
        MetadataImage second = image();
        MetadataImage third = image();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<MetadataImage[]> calls = new CopyOnWriteArrayList<>();
        MetadataListener slow = (previous, current) -> {
            calls.add(new MetadataImage[] {previous, current});
            if (current == first) {
                entered.countDown();
                try {
                    release.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        ImageNotifier notifier = new ImageNotifier(List.of(slow), List.of(), (l, e) -> { }, initial, "test-apply");
        notifier.start();
        try {
            CompletableFuture<MetadataImage> w1 = new CompletableFuture<>();
            CompletableFuture<MetadataImage> w2 = new CompletableFuture<>();
            CompletableFuture<MetadataImage> w3 = new CompletableFuture<>();
            notifier.imagePublished(first, List.of(w1));
            assertTrue(entered.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS));
            notifier.imagePublished(second, List.of(w2));
            notifier.imagePublished(third, List.of(w3));
            assertFalse(w1.isDone(), "not applied yet: the listener is still busy with it");
            release.countDown();
            assertSame(first, w1.get(10, TimeUnit.SECONDS));
            assertSame(second, w2.get(10, TimeUnit.SECONDS), "a waiter gets the image it waited for");
            assertSame(third, w3.get(10, TimeUnit.SECONDS));
            assertEquals(2, calls.size(), "the two images published while busy came as one change");
            assertSame(initial, calls.get(0)[0]);
            assertSame(first, calls.get(0)[1]);
            assertSame(first, calls.get(1)[0], "previous is always what the listener was last told");
            assertSame(third, calls.get(1)[1]);
        } finally {
            release.countDown();
            notifier.close();
        }
    }

    @Test
    void fencingChangesStayBetweenTheImagesTheyCameBetween() {
        MetadataImage initial = image();
        MetadataImage before = image();
        MetadataImage after = image();
        List<String> story = new CopyOnWriteArrayList<>();
        MetadataListener images = (previous, current) -> story.add(
                (previous == initial ? "initial" : previous == before ? "before" : "?") + "->"
                        + (current == before ? "before" : current == after ? "after" : "?"));
        FencingListener fencing = fenced -> story.add("fenced=" + fenced);
        ImageNotifier notifier = new ImageNotifier(List.of(images), List.of(fencing), (l, e) -> { }, initial,
                "test-apply");
        // queued before the thread starts, so that one drain sees them all: coalescing must stop at the fence
        notifier.imagePublished(before, List.of());
        notifier.fencingChanged(true);
        notifier.imagePublished(after, List.of());
        notifier.start();
        try {
            await().atMost(PATIENCE).until(() -> story.size() == 3);
            assertEquals(List.of("initial->before", "fenced=true", "before->after"), story);
        } finally {
            notifier.close();
        }
    }

    @Test
    void aFailingListenerDoesNotKeepTheImageFromTheOthers() throws Exception {
        MetadataImage next = image();
        AtomicInteger failures = new AtomicInteger();
        List<MetadataImage> seen = new CopyOnWriteArrayList<>();
        MetadataListener broken = (previous, current) -> {
            throw new IllegalStateException("broken on purpose");
        };
        ImageNotifier notifier = new ImageNotifier(List.of(broken, (previous, current) -> seen.add(current)),
                List.of(), (l, e) -> failures.incrementAndGet(), image(), "test-apply");
        notifier.start();
        try {
            CompletableFuture<MetadataImage> waiter = new CompletableFuture<>();
            notifier.imagePublished(next, List.of(waiter));
            assertSame(next, waiter.get(10, TimeUnit.SECONDS));
            assertEquals(List.of(next), seen);
            assertEquals(1, failures.get());
        } finally {
            notifier.close();
        }
    }
}
