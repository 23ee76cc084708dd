package io.krill.controller.cluster;

import io.krill.controller.metadata.MetadataImage;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One znode's read-modify-write on ZooKeeper's asynchronous API, so that no thread waits for it: read
 * the node, let a {@link Decider} say from its data what to write, write that with a version check (or
 * create the node, and its parent on first use, if there was none), and on a lost race (BadVersion,
 * NodeExists, NoNode) start again from a fresh read, so the decider always works on what another
 * writer, on any broker, left. The result completes once this broker's image shows the outcome
 * ({@link MetadataWatcher#barrier()}: ZooKeeper delivers the watch event of a change before the answer
 * to any later read or write of the same session, so the image after the barrier has it).
 *
 * <p>Bounds: the read-decide-write part must be confirmed within the store's operation timeout (a
 * timer, not only a check after each failure: a ZooKeeper that does not answer at all must not hold the
 * caller), then the image gets {@value #IMAGE_WAIT_FACTOR} operation timeouts (it waits for this
 * broker's listeners).
 *
 * <p>Failures complete the future, never throw: the decider's own exception as it is; ZooKeeper
 * unreachable, or a node that kept changing, until the operation timeout as REQUEST_TIMED_OUT
 * ({@link ApiException}; clients retry); other ZooKeeper errors as {@link IllegalStateException}. A write
 * whose answer was lost with the connection may have landed: the next read recognises it (the node's
 * version one past the one written against, holding exactly the bytes written) and counts it as done
 * rather than applying the decider again. (If yet another writer changed the node after such a write,
 * the decider runs again on data that already holds its change: deciders should be idempotent, as
 * "set these keys" is.)
 *
 * <p>Thread-safety: each instance is one update whose steps run one after another: on ZooKeeper's event
 * thread (the decider runs there: it must be quick and must not block; it may run several times) and,
 * after a pause, on the JDK's timer thread, which only sends the next request. The step fields are
 * handed from step to step through the futures and the timer (happens-before); the volatile ones are
 * also read by the timeout's message.
 *
 * @param <R> what the decider makes of the node, handed back with the image that shows it
 */
final class ConditionalWrite<R> {
    private static final Logger LOG = LoggerFactory.getLogger(ConditionalWrite.class);
    /** After a lost connection: the ZooKeeper client fails requests at once until it has reconnected. */
    private static final long RETRY_PAUSE_MS = 50;
    /** After a second lost race in a row: a random pause up to this, so that writers of one node spread out. */
    private static final int MAX_CONFLICT_PAUSE_MS = 10;
    /** The image waits for this broker's listeners; allow it more than one ZooKeeper round trip. */
    static final int IMAGE_WAIT_FACTOR = 6;
    /** Runs a delayed step on the JDK's timer thread: a step only queues a ZooKeeper request, it never blocks. */
    private static final Executor INLINE = Runnable::run;

    /** What to do with the node: write {@code data} (null: nothing to write) and answer {@code result}. */
    record Decision<R>(byte[] data, R result) {
        static <R> Decision<R> write(byte[] data, R result) {
            return new Decision<>(data, result);
        }

        static <R> Decision<R> unchanged(R result) {
            return new Decision<>(null, result);
        }
    }

    /**
     * Decides from the node's current data (null: no such node) what to write; may throw (a
     * RuntimeException) to fail the update with that exception. Runs on ZooKeeper's event thread, maybe
     * more than once: quick, no blocking, no side effects.
     */
    @FunctionalInterface
    interface Decider<R> {
        Decision<R> decide(byte[] current);
    }

    /** The decider's result, whether anything was written, and the first image of this broker that shows it. */
    record Outcome<R>(R result, boolean written, MetadataImage image) {
    }

    /** The read-decide-write part's result. */
    private record Confirmed<R>(R result, boolean written) {
    }

    private final StoreContext context;
    private final String path;
    private final Decider<R> decider;
    /** For messages: "configs of users/alice", "configs of topic orders". */
    private final String what;
    private final long timeoutMs;
    /** Completes when the write is confirmed (or known not needed), fails on the first terminal failure. */
    private final CompletableFuture<Confirmed<R>> confirmed = new CompletableFuture<>();
    private volatile int attempts;
    private int conflictsInARow;
    /** The last retriable failure, for the timeout's message. */
    private volatile Throwable lastFailure;
    /** A write whose answer was lost: its version (-1: a create), bytes and result, until the next read decides. */
    private int uncertainVersion;
    private volatile byte[] uncertainData;
    private R uncertainResult;

    private ConditionalWrite(StoreContext context, String path, Decider<R> decider, String what) {
        this.context = context;
        this.path = path;
        this.decider = decider;
        this.what = what;
        this.timeoutMs = context.config().operationTimeoutMs();
    }

    /** Starts the update of {@code path}; the future completes as the class describes. Never throws. */
    static <R> CompletableFuture<Outcome<R>> start(StoreContext context, String path, String what, Decider<R> decider) {
        ConditionalWrite<R> update = new ConditionalWrite<>(context, path, decider, what);
        if (context.isClosed()) {
            return CompletableFuture.failedFuture(new IllegalStateException("metadata store of broker "
                    + context.nodeId() + " is closed"));
        }
        update.confirmed.orTimeout(update.timeoutMs, TimeUnit.MILLISECONDS);
        update.step(update::read);
        return update.confirmed
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(update.writeFailure(unwrap(failure))))
                .thenCompose(update::awaitImage);
    }

    /** Runs one step; anything it throws fails the update rather than vanishing in a callback. */
    private void step(Runnable work) {
        if (confirmed.isDone()) {
            return; // timed out (or failed) meanwhile: send nothing more
        }
        try {
            work.run();
        } catch (RuntimeException e) {
            confirmed.completeExceptionally(e);
        }
    }

    private void read() {
        attempts++;
        context.session().readAsync(path).whenComplete((node, failure) -> step(() -> {
            if (failure != null) {
                failed(unwrap(failure));
                return;
            }
            byte[] current = node.data();
            if (uncertainData != null) {
                boolean landed = current != null && node.stat().getVersion() == uncertainVersion + 1
                        && Arrays.equals(current, uncertainData);
                R result = uncertainResult;
                uncertainData = null;
                uncertainResult = null;
                if (landed) {
                    confirmed.complete(new Confirmed<>(result, true));
                    return;
                }
            }
            Decision<R> decision = decider.decide(current); // a throw fails the update with it (step)
            if (decision.data() == null) {
                confirmed.complete(new Confirmed<>(decision.result(), false));
            } else if (current == null) {
                create(decision);
            } else {
                write(decision, node.stat().getVersion());
            }
        }));
    }

    private void write(Decision<R> decision, int version) {
        context.session().setDataAsync(path, decision.data(), version).whenComplete((stat, failure) -> step(() -> {
            if (failure == null) {
                confirmed.complete(new Confirmed<>(decision.result(), true));
                return;
            }
            Throwable cause = unwrap(failure);
            if (isRetriable(cause)) {
                uncertain(version, decision);
            }
            failed(cause);
        }));
    }

    private void create(Decision<R> decision) {
        context.session().createAsync(path, decision.data()).whenComplete((ignored, failure) -> step(() -> {
            if (failure == null) {
                confirmed.complete(new Confirmed<>(decision.result(), true));
                return;
            }
            Throwable cause = unwrap(failure);
            if (cause instanceof KeeperException.NoNodeException) {
                createParent();
                return;
            }
            if (isRetriable(cause)) {
                uncertain(-1, decision);
            }
            failed(cause);
        }));
    }

    /** The node's parent is missing (the first config of its kind): create it, then read again. */
    private void createParent() {
        String parent = path.substring(0, path.lastIndexOf('/'));
        context.session().createAsync(parent, new byte[0]).whenComplete((ignored, failure) -> step(() -> {
            Throwable cause = failure == null ? null : unwrap(failure);
            if (cause == null || cause instanceof KeeperException.NodeExistsException) {
                read();
            } else if (cause instanceof KeeperException.NoNodeException keeper) {
                // Krill's root is made with the cluster; without it this is not a Krill cluster any more
                throw ZkSession.unexpected(keeper);
            } else {
                failed(cause);
            }
        }));
    }

    private void uncertain(int version, Decision<R> decision) {
        uncertainVersion = version;
        uncertainResult = decision.result();
        uncertainData = decision.data();
    }

    /**
     * A failed step: a lost race reads again (at once the first time, after a short random pause when it
     * keeps happening), a lost connection after a pause; the timer ends it all at the deadline. Anything
     * else fails the update.
     */
    private void failed(Throwable cause) {
        boolean conflict = cause instanceof KeeperException keeper && ZkSession.isConflict(keeper);
        if (!conflict && !isRetriable(cause)) {
            if (cause instanceof ZkUnavailableException) {
                confirmed.completeExceptionally(new ApiException(Errors.REQUEST_TIMED_OUT, cause.getMessage(), cause));
            } else if (cause instanceof KeeperException keeper) {
                confirmed.completeExceptionally(ZkSession.unexpected(keeper));
            } else {
                confirmed.completeExceptionally(cause);
            }
            return;
        }
        lastFailure = cause;
        if (conflict) {
            LOG.debug("{}: lost a race ({}), reading again", what, cause.toString());
            if (conflictsInARow++ == 0) {
                read();
            } else {
                later(1 + context.random().nextInt(MAX_CONFLICT_PAUSE_MS));
            }
        } else {
            conflictsInARow = 0;
            later(RETRY_PAUSE_MS);
        }
    }

    private void later(long pauseMs) {
        CompletableFuture.delayedExecutor(pauseMs, TimeUnit.MILLISECONDS, INLINE).execute(() -> step(this::read));
    }

    /** What the caller sees when the read-decide-write part failed. */
    private Throwable writeFailure(Throwable cause) {
        if (!(cause instanceof TimeoutException)) {
            return cause;
        }
        Throwable last = lastFailure;
        String why = last instanceof KeeperException keeper && ZkSession.isConflict(keeper)
                ? "it kept changing (" + attempts + " attempts)"
                : last != null ? "ZooKeeper unavailable (" + last + ")" : "ZooKeeper did not answer";
        String maybe = uncertainData != null ? "; a write whose answer was lost may still have been applied" : "";
        return new ApiException(Errors.REQUEST_TIMED_OUT, "The change of " + what + " was not confirmed within "
                + timeoutMs + " ms: " + why + maybe, last);
    }

    /** Written (or nothing to write): completes after the image that shows it. */
    private CompletableFuture<Outcome<R>> awaitImage(Confirmed<R> done) {
        return context.watcher().barrier()
                .orTimeout(IMAGE_WAIT_FACTOR * timeoutMs, TimeUnit.MILLISECONDS)
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(new ApiException(Errors.REQUEST_TIMED_OUT,
                        "The change of " + what + " is in ZooKeeper but this broker's metadata did not show it in time ("
                                + unwrap(failure) + ")", unwrap(failure))))
                .thenApply(image -> new Outcome<>(done.result(), done.written(), image));
    }

    private static boolean isRetriable(Throwable cause) {
        return cause instanceof KeeperException keeper && ZkSession.isRetriable(keeper.code());
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
