package io.krill.compat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.CyclicBufferAppender;
import io.krill.broker.Broker;
import io.krill.broker.config.BrokerConfig;
import io.krill.compat.support.BrokerApis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;
import org.slf4j.LoggerFactory;

/**
 * Starts one Krill broker in-process for a test class, on a free loopback port with its own data
 * folder, and removes both afterwards. Register with {@code @RegisterExtension static}.
 *
 * <p>While the broker runs, the last {@value #LOG_LINES} log lines of the JVM (broker and clients) are
 * kept; a failing test gets them attached to its failure (as a suppressed exception), so that a
 * compatibility failure shows what the broker said about it.
 */
public final class KrillBrokerExtension implements BeforeAllCallback, AfterAllCallback, TestExecutionExceptionHandler {
    static final int LOG_LINES = 200;

    private final Map<String, String> overrides = new HashMap<>();
    private final Map<String, String> started = new HashMap<>();
    private Path dataDir;
    private Broker broker;
    private CyclicBufferAppender<ILoggingEvent> recentLog;

    public KrillBrokerExtension with(String key, String value) {
        overrides.put(key, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        startLogCapture();
        dataDir = Files.createTempDirectory("krill-compat");
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", dataDir.toString());
        props.put("num.io.threads", "2");
        props.put("num.network.threads", "2");
        props.putAll(overrides);
        started.clear();
        started.putAll(props);
        broker = Broker.start(BrokerConfig.from(props));
    }

    /**
     * Stops the broker (a clean close) and starts it again with the same configuration, data folder and
     * port: what a restart does to the broker's state (its leaderships resigned and taken back) is seen
     * by clients of the same address. Only for a broker with one listener.
     */
    public void restart() throws Exception {
        int port = port();
        broker.close();
        broker = null;
        Map<String, String> props = new HashMap<>(started);
        props.put("listeners", props.get("listeners").replaceFirst(":0$", ":" + port));
        broker = Broker.start(BrokerConfig.from(props));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            if (broker != null) {
                broker.close();
            }
        } finally {
            try {
                TestFiles.deleteRecursively(dataDir);
            } finally {
                stopLogCapture();
            }
        }
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        if (!(throwable instanceof TestAbortedException)) {
            throwable.addSuppressed(new RecentBrokerLog(recentLog()));
        }
        throw throwable;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port();
    }

    public int port() {
        return broker.boundAddresses().get(0).getPort();
    }

    public Broker broker() {
        return broker;
    }

    /** The APIs and versions the broker advertises in ApiVersions. */
    public BrokerApis apis() {
        return BrokerApis.probe("127.0.0.1", port());
    }

    /** The data folder (log.dirs) of this broker. */
    public Path dataDir() {
        return dataDir;
    }

    /** The last log lines of this JVM since the broker started, oldest first. */
    public String recentLog() {
        CyclicBufferAppender<ILoggingEvent> appender = recentLog;
        if (appender == null) {
            return "(no log captured)";
        }
        PatternLayout layout = new PatternLayout();
        layout.setContext(appender.getContext());
        layout.setPattern("%d{HH:mm:ss.SSS} %-5level %msg \\(%logger{0}\\) [%thread]%n%ex{short}");
        layout.start();
        StringBuilder sb = new StringBuilder();
        int n = appender.getLength();
        for (int i = 0; i < n; i++) {
            sb.append(layout.doLayout(appender.get(i)));
        }
        return sb.toString();
    }

    private void startLogCapture() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return;
        }
        CyclicBufferAppender<ILoggingEvent> appender = new CyclicBufferAppender<>();
        appender.setName("krill-compat-recent");
        appender.setMaxSize(LOG_LINES);
        appender.setContext(ctx);
        appender.start();
        ctx.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
        recentLog = appender;
    }

    private void stopLogCapture() {
        CyclicBufferAppender<ILoggingEvent> appender = recentLog;
        if (appender != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            ctx.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(appender);
            appender.stop();
        }
    }

    /** Carries the broker's recent log lines on a failed test's exception. */
    static final class RecentBrokerLog extends Exception {
        private static final long serialVersionUID = 1L;

        RecentBrokerLog(String lines) {
            super("recent broker log (last " + LOG_LINES + " lines):\n" + lines, null, false, false);
        }
    }

}
