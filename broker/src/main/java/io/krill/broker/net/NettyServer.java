package io.krill.broker.net;

import io.krill.broker.api.ApiHandlerRegistry;
import io.krill.broker.config.Listener;
import io.krill.broker.config.SocketSettings;
import io.krill.broker.quota.ClientQuotas;
import io.krill.broker.security.ListenerSecurity;
import io.krill.broker.security.Session;
import io.krill.broker.security.authentication.SaslServerAuthenticator;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's sockets: one server channel per listener, {@code num.network.threads} event loops for
 * I/O (native epoll when available, else NIO), and {@code num.io.threads} request threads on which the
 * {@link RequestChannelHandler}s run (each connection pinned to one).
 *
 * <p>Per connection the pipeline is: TLS ({@code SslHandler} and the certificate principal) on SSL and
 * SASL_SSL listeners, the idle timeout ({@code connections.max.idle.ms}), frames, requests. The
 * connection limits ({@code max.connections}, {@code max.connections.per.ip} and its overrides) are
 * applied as a connection is accepted: one over a limit is closed at once.
 *
 * <p>Thread-safe for start/stop from one controlling thread.
 */
public final class NettyServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NettyServer.class);
    /** Per connection: requests read and not yet answered before the socket stops being read. */
    static final int MAX_IN_FLIGHT_PER_CONNECTION = 64;

    private final List<ListenerSecurity> listeners;
    private final ConnectionQuotas quotas;
    private final SocketSettings socket;
    private final ApiHandlerRegistry registry;
    private final RequestMetrics metrics;
    private final ClientQuotas clientQuotas;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup ioGroup;
    private final EventExecutorGroup requestGroup;
    private final Class<? extends ServerChannel> channelClass;
    private final List<Channel> serverChannels = new ArrayList<>();
    private final List<InetSocketAddress> boundAddresses = new ArrayList<>();
    private final ChannelGroup connections = new DefaultChannelGroup("krill-connections", GlobalEventExecutor.INSTANCE);

    public NettyServer(List<ListenerSecurity> listeners, SocketSettings socket, ApiHandlerRegistry registry,
                       RequestMetrics metrics, ClientQuotas clientQuotas) {
        this.listeners = List.copyOf(listeners);
        this.quotas = new ConnectionQuotas(socket);
        this.socket = socket;
        this.registry = registry;
        this.metrics = metrics;
        this.clientQuotas = clientQuotas;
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.channelClass = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        this.bossGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("krill-acceptor", true), factory);
        this.ioGroup = new MultiThreadIoEventLoopGroup(socket.numNetworkThreads(),
                new DefaultThreadFactory("krill-network", true), factory);
        this.requestGroup = new DefaultEventExecutorGroup(socket.numIoThreads(),
                new DefaultThreadFactory("krill-request", true));
        LOG.info("Transport: {}", epoll ? "epoll" : "nio");
    }

    /**
     * Binds every listener, without accepting connections yet ({@link #acceptConnections}); throws if one
     * cannot be bound. Bound first so that the broker can register its real ports; not accepting until it
     * can serve, as Kafka's acceptors start only once the broker is ready: a client that connects early
     * waits in the listen backlog instead of getting answers from a broker that has not joined its cluster
     * (a permanent INVALID_REPLICATION_FACTOR for an auto-created topic, once).
     */
    public void start() throws InterruptedException {
        for (ListenerSecurity security : listeners) {
            Listener listener = security.listener();
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(bossGroup, ioGroup)
                    .channel(channelClass)
                    .option(ChannelOption.SO_BACKLOG, socket.socketListenBacklogSize())
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .option(ChannelOption.AUTO_READ, false) // a server channel that does not read does not accept
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.SO_KEEPALIVE, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            initConnection(ch, security);
                        }
                    });
            InetSocketAddress address = listener.host() == null
                    ? new InetSocketAddress(listener.port())
                    : new InetSocketAddress(listener.host(), listener.port());
            Channel channel = bootstrap.bind(address).sync().channel();
            serverChannels.add(channel);
            InetSocketAddress bound = (InetSocketAddress) channel.localAddress();
            boundAddresses.add(bound);
            LOG.info("Listening for {} on {} ({})", listener.name(), bound, listener.securityProtocol());
        }
    }

    /** Starts accepting connections on every listener (the broker is ready to serve them). */
    public void acceptConnections() {
        for (Channel channel : serverChannels) {
            channel.config().setAutoRead(true);
        }
    }

    private void initConnection(SocketChannel ch, ListenerSecurity security) {
        InetAddress ip = ch.remoteAddress().getAddress();
        String refusal = quotas.acquire(ip);
        if (refusal != null) {
            LOG.info("Refusing connection from {} on {}: {}", ch.remoteAddress(), security.listener().name(), refusal);
            ch.close();
            return;
        }
        ch.closeFuture().addListener(f -> quotas.release(ip));
        connections.add(ch);
        if (socket.socketSendBufferBytes() > 0) {
            ch.config().setSendBufferSize(socket.socketSendBufferBytes());
        }
        if (socket.socketReceiveBufferBytes() > 0) {
            ch.config().setReceiveBufferSize(socket.socketReceiveBufferBytes());
        }
        Listener listener = security.listener();
        Session session = new Session(ch.remoteAddress(), listener.name(), listener.securityProtocol());
        ChannelPipeline pipeline = ch.pipeline();
        boolean tls = security.ssl() != null;
        if (tls) {
            pipeline.addLast("ssl", security.ssl().serverContext().newHandler(ch.alloc()));
            pipeline.addLast("ssl-principal", new SslPrincipalHandler(session, security.ssl().principalMapper()));
        }
        if (socket.connectionsMaxIdleMs() > 0) {
            pipeline.addLast("idle", new IdleStateHandler(0, 0, socket.connectionsMaxIdleMs(), TimeUnit.MILLISECONDS));
            pipeline.addLast("idle-close", IdleConnectionCloser.INSTANCE);
        }
        pipeline.addLast("frames", new FrameDecoder(socket.socketRequestMaxBytes(), security.sasl() ? session : null,
                security.maxUnauthenticatedFrameBytes()));
        SaslServerAuthenticator sasl = security.sasl()
                ? new SaslServerAuthenticator(session, security.mechanisms(), security.reauthMs(),
                        socket.connectionFailedAuthenticationDelayMs())
                : null;
        pipeline.addLast(requestGroup, "requests",
                new RequestChannelHandler(registry, session, sasl, tls, MAX_IN_FLIGHT_PER_CONNECTION, metrics,
                        clientQuotas));
    }

    /** Connections currently open (all listeners). */
    public int connectionCount() {
        return quotas.total();
    }

    /** The addresses bound, in listener order (the real port when a listener asked for port 0). */
    public List<InetSocketAddress> boundAddresses() {
        return List.copyOf(boundAddresses);
    }

    /**
     * Stops accepting, lets requests being handled finish (the request threads drain within
     * {@code graceMs}), then closes the connections and the event loops, in that order so that no
     * close event finds its executor gone.
     */
    public void shutdown(long graceMs) {
        for (Channel channel : serverChannels) {
            channel.close().awaitUninterruptibly();
        }
        for (Channel connection : connections) {
            connection.config().setAutoRead(false);
        }
        connections.close().awaitUninterruptibly(graceMs);
        requestGroup.shutdownGracefully(0, graceMs, TimeUnit.MILLISECONDS).awaitUninterruptibly();
        ioGroup.shutdownGracefully(0, graceMs, TimeUnit.MILLISECONDS).awaitUninterruptibly();
        bossGroup.shutdownGracefully(0, graceMs, TimeUnit.MILLISECONDS).awaitUninterruptibly();
    }

    @Override
    public void close() {
        shutdown(1000);
    }
}
