package io.krill.broker.net;

import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.security.KafkaPrincipal;
import io.krill.broker.security.Session;
import io.krill.broker.security.ssl.SslPrincipalMapper;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.security.Principal;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.security.auth.x500.X500Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a connection's TLS handshake: on an SSL listener the session is authenticated as the client
 * certificate's subject ({@code User:CN=client,OU=...}, the RFC 2253 name through
 * {@code ssl.principal.mapping.rules}), or as ANONYMOUS without a client certificate; on SASL_SSL the
 * SASL exchange sets the principal later. A failed handshake is logged (Netty closes the connection).
 * It runs on the event loop before any frame is decoded, so no request sees the session unset.
 *
 * <p>Not sharable: one per connection; confined to its event loop.
 */
final class SslPrincipalHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(SslPrincipalHandler.class);

    private final Session session;
    private final SslPrincipalMapper mapper;

    SslPrincipalHandler(Session session, SslPrincipalMapper mapper) {
        this.session = session;
        this.mapper = mapper;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            if (!done.isSuccess()) {
                LOG.info("TLS handshake with {} on {} failed: {}", ctx.channel().remoteAddress(),
                        session.listenerName(), done.cause().toString());
            } else if (session.securityProtocol() == SecurityProtocol.SSL) {
                SslHandler ssl = ctx.pipeline().get(SslHandler.class);
                KafkaPrincipal principal;
                try {
                    principal = principal(ssl.engine().getSession().getPeerPrincipal());
                } catch (SSLPeerUnverifiedException e) {
                    principal = KafkaPrincipal.ANONYMOUS;
                } catch (IllegalArgumentException e) {
                    LOG.warn("Closing TLS connection from {}: {}", ctx.channel().remoteAddress(), e.getMessage());
                    ctx.close();
                    return;
                }
                session.authenticated(principal);
                LOG.debug("TLS connection from {} on {} authenticated as {}", ctx.channel().remoteAddress(),
                        session.listenerName(), principal);
            }
            ctx.pipeline().remove(this);
        }
        ctx.fireUserEventTriggered(evt);
    }

    private KafkaPrincipal principal(Principal peer) {
        String name = peer instanceof X500Principal x500 ? x500.getName() : peer.getName();
        return KafkaPrincipal.user(mapper.name(name));
    }
}
