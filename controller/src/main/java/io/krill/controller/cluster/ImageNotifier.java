package io.krill.controller.cluster;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BiConsumer;

/**
 * Hands the images that {@link MetadataWatcher} publishes to this broker's listeners on a thread of its
 * own, so that what the listeners do with an image (create thousands of logs, start fetchers, load a
 * group coordinator's partitions) does not delay the reading of ZooKeeper and the publication of the
 * next image.
 *
 * <p>Listeners still see one ordered story: every listener is called with (the image it was last
 * told of, a newer one), in publication order, with fencing changes in between exactly where they came
 * relative to the images. Images published while the listeners were busy are coalesced into the
 * newest one: a listener compares the two images it is given, so it loses nothing by skipping the
 * ones in between, and a slow apply cannot build a backlog of them.
 *
 * <p>The futures given with an image complete, with that image, once every listener has applied it
 * (or a newer one that includes it).
 *
 * <p>Thread-safety: {@link #imagePublished}, {@link #fencingChanged} and {@link #close} may be called from
 * any thread (the watcher thread calls the first two); everything else is confined to the apply thread.
 */
final class ImageNotifier {
    private final List<MetadataListener> listeners;
    private final List<FencingListener> fencingListeners;
    private final BiConsumer<Object, RuntimeException> onListenerFailure;
    private final LinkedBlockingQueue<Notice> notices = new LinkedBlockingQueue<>();
    private final Thread thread;
    /** The image the listeners were last told of; confined to the apply thread. */
    private MetadataImage applied;

    /** One item of the story: an image with the futures waiting for it, a fencing change, or the end. */
    private sealed interface Notice permits Published, Fencing, Stop {
    }

    private record Published(MetadataImage image, List<CompletableFuture<MetadataImage>> waiters) implements Notice {
    }

    private record Fencing(boolean fenced) implements Notice {
    }

    private record Stop() implements Notice {
    }

    ImageNotifier(List<MetadataListener> listeners, List<FencingListener> fencingListeners,
                  BiConsumer<Object, RuntimeException> onListenerFailure, MetadataImage initial, String threadName) {
        this.listeners = listeners;
        this.fencingListeners = fencingListeners;
        this.onListenerFailure = onListenerFailure;
        this.applied = initial;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Queues {@code image} for the listeners; {@code waiters} complete once it is applied. */
    void imagePublished(MetadataImage image, List<CompletableFuture<MetadataImage>> waiters) {
        notices.add(new Published(image, waiters));
    }

    void fencingChanged(boolean fenced) {
        notices.add(new Fencing(fenced));
    }

    /** Applies what is queued, then stops; waits up to 10 s for a listener that is still busy. */
    void close() {
        notices.add(new Stop());
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        List<Notice> batch = new ArrayList<>();
        List<Published> run = new ArrayList<>();
        while (true) {
            try {
                batch.add(notices.take());
            } catch (InterruptedException e) {
                return;
            }
            notices.drainTo(batch);
            for (Notice notice : batch) {
                if (notice instanceof Published published) {
                    run.add(published);
                    continue;
                }
                apply(run);
                if (notice instanceof Fencing fencing) {
                    tellFencing(fencing.fenced());
                } else {
                    return;
                }
            }
            apply(run);
            batch.clear();
        }
    }

    /** Tells the listeners of the newest image of {@code run}, then completes every waiter of it. */
    private void apply(List<Published> run) {
        if (run.isEmpty()) {
            return;
        }
        MetadataImage newest = run.get(run.size() - 1).image();
        if (newest != applied) {
            MetadataImage previous = applied;
            applied = newest;
            for (MetadataListener listener : listeners) {
                try {
                    listener.onChange(previous, newest);
                } catch (RuntimeException e) {
                    // One broken listener must not stop metadata from reaching the others (Kafka's
                    // metadata publishers make the same choice); the failure is logged and counted.
                    onListenerFailure.accept(listener, e);
                }
            }
        }
        for (Published published : run) {
            for (CompletableFuture<MetadataImage> waiter : published.waiters()) {
                waiter.complete(published.image());
            }
        }
        run.clear();
    }

    private void tellFencing(boolean fenced) {
        for (FencingListener listener : fencingListeners) {
            try {
                listener.onFencingChanged(fenced);
            } catch (RuntimeException e) {
                onListenerFailure.accept(listener, e);
            }
        }
    }
}
