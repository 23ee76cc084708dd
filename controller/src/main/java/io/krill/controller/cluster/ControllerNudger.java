package io.krill.controller.cluster;

import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.TopicImage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's rebalancer reads partition records from this image, but Helix runs its pipeline
 * only on changes of its own nodes. So when this broker is the controller and a topic or partition
 * record changed, it touches that topic's ideal state (a conditional write of the same content),
 * which makes Helix run the pipeline. Coalesced: one touch per burst of changes.
 *
 * <p>Thread-safe: {@link #onChange} runs on the metadata notification thread, the touches on the
 * controller thread; the pending flag and the latest topic are atomic/volatile fields owned here.
 */
final class ControllerNudger {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerNudger.class);

    private final StoreContext context;
    private final Executor controllerWork;
    private final BooleanSupplier joined;
    private final AtomicBoolean nudgePending = new AtomicBoolean();
    private volatile String nudgeTopic;

    /** @param joined whether this broker has joined Helix (only a joined broker can be its controller) */
    ControllerNudger(StoreContext context, Executor controllerWork, BooleanSupplier joined) {
        this.context = context;
        this.controllerWork = controllerWork;
        this.joined = joined;
    }

    /** A metadata listener: touches the changed topic's ideal state when this broker is the controller. */
    void onChange(MetadataImage previous, MetadataImage current) {
        if (!joined.getAsBoolean() || current.controllerId() != context.nodeId()) {
            return;
        }
        String changed = changedTopic(previous, current);
        if (changed == null) {
            return;
        }
        nudgeTopic = changed;
        if (nudgePending.compareAndSet(false, true)) {
            controllerWork.execute(() -> {
                nudgePending.set(false);
                touchIdealState(nudgeTopic);
            });
        }
    }

    private void touchIdealState(String topic) {
        Stat stat = new Stat();
        String path = context.paths().idealState(topic);
        try {
            byte[] data = context.session().readOrNull(path, stat);
            if (data != null) {
                context.session().call(zk -> zk.setData(path, data, stat.getVersion()));
            }
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            // changed or deleted meanwhile: that change runs the pipeline itself
        } catch (KeeperException e) {
            throw ZkSession.unexpected(e);
        } catch (ZkUnavailableException e) {
            // The pipeline runs anyway when this broker reconnects (or another broker takes over).
            LOG.warn("could not ask the Helix controller to rebalance {}: {}", topic, e.toString());
        }
    }

    /** A topic that was added or changed between the two images, or null. */
    private static String changedTopic(MetadataImage previous, MetadataImage current) {
        for (TopicImage topic : current.topics()) {
            if (previous.topic(topic.name()) != topic) {
                return topic.name();
            }
        }
        return null;
    }
}
