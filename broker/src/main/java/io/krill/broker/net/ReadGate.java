package io.krill.broker.net;

import io.netty.channel.Channel;

/**
 * Whether a connection's socket is read, with a count of the reasons it is not: too many requests in
 * flight ({@link ResponseSequencer}) and quota throttles ({@link ChannelThrottle}) each close the gate,
 * and reading resumes only when every one of them has opened it again.
 *
 * <p>Not thread-safe: confined to the connection's request executor.
 */
final class ReadGate {
    private final Channel channel;
    private int closedBy;

    ReadGate(Channel channel) {
        this.channel = channel;
    }

    /** One more reason not to read. */
    void close() {
        if (closedBy++ == 0) {
            channel.config().setAutoRead(false);
        }
    }

    /** One reason fewer; reading resumes when none is left. */
    void open() {
        if (closedBy == 0) {
            throw new IllegalStateException("read gate opened more often than closed");
        }
        if (--closedBy == 0) {
            channel.config().setAutoRead(true);
        }
    }

    boolean isOpen() {
        return closedBy == 0;
    }
}
