package io.krill.compat.cluster;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * One {@link KrillCluster} shared by the tests of a class (register with {@code @RegisterExtension
 * static}): started before the first test, healed after each (paused brokers resumed, stopped ones
 * started), closed after the last whatever happened. A failure in a test or a lifecycle method carries
 * the tail of every broker's log as a suppressed exception.
 */
public final class KrillClusterExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback,
        TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {
    static final int LOG_LINES = 80;

    private final int size;
    private final Map<String, String> overrides = new HashMap<>();
    private KrillCluster cluster;

    public KrillClusterExtension(int size) {
        this.size = size;
    }

    public KrillClusterExtension with(String key, String value) {
        overrides.put(key, value);
        return this;
    }

    public KrillCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the cluster is not running");
        }
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = KrillCluster.start(context.getRequiredTestClass().getSimpleName(), size, overrides);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (cluster != null) {
            cluster.heal();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            try {
                cluster.close();
            } finally {
                cluster = null;
            }
        }
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        throw withLogs(throwable);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        throw withLogs(throwable);
    }

    @Override
    public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        throw withLogs(throwable);
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        throw withLogs(throwable);
    }

    private Throwable withLogs(Throwable throwable) {
        if (cluster != null && !(throwable instanceof TestAbortedException)) {
            throwable.addSuppressed(new BrokerLogs(cluster.logTails(LOG_LINES)));
        }
        return throwable;
    }

    /** Carries the brokers' last log lines on a failure. */
    static final class BrokerLogs extends Exception {
        private static final long serialVersionUID = 1L;

        BrokerLogs(String tails) {
            super("brokers' logs:" + tails, null, false, false);
        }
    }
}
