package io.krill.controller.cluster;

import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Helix's status updates from growing without bound. Helix records every state transition of every
 * replica as a status update; because brokers join as {@code CONTROLLER_PARTICIPANT}, it writes them all to
 * one node per partition, {@code /<cluster>/CONTROLLER/STATUSUPDATES/<topic>/<topic>_<p>}, merging each new
 * entry into the node, for every broker and every session, and never removes any (its own clean-up drops
 * only nodes left unmodified for a day). Each leadership change adds a kilobyte or so to nodes that are
 * rewritten whole: a cluster whose leaders move often writes ever larger nodes (the fault campaign saw
 * 120 KB per partition and 100 MB of ZooKeeper transaction log a minute after six minutes), until a node
 * reaches ZooKeeper's 1 MB packet limit and the writes fail.
 *
 * <p>These records are diagnostics only (Helix's own reports read them; Krill never does), so the active
 * controller deletes, every {@link #INTERVAL_MS}, each such node larger than {@link #MAX_BYTES}; Helix
 * creates it afresh at the next transition. The delete is version-checked, so a node written meanwhile
 * survives until the next round.
 *
 * <p>Thread-safety: {@link #prune} runs on the store's controller thread.
 */
final class StatusUpdatePruner {
    private static final Logger LOG = LoggerFactory.getLogger(StatusUpdatePruner.class);
    static final long INTERVAL_MS = 60_000;
    static final int MAX_BYTES = 64 * 1024;

    private final ZkSession session;
    private final String root;

    StatusUpdatePruner(ZkSession session, String controllerStatusUpdates) {
        this.session = session;
        this.root = controllerStatusUpdates;
    }

    /** Deletes the status update nodes over {@link #MAX_BYTES}; returns how many it deleted. */
    int prune() {
        int deleted = 0;
        for (String resource : session.childrenOrEmpty(root)) {
            String resourcePath = root + "/" + resource;
            List<String> records = session.childrenOrEmpty(resourcePath);
            for (String record : records) {
                if (deleteIfLarge(resourcePath + "/" + record)) {
                    deleted++;
                }
            }
        }
        if (deleted > 0) {
            LOG.info("deleted {} Helix status update record(s) over {} bytes under {}", deleted, MAX_BYTES, root);
        }
        return deleted;
    }

    private boolean deleteIfLarge(String path) {
        try {
            Stat stat = session.call(zk -> zk.exists(path, false));
            if (stat == null || stat.getDataLength() <= MAX_BYTES || stat.getNumChildren() > 0) {
                return false;
            }
            session.call(zk -> {
                zk.delete(path, stat.getVersion());
                return null;
            });
            return true;
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException
                 | KeeperException.NotEmptyException raced) {
            return false; // deleted or rewritten meanwhile: the next round looks again
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        }
    }
}
