package io.krill.compat.support;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.PrintStream;

/**
 * Logback's console appender writes to whatever {@code System.out} is at the time of each event, so
 * while {@link ToolRunner} captures a tool's standard output, broker and client log lines would land in
 * it. This appender binds to the {@code System.out} of the moment logging starts (Surefire's stream)
 * and keeps it: a tool's captured output holds only what the tool printed.
 */
public final class TestOutputAppender extends OutputStreamAppender<ILoggingEvent> {
    @Override
    public void start() {
        PrintStream target = System.out;
        setOutputStream(new FilterOutputStream(target) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                target.write(b, off, len);
            }

            @Override
            public void close() {
                target.flush();
            }
        });
        super.start();
    }
}
