package io.krill.broker.net;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.ApiHandlerRegistry;
import io.krill.broker.api.Request;
import io.krill.broker.api.ResponseChannel;
import io.krill.broker.api.handlers.ApiVersionsHandler;
import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.quota.ClientQuotas;
import io.krill.broker.quota.RequestQuotaTimer;
import io.krill.broker.security.Session;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.message.RequestHeader;
import io.krill.wire.protocol.ApiMessage;
import io.krill.wire.protocol.MalformedMessageException;
import io.krill.wire.protocol.ThrottledResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.EventExecutor;
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
 * (except ApiVersions, answered with UNSUPPORTED_VERSION and the supported ranges) and a body that does
 * not parse each close the connection with a log line.
 *
 * <p>Not sharable: one instance per connection. State is confined to the request executor.
 */
public final class RequestChannelHandler extends ChannelInboundHandlerAdapter implements ResponseChannel {
    private static final Logger LOG = LoggerFactory.getLogger(RequestChannelHandler.class);
    private static final AtomicLong CONNECTION_IDS = new AtomicLong();

    private final ApiHandlerRegistry registry;
    private final String listenerName;
    private final SecurityProtocol securityProtocol;
    private final int maxInFlight;
    private final RequestMetrics metrics;
    private final ClientQuotas quotas;
    private ChannelHandlerContext ctx;
    private ResponseSequencer sequencer;
    private ChannelThrottle throttle;
    private RequestQuotaTimer requestTime;
    private Request.Connection connection;

    public RequestChannelHandler(ApiHandlerRegistry registry, String listenerName, SecurityProtocol securityProtocol,
                                 int maxInFlight, RequestMetrics metrics, ClientQuotas quotas) {
        this.registry = registry;
        this.listenerName = listenerName;
        this.securityProtocol = securityProtocol;
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
        this.connection = new Request.Connection(ctx.channel().remoteAddress(), listenerName,
                listenerName + "-" + CONNECTION_IDS.incrementAndGet(),
                new Session(ctx.channel().remoteAddress(), listenerName, securityProtocol));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        sequencer.close();
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
                // Kafka's answer to an ApiVersions it cannot parse: v0, UNSUPPORTED_VERSION, our ranges.
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
            } catch (RuntimeException e) {
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

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("Closing connection {} from {}: {}", connection.connectionId(), connection.remoteAddress(),
                cause.toString());
        ctx.close();
    }

    private void close(String reason) {
        LOG.warn("Closing connection {} from {}: {}", connection.connectionId(), connection.remoteAddress(), reason);
        ctx.close();
    }
}
