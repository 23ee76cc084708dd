package io.krill.broker.net;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.ApiHandlerRegistry;
import io.krill.broker.api.Request;
import io.krill.broker.api.ResponseChannel;
import io.krill.broker.api.handlers.ApiVersionsHandler;
import io.krill.broker.quota.ClientQuotas;
import io.krill.broker.quota.RequestQuotaTimer;
import io.krill.broker.security.Session;
import io.krill.broker.security.authentication.SaslServerAuthenticator;
import io.krill.broker.security.sasl.SaslAuthenticationException;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.MalformedMessageException;
import io.krill.wire.protocol.ThrottledResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns frames into {@link Request}s and hands each to its {@link ApiHandler}; writes the answers back
 * in request order through a {@link ResponseSequencer}.
 *
 * <p>It runs on the connection's request executor (one of {@code num.io.threads}), not on the event
 * loop, so a handler may touch the disk. A connection is pinned to one such thread: its requests are
 * handled one at a time, in order.
 *
 * <p>What Kafka does with bad requests, it does too: an unknown API key, a version it does not serve
 * (except ApiVersions, answered with UNSUPPORTED_VERSION and its own version range) and a body that does
 * not parse each close the connection with a log line.
 *
 * <p>On SASL listeners it is also the gate of authentication (see {@link SaslServerAuthenticator}):
 * before the session is authenticated, or after it expired, any request other than ApiVersions,
 * SaslHandshake and SaslAuthenticate closes the connection, as Kafka does; a failed SASL step closes it
 * once its answer is written; after SaslHandshake v0 frames are raw SASL tokens answered with raw
 * size-prefixed tokens. On TLS connections log data that would go out with sendfile is read into
 * buffers first (an SslHandler can only encrypt buffers).
 *
 * <p>Not sharable: one instance per connection. State is confined to the request executor.
 */
public final class RequestChannelHandler extends ChannelInboundHandlerAdapter implements ResponseChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RequestChannelHandler.class);
    private static final AtomicLong CONNECTION_IDS = new AtomicLong();

    private final ApiHandlerRegistry registry;
    private final Session session;
    private final SaslServerAuthenticator sasl;
    private final boolean tls;
    private final int maxInFlight;
    private final RequestMetrics metrics;
    private final ClientQuotas quotas;
    private ChannelHandlerContext ctx;
    private ResponseSequencer sequencer;
    private ChannelThrottle throttle;
    private RequestQuotaTimer requestTime;
    private Request.Connection connection;

    /**
     * @param sasl the connection's SASL state on a SASL listener, else null
     * @param tls  true when the connection runs over TLS (no sendfile)
     */
    public RequestChannelHandler(ApiHandlerRegistry registry, Session session, SaslServerAuthenticator sasl,
                                 boolean tls, int maxInFlight, RequestMetrics metrics, ClientQuotas quotas) {
        this.registry = registry;
        this.session = session;
        this.sasl = sasl;
        this.tls = tls;
        this.maxInFlight = maxInFlight;
        this.metrics = metrics;
        this.quotas = quotas;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ReadGate gate = new ReadGate(ctx.channel());
        this.sequencer = new ResponseSequencer(ctx.channel(), gate, maxInFlight);
        this.throttle = new ChannelThrottle(gate, ctx.executor());
        this.requestTime = new RequestQuotaTimer(quotas);
        this.connection = new Request.Connection(ctx.channel().remoteAddress(), session.listenerName(),
                session.listenerName() + "-" + CONNECTION_IDS.incrementAndGet(), session, sasl);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        sequencer.close();
        session.closed();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
            handleFrame(frame);
        } finally {
            frame.release();
        }
    }

    private void handleFrame(ByteBuf frame) {
        long received = System.nanoTime();
        if (sasl != null && sasl.expectsRawToken()) {
            handleRawSaslToken(frame);
            return;
        }
        if (frame.readableBytes() < 8) {
            close("a request header of " + frame.readableBytes() + " bytes is truncated");
            return;
        }
        short key = frame.getShort(frame.readerIndex());
        short version = frame.getShort(frame.readerIndex() + 2);
        ApiKeys api = ApiKeys.forId(key);
        ApiHandler handler = registry.handler(api);
        if (handler == null) {
            close("unknown or unsupported API key " + key);
            return;
        }
        String refusal = sasl == null ? null : sasl.refusal(api);
        if (refusal != null) {
            close(refusal);
            return;
        }
        boolean served = version >= handler.minVersion() && version <= handler.maxVersion() && api.hasVersion(version);
        if (!served && api != ApiKeys.API_VERSIONS) {
            close(api.apiName() + " v" + version + " is not supported (serving v" + handler.minVersion() + "-v"
                    + handler.maxVersion() + ")");
            return;
        }
        RequestHeader header = new RequestHeader();
        ApiMessage body;
        try {
            // An ApiVersions of a newer version than ours still has a header we can read: flexible ones
            // use header v2.
            short headerVersion = served ? api.requestHeaderVersion(version)
                    : api.requestHeaderVersion(api.highestVersion());
            header.read(frame, headerVersion);
            if (!served) {
                // Kafka's answer to an ApiVersions it cannot parse: v0, UNSUPPORTED_VERSION, ApiVersions' own range.
                long seq = sequencer.register();
                ApiMessage answer = ApiVersionsHandler.unsupportedVersionResponse(registry);
                sequencer.complete(seq, ResponseEncoder.encode(ctx.alloc(), (short) 0, (short) 0,
                        header.correlationId(), answer));
                metrics.record(api, Errors.UNSUPPORTED_VERSION, received);
                return;
            }
            body = api.newRequest();
            body.read(frame, version);
        } catch (MalformedMessageException e) {
            close(api.apiName() + " v" + version + " request is malformed: " + e.getMessage());
            return;
        }
        Request request = new Request(header, api, body, connection, this, sequencer.register(), received);
        requestTime.started(request);
        try {
            handler.handle(request);
            if (sasl != null && sasl.mustClose()) {
                closeAfterWrites("SASL " + api.apiName() + " failed: " + sasl.failure(), sasl.failureCloseDelayMs());
            }
        } catch (ApiException e) {
            if (!request.isAnswered()) {
                LOG.debug("{} failed: {}", request, e.getMessage());
                request.respond(handler.errorResponse(request, e.error()));
            }
        } catch (RuntimeException e) {
            LOG.error("Closing connection {}: unexpected error handling {}", connection.connectionId(), request, e);
            metrics.recordUnexpected(api);
            ctx.close();
        } finally {
            requestTime.handled(request);
        }
    }

    /** A token of the legacy SASL flow (after SaslHandshake v0): no Kafka header either way. */
    private void handleRawSaslToken(ByteBuf frame) {
        byte[] token = new byte[frame.readableBytes()];
        frame.readBytes(token);
        long seq = sequencer.register();
        byte[] answer;
        try {
            answer = sasl.legacyToken(token);
        } catch (SaslAuthenticationException e) {
            sequencer.complete(seq, null);
            close("SASL authentication (legacy flow) failed: " + e.getMessage());
            return;
        }
        ByteBuf out = null;
        if (answer != null) {
            out = ctx.alloc().buffer(4 + answer.length);
            out.writeInt(answer.length).writeBytes(answer);
        }
        sequencer.complete(seq, out);
    }

    /**
     * Closes the connection {@code delayMs} after what was written before is flushed; meanwhile nothing more
     * is read from it.
     */
    private void closeAfterWrites(String reason, int delayMs) {
        LOG.info("Closing connection {} from {}: {}", connection.connectionId(), connection.remoteAddress(), reason);
        ctx.channel().config().setAutoRead(false);
        ctx.channel().writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
            if (delayMs > 0 && ctx.channel().isActive()) {
                ctx.channel().eventLoop().schedule(() -> ctx.channel().close(), delayMs, TimeUnit.MILLISECONDS);
            } else {
                ctx.channel().close();
            }
        });
    }

    @Override
    public void send(Request request, ApiMessage response) {
        EventExecutor executor = ctx.executor();
        if (executor.inEventLoop()) {
            write(request, response);
        } else {
            executor.execute(() -> write(request, response));
        }
    }

    @Override
    public void execute(Runnable task) {
        ctx.executor().execute(task);
    }

    @Override
    public void whenClosed(Runnable action) {
        ctx.channel().closeFuture().addListener(closed -> action.run());
    }

    @Override
    public void close(Request request, String reason) {
        Runnable closing = () -> {
            sequencer.complete(request.sequence(), null);
            LOG.info("Closing connection {} from {}: {}", connection.connectionId(), connection.remoteAddress(), reason);
            ctx.close();
        };
        EventExecutor executor = ctx.executor();
        if (executor.inEventLoop()) {
            closing.run();
        } else {
            executor.execute(closing);
        }
    }

    private void write(Request request, ApiMessage response) {
        int throttleMs = requestTime.throttleTimeMs(request);
        if (throttleMs > 0 && response instanceof ThrottledResponse throttled) {
            throttled.setThrottleTimeMs(throttleMs);
        }
        Object encoded = null;
        if (response != null) {
            try {
                encoded = ResponseEncoder.encode(ctx.alloc(), request.api(), request.version(),
                        request.header().correlationId(), response);
                if (tls && encoded instanceof List<?> parts) {
                    encoded = withoutFileRegions(parts);
                }
            } catch (IOException | RuntimeException e) {
                LOG.error("Closing connection {}: cannot encode the response to {}", connection.connectionId(), request, e);
                metrics.recordUnexpected(request.api());
                ctx.close();
                sequencer.complete(request.sequence(), null);
                return;
            }
        }
        metrics.record(request.api(), Errors.NONE, request.receivedNanos());
        sequencer.complete(request.sequence(), encoded);
        if (throttleMs > 0) {
            throttle.mute(throttleMs);
        }
    }

    /**
     * The parts of a response with every log file region read into a buffer (TLS cannot encrypt a
     * FileRegion). Consumes {@code parts}: on failure everything is released.
     */
    private List<Object> withoutFileRegions(List<?> parts) throws IOException {
        List<Object> out = new ArrayList<>(parts.size());
        int i = 0;
        try {
            for (; i < parts.size(); i++) {
                Object part = parts.get(i);
                if (part instanceof LogFileRegion region) {
                    out.add(region.read(ctx.alloc()));
                    region.release();
                } else {
                    out.add(part);
                }
            }
            return out;
        } catch (IOException | RuntimeException e) {
            out.forEach(ReferenceCountUtil::release);
            for (; i < parts.size(); i++) {
                ReferenceCountUtil.release(parts.get(i));
            }
            throw e;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            // the peer went away (reset, broken pipe, a write after its close): routine, as Kafka logs it
            LOG.debug("Closing connection {} from {}: {}", connection.connectionId(), connection.remoteAddress(),
                    cause.toString());
        } else {
            LOG.warn("Closing connection {} from {}: {}", connection.connectionId(), connection.remoteAddress(),
                    cause.toString());
        }
        ctx.close();
    }

    private void close(String reason) {
        LOG.warn("Closing connection {} from {}: {}", connection.connectionId(), connection.remoteAddress(), reason);
        ctx.close();
    }
}
