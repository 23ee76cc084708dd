package io.krill.controller.cluster;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the active controller does every so often, on the controller thread, once this broker has
 * joined: with {@code auto.leader.rebalance.enable}, move leadership back to preferred replicas
 * ({@link PreferredLeaderBalancer}). Each task reschedules itself until the store closes, whether or not this broker is the active
 * controller at the time.
 *
 * <p>Thread-safe: {@link #start} is called once (under the store's registration lock); the tasks run on
 * the controller thread only, which is where the balancer keeps its state.
 */
final class PeriodicControllerTasks {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodicControllerTasks.class);

    private final StoreContext context;
    private final Executor controllerWork;
    private final BooleanSupplier activeController;
    private final PreferredLeaderBalancer leaderBalancer;

    /**
     * @param activeController whether this broker is, right now, the active controller
     * @param elections how the balancer asks for preferred-leader elections
     */
    PeriodicControllerTasks(StoreContext context, Executor controllerWork, BooleanSupplier activeController,
                            PreferredLeaderBalancer.Elections elections) {
        this.context = context;
        this.controllerWork = controllerWork;
        this.activeController = activeController;
        this.leaderBalancer = new PreferredLeaderBalancer(context.config().leaderImbalancePerBrokerPercentage(),
                elections);
    }

    /** Schedules the first run of each task. */
    void start() {
        if (context.config().autoLeaderRebalance()) {
            scheduleLeaderImbalanceCheck();
        }
    }

    /** Every interval, on the controller thread; the next check is scheduled even if this one fails. */
    private void scheduleLeaderImbalanceCheck() {
        if (context.isClosed()) {
            return;
        }
        CompletableFuture.delayedExecutor(context.config().leaderImbalanceCheckIntervalMs(), TimeUnit.MILLISECONDS,
                controllerWork).execute(() -> {
                    try {
                        if (activeController.getAsBoolean()) {
                            leaderBalancer.check(context.image());
                        }
                    } finally {
                        scheduleLeaderImbalanceCheck();
                    }
                });
    }
}
