package io.krill.broker.net;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that neither read nor wrote for {@code connections.max.idle.ms}, as Kafka's
 * selector does. Stateless: one shared instance.
 */
@ChannelHandler.Sharable
final class IdleConnectionCloser extends ChannelInboundHandlerAdapter {
    static final IdleConnectionCloser INSTANCE = new IdleConnectionCloser();
    private static final Logger LOG = LoggerFactory.getLogger(IdleConnectionCloser.class);

    private IdleConnectionCloser() {
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            LOG.debug("Closing idle connection from {} (connections.max.idle.ms)", ctx.channel().remoteAddress());
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }
}
