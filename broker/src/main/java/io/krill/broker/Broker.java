package io.krill.broker;

import io.krill.broker.api.ApiHandler;
import io.krill.broker.api.ApiHandlerRegistry;
import io.krill.broker.api.handlers.AddOffsetsToTxnHandler;
import io.krill.broker.api.handlers.CreateAclsHandler;
import io.krill.broker.api.handlers.DeleteAclsHandler;
import io.krill.broker.api.handlers.DescribeAclsHandler;
import io.krill.broker.api.handlers.AddPartitionsToTxnHandler;
import io.krill.broker.api.handlers.AlterClientQuotasHandler;
import io.krill.broker.api.handlers.AlterConfigsHandler;
import io.krill.broker.api.handlers.ApiVersionsHandler;
import io.krill.broker.api.handlers.UpdateFeaturesHandler;
import io.krill.broker.api.handlers.SaslAuthenticateHandler;
import io.krill.broker.api.handlers.SaslHandshakeHandler;
import io.krill.broker.api.handlers.CreatePartitionsHandler;
import io.krill.broker.api.handlers.CreateTopicsHandler;
import io.krill.broker.api.handlers.DeleteGroupsHandler;
import io.krill.broker.api.handlers.AlterShareGroupOffsetsHandler;
import io.krill.broker.api.handlers.DeleteShareGroupOffsetsHandler;
import io.krill.broker.api.handlers.DescribeShareGroupOffsetsHandler;
import io.krill.broker.api.handlers.ShareGroupDescribeHandler;
import io.krill.broker.api.handlers.ShareGroupHeartbeatHandler;
import io.krill.broker.api.handlers.DeleteRecordsHandler;
import io.krill.broker.api.handlers.DeleteTopicsHandler;
import io.krill.broker.api.handlers.DescribeClientQuotasHandler;
import io.krill.broker.api.handlers.DescribeClusterHandler;
import io.krill.broker.api.handlers.DescribeConfigsHandler;
import io.krill.broker.api.handlers.DescribeGroupsHandler;
import io.krill.broker.api.handlers.DescribeLogDirsHandler;
import io.krill.broker.api.handlers.DescribeProducersHandler;
import io.krill.broker.api.handlers.DescribeTransactionsHandler;
import io.krill.broker.api.handlers.DescribeUserScramCredentialsHandler;
import io.krill.broker.api.handlers.DescribeTopicPartitionsHandler;
import io.krill.broker.api.handlers.ElectLeadersHandler;
import io.krill.broker.api.handlers.EndTxnHandler;
import io.krill.broker.api.handlers.AlterPartitionReassignmentsHandler;
import io.krill.broker.api.handlers.AlterUserScramCredentialsHandler;
import io.krill.broker.api.handlers.ListPartitionReassignmentsHandler;
import io.krill.broker.api.handlers.ListTransactionsHandler;
import io.krill.broker.api.handlers.FetchHandler;
import io.krill.broker.api.handlers.FindCoordinatorHandler;
import io.krill.broker.api.handlers.ConsumerGroupDescribeHandler;
import io.krill.broker.api.handlers.ConsumerGroupHeartbeatHandler;
import io.krill.broker.api.handlers.HeartbeatHandler;
import io.krill.broker.api.handlers.IncrementalAlterConfigsHandler;
import io.krill.broker.api.handlers.InitProducerIdHandler;
import io.krill.broker.api.handlers.JoinGroupHandler;
import io.krill.broker.api.handlers.LeaveGroupHandler;
import io.krill.broker.api.handlers.ListGroupsHandler;
import io.krill.broker.api.handlers.GetTelemetrySubscriptionsHandler;
import io.krill.broker.api.handlers.ListConfigResourcesHandler;
import io.krill.broker.api.handlers.PushTelemetryHandler;
import io.krill.broker.api.handlers.ListOffsetsHandler;
import io.krill.broker.api.handlers.MetadataHandler;
import io.krill.broker.api.handlers.OffsetCommitHandler;
import io.krill.broker.api.handlers.OffsetDeleteHandler;
import io.krill.broker.api.handlers.OffsetFetchHandler;
import io.krill.broker.api.handlers.OffsetForLeaderEpochHandler;
import io.krill.broker.api.handlers.ProduceHandler;
import io.krill.broker.api.handlers.SyncGroupHandler;
import io.krill.broker.api.handlers.TxnOffsetCommitHandler;
import io.krill.broker.api.handlers.WriteTxnMarkersHandler;
import io.krill.broker.api.handlers.InitializeShareGroupStateHandler;
import io.krill.broker.api.handlers.ReadShareGroupStateHandler;
import io.krill.broker.api.handlers.WriteShareGroupStateHandler;
import io.krill.broker.api.handlers.DeleteShareGroupStateHandler;
import io.krill.broker.api.handlers.ReadShareGroupStateSummaryHandler;
import io.krill.broker.api.handlers.ShareAcknowledgeHandler;
import io.krill.broker.api.handlers.ShareFetchHandler;
import io.krill.broker.config.GroupConfigLookup;
import io.krill.broker.share.ShareFetcher;
import io.krill.broker.share.SharePartitionManager;
import io.krill.broker.share.ShareSessionCache;
import io.krill.broker.share.dlq.DeadLetterWriter;
import io.krill.broker.share.state.DefaultShareStatePersister;
import io.krill.broker.share.state.ShareCoordinator;
import io.krill.broker.share.state.ShareCoordinatorConfig;
import io.krill.broker.share.state.ShareStatePersister;
import io.krill.broker.fetch.FetchSessionCache;
import io.krill.broker.config.BrokerConfig;
import io.krill.broker.config.SecurityProtocol;
import io.krill.broker.config.DynamicBrokerConfig;
import io.krill.broker.config.Listener;
import io.krill.broker.security.authorizer.Authorization;
import io.krill.broker.config.LogSettings;
import io.krill.broker.config.TopicConfig;
import io.krill.broker.group.GroupCoordinator;
import io.krill.broker.metrics.BrokerMetrics;
import io.krill.broker.metrics.BrokerHttpServer;
import io.krill.broker.console.Console;
import io.krill.broker.telemetry.ClientMetricsManager;
import io.krill.broker.telemetry.ClientTelemetryCollector;
import io.krill.broker.net.NettyServer;
import io.krill.broker.interbroker.LeaderEndOffsets;
import io.krill.broker.security.InterBrokerConnector;
import io.krill.broker.security.ListenerSecurity;
import io.krill.broker.security.authentication.ServerMechanismFactory;
import io.krill.broker.security.sasl.SaslMechanisms;
import io.krill.broker.security.sasl.SaslServerMechanism;
import io.krill.broker.net.RequestMetrics;
import io.krill.broker.partition.LogConfigs;
import io.krill.broker.partition.Partition;
import io.krill.broker.partition.PartitionManager;
import io.krill.broker.purgatory.DelayedOperationPurgatory;
import io.krill.broker.quota.ClientQuotas;
import io.krill.broker.replication.IsrChanger;
import io.krill.broker.replication.ReplicaFetcherManager;
import io.krill.broker.txn.ProducerIdManager;
import io.krill.broker.txn.RemoteVerificationSender;
import io.krill.broker.txn.TransactionCoordinator;
import io.krill.broker.txn.TransactionVerifier;
import io.krill.broker.txn.TransactionalProduceCheck;
import io.krill.controller.cluster.EmbeddedZooKeeper;
import io.krill.controller.cluster.ZooKeeperMetadataStore;
import io.krill.controller.cluster.ZooKeeperStoreConfig;
import io.krill.controller.local.LocalMetadataStore;
import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.MetadataListener;
import io.krill.controller.metadata.MetadataStore;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import io.krill.log.LogManager;
import io.krill.log.LogManagerConfig;
import io.krill.log.Time;
import io.krill.log.TopicPartition;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker: assembles the log manager, cluster metadata, hosted partitions, purgatories, the handler
 * table and the network server, and takes them down in the reverse order.
 *
 * <p>Thread-safety: {@link #start} and {@link #close} are called by one controlling thread.
 */
public final class Broker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    /** Name of the Helix cluster inside the ZooKeeper chroot; the chroot tells Krill clusters apart. */
    static final String HELIX_CLUSTER = "krill";

    private LogManager logManager;
    private EmbeddedZooKeeper embeddedZooKeeper;
    private MetadataStore metadata;
    private DynamicBrokerConfig dynamicConfig;
    private ReplicaFetcherManager fetchers;
    private IsrChanger isrChanger;
    private PartitionManager partitions;
    private DelayedOperationPurgatory<TopicPartition> producePurgatory;
    private DelayedOperationPurgatory<TopicPartition> fetchPurgatory;
    private FetchSessionCache fetchSessions;
    private GroupCoordinator groupCoordinator;
    private TransactionCoordinator transactionCoordinator;
    private RemoteVerificationSender verificationSender;
    private ShareCoordinator shareCoordinator;
    private DefaultShareStatePersister shareStatePersister;
    private LeaderEndOffsets leaderEndOffsets;
    private SharePartitionManager sharePartitions;
    private DeadLetterWriter deadLetterWriter;
    private NettyServer server;
    private SaslMechanisms saslMechanisms;
    private volatile boolean closed;
    private volatile boolean ready;
    private BrokerMetrics metrics;
    private BrokerHttpServer http;
    private Console console;

    private Broker(BrokerConfig config) {
        this.config = config;
    }

    /** Starts a broker and returns once it is ready to serve on every listener. */
    public static Broker start(BrokerConfig config) throws InterruptedException {
        Broker broker = new Broker(config);
        try {
            broker.startUp();
            return broker;
        } catch (RuntimeException | InterruptedException e) {
            broker.close();
            throw e;
        }
    }

    private void startUp() throws InterruptedException {
        long started = System.nanoTime();
        List<Path> logDirs = config.logDirs().stream().map(Path::of).toList();
        metadata = openMetadataStore(logDirs);
        dynamicConfig = new DynamicBrokerConfig(config);
        dynamicConfig.startup(metadata.image());
        metadata.addListener(dynamicConfig);
        logManager = new LogManager(logManagerConfig(logDirs), Time.SYSTEM, topic -> {
            TopicImage image = metadata.image().topic(topic);
            return LogConfigs.from(TopicConfig.resolve(image == null ? Map.of() : image.configs(),
                    dynamicConfig.current()));
        });
        logManager.startup();
        producePurgatory = new DelayedOperationPurgatory<>("produce");
        fetchSessions = new FetchSessionCache(config.socket().maxIncrementalFetchSessionCacheSlots(), metadata::image);
        // every event that may wake a waiting fetch also tells the consumers' fetch sessions
        fetchPurgatory = new DelayedOperationPurgatory<>("fetch", fetchSessions::partitionChanged);
        saslMechanisms = new SaslMechanisms(this::config, () -> metadata.image());
        List<ListenerSecurity> listenerSecurity = listenerSecurity();
        InterBrokerConnector interBroker = InterBrokerConnector.of(config, saslMechanisms);
        fetchers = new ReplicaFetcherManager(config, metadata, interBroker);
        partitions = new PartitionManager(config.nodeId(), logManager, dynamicConfig::current, metadata::isFenced, fetchers,
                this::partitionChanged);
        partitions.startup(metadata.image());
        metadata.addListener(partitions);
        isrChanger = new IsrChanger(config.nodeId(), metadata, partitions, config.replication().replicaLagTimeMaxMs(),
                this::partitionChanged);
        metadata.addListener(isrChanger);
        if (metadata instanceof ZooKeeperMetadataStore zk) {
            zk.addFencingListener(this::fencingChanged);
        }
        metrics = new BrokerMetrics();
        metrics.bindPartitions(partitions, metadata, config.nodeId());
        metrics.bindReplication(isrChanger, fetchers, partitions);
        Authorization authorization = Authorization.fromConfig(config, metadata);
        BrokerContext context = new BrokerContext(dynamicConfig, metadata, partitions, producePurgatory, fetchPurgatory,
                metrics, isrChanger, authorization);
        ProducerIdManager producerIds = new ProducerIdManager(metadata);
        transactionCoordinator = TransactionCoordinator.forBroker(context, producerIds, interBroker);
        metadata.addListener(transactionCoordinator);
        transactionCoordinator.startup(metadata.image());
        verificationSender = new RemoteVerificationSender(config.nodeId(), metadata::image,
                config.listeners().interBrokerListenerName(), interBroker, transactionCoordinator.config().requestTimeoutMs());
        shareCoordinator = ShareCoordinator.forBroker(context, ShareCoordinatorConfig.from(config));
        metadata.addListener(shareCoordinator);
        shareCoordinator.startup(metadata.image());
        shareStatePersister = new DefaultShareStatePersister(config.nodeId(), shareCoordinator, metadata,
                config.listeners().interBrokerListenerName(), interBroker);
        GroupConfigLookup groupConfigs = GroupConfigLookup.of(metadata, dynamicConfig);
        deadLetterWriter = DeadLetterWriter.forBroker(context, groupConfigs, interBroker);
        sharePartitions = new SharePartitionManager(shareStatePersister, deadLetterWriter, groupConfigs,
                fetchPurgatory::checkAndComplete);
        metadata.addListener(sharePartitions);
        ShareFetcher shareFetcher = new ShareFetcher(partitions, sharePartitions,
                new ShareSessionCache(config.shareGroup().maxShareSessions()), groupConfigs);
        BooleanSupplier shareGroupsEnabled = () -> metadata.image().finalizedFeatures()
                .level(FinalizedFeatures.SHARE_VERSION) >= 1;
        leaderEndOffsets = new LeaderEndOffsets(config.nodeId(), metadata::image, (topic, partition) -> {
            Partition hosted = partitions.partition(topic, partition);
            return hosted != null && hosted.isLeader() ? hosted.highWatermark() : -1L;
        }, config.listeners().interBrokerListenerName(), interBroker, config.socket().requestTimeoutMs());
        TransactionVerifier transactionVerifier = new TransactionVerifier(config.nodeId(), transactionCoordinator,
                metadata::image, verificationSender);
        groupCoordinator = GroupCoordinator.forBroker(context, transactionVerifier::verifyTxnOffsetCommit,
                shareStatePersister, groupConfigs, leaderEndOffsets);
        metadata.addListener(groupCoordinator);
        groupCoordinator.startup(metadata.image());
        metrics.bindGroups(groupCoordinator, partitions, metadata);
        ClientQuotas quotas = ClientQuotas.forBroker(config, metrics.registry());
        quotas.startup(metadata.image());
        metadata.addListener(quotas);

        metrics.bindFetchSessions(fetchSessions);
        ClientMetricsManager clientMetrics = new ClientMetricsManager(metadata::image, config.telemetryMaxBytes(),
                config.clientTelemetryMaxSeries(), System::currentTimeMillis);
        metrics.registry().register(new ClientTelemetryCollector(clientMetrics));
        AtomicReference<ApiHandlerRegistry> registry = new AtomicReference<>();
        BooleanSupplier consumerProtocol = () -> metadata.image().finalizedFeatures()
                .level(FinalizedFeatures.GROUP_VERSION) >= 1;
        // share.version >= 1 turns share groups on (KIP-932); 0 until the feature is supported and finalized.
        List<ApiHandler> handlers = List.of(
                new ApiVersionsHandler(registry::get, config.nodeId(), metadata::image),
                new MetadataHandler(context),
                new ProduceHandler(context, new TransactionalProduceCheck(transactionVerifier), quotas),
                new FetchHandler(context, quotas, fetchSessions),
                new ListOffsetsHandler(context),
                new InitProducerIdHandler(producerIds, transactionCoordinator, context.authorization()),
                new CreateTopicsHandler(context),
                new DeleteTopicsHandler(context),
                new DeleteRecordsHandler(context),
                new OffsetForLeaderEpochHandler(context),
                new DescribeConfigsHandler(context),
                new AlterConfigsHandler(context),
                new DescribeLogDirsHandler(logManager, context.authorization()),
                new CreatePartitionsHandler(context),
                new IncrementalAlterConfigsHandler(context),
                new DescribeUserScramCredentialsHandler(context),
                new AlterUserScramCredentialsHandler(context),
                new DescribeClusterHandler(context),
                new DescribeTopicPartitionsHandler(context),
                new ElectLeadersHandler(context),
                new UpdateFeaturesHandler(context, config.nodeId()),
                new AlterPartitionReassignmentsHandler(context),
                new ListPartitionReassignmentsHandler(context),
                new FindCoordinatorHandler(context, groupCoordinator, transactionCoordinator, shareCoordinator),
                new InitializeShareGroupStateHandler(shareCoordinator, context.authorization()),
                new ReadShareGroupStateHandler(shareCoordinator, context.authorization()),
                new WriteShareGroupStateHandler(shareCoordinator, context.authorization()),
                new DeleteShareGroupStateHandler(shareCoordinator, context.authorization()),
                new ReadShareGroupStateSummaryHandler(shareCoordinator, context.authorization()),
                new ShareFetchHandler(context, shareFetcher, shareGroupsEnabled),
                new ShareAcknowledgeHandler(context, shareFetcher, shareGroupsEnabled),
                new JoinGroupHandler(groupCoordinator, context.authorization()),
                new SyncGroupHandler(groupCoordinator, context.authorization()),
                new HeartbeatHandler(groupCoordinator, context.authorization()),
                new LeaveGroupHandler(groupCoordinator, context.authorization()),
                new OffsetCommitHandler(groupCoordinator, context.authorization(), context.metadata()),
                new OffsetFetchHandler(groupCoordinator, context.authorization()),
                new OffsetDeleteHandler(groupCoordinator, context.authorization()),
                new DescribeGroupsHandler(groupCoordinator, context.authorization()),
                new ListGroupsHandler(groupCoordinator, context.authorization()),
                new DeleteGroupsHandler(groupCoordinator, context.authorization()),
                new ConsumerGroupHeartbeatHandler(groupCoordinator, context.authorization(), consumerProtocol),
                new ConsumerGroupDescribeHandler(groupCoordinator, context.authorization(), consumerProtocol),
                new ShareGroupHeartbeatHandler(groupCoordinator, context.authorization(), shareGroupsEnabled),
                new ShareGroupDescribeHandler(groupCoordinator, context.authorization(), shareGroupsEnabled),
                new DescribeShareGroupOffsetsHandler(groupCoordinator, context.authorization(), shareGroupsEnabled),
                new AlterShareGroupOffsetsHandler(groupCoordinator, context.authorization(), shareGroupsEnabled),
                new DeleteShareGroupOffsetsHandler(groupCoordinator, context.authorization(), shareGroupsEnabled),
                new AddPartitionsToTxnHandler(context, transactionCoordinator),
                new AddOffsetsToTxnHandler(transactionCoordinator, groupCoordinator, context.authorization()),
                new EndTxnHandler(transactionCoordinator, context.authorization()),
                new WriteTxnMarkersHandler(context, groupCoordinator),
                new TxnOffsetCommitHandler(groupCoordinator, context.authorization(), context.metadata()),
                new DescribeProducersHandler(context),
                new DescribeTransactionsHandler(transactionCoordinator, context.authorization()),
                new ListTransactionsHandler(transactionCoordinator, context.authorization()),
                new CreateAclsHandler(context),
                new DescribeAclsHandler(context),
                new DeleteAclsHandler(context),
                new SaslHandshakeHandler(),
                new SaslAuthenticateHandler(),
                new DescribeClientQuotasHandler(context),
                new AlterClientQuotasHandler(context),
                new GetTelemetrySubscriptionsHandler(clientMetrics),
                new PushTelemetryHandler(clientMetrics),
                new ListConfigResourcesHandler(context, clientMetrics));
        registry.set(new ApiHandlerRegistry(handlers));

        server = new NettyServer(listenerSecurity, config.socket(), registry.get(),
                new RequestMetrics(metrics.registry()), quotas);
        server.start();
        metadata.registerBroker(brokerInfo(server.boundAddresses()), logManager.hadUncleanShutdown());
        awaitOwnLeaderships(config.zookeeperSessionTimeoutMs());
        if (config.httpPort() > 0) {
            try {
                if (config.consoleEnable()) {
                    console = Console.start(config, metadata::image, interBroker, saslMechanisms,
                            authorization.authorizer());
                }
                http = new BrokerHttpServer(config.httpPort(), metrics, () -> ready && !closed,
                        console == null ? null : console.handler(), console == null ? null : console.tls());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot bind krill.http.port " + config.httpPort(), e);
            }
            LOG.info("Serving /metrics, /health and /ready{} on port {}", console == null ? "" : " and /console/",
                    http.port());
        }
        server.acceptConnections();
        ready = true;
        LOG.info("Krill broker {} of cluster {} ready in {} ms", config.nodeId(), metadata.image().clusterId(),
                (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * The metadata store: ZooKeeper under Helix (an embedded ZooKeeper on loopback, data under the first
     * log dir, when {@code zookeeper.connect} is empty), or with {@code krill.metadata.store=local} a file.
     */
    private MetadataStore openMetadataStore(List<Path> logDirs) {
        if (config.localMetadataStore()) {
            return new LocalMetadataStore(logDirs.get(0), brokerInfo(List.of()), config.clusterId().orElse(null));
        }
        String connect = config.zookeeperConnect();
        if (config.embeddedZooKeeper()) {
            embeddedZooKeeper = EmbeddedZooKeeper.start(logDirs.get(0).resolve("zookeeper"),
                    config.embeddedZooKeeperPort(), EmbeddedZooKeeper.DEFAULT_TICK_MS, true,
                    config.embeddedZooKeeperFsync());
            connect = embeddedZooKeeper.connectString() + "/krill";
            LOG.info("Embedded ZooKeeper on {} (data under {})", embeddedZooKeeper.connectString(),
                    logDirs.get(0).resolve("zookeeper"));
        }
        return new ZooKeeperMetadataStore(ZooKeeperStoreConfig.of(connect, HELIX_CLUSTER, config.nodeId())
                .withClusterId(config.clusterId().orElse(null))
                .withSessionTimeoutMs(config.zookeeperSessionTimeoutMs())
                .withOperationTimeoutMs(Math.max(config.zookeeperConnectionTimeoutMs(), 5_000))
                .withUncleanLeaderElection(config.replication().uncleanLeaderElectionEnable())
                .withMinInsyncReplicas(config.log().minInsyncReplicas())
                .withTopicDefaults(config.log().numPartitions(), config.replication().defaultReplicationFactor())
                .withAutoLeaderRebalance(config.replication().autoLeaderRebalanceEnable(),
                        TimeUnit.SECONDS.toMillis(config.replication().leaderImbalanceCheckIntervalSeconds()),
                        config.replication().leaderImbalancePerBrokerPercentage())
                .withCrashProbe(crashProbeListener()));
    }

    /**
     * The listener the controller's crash probe watches on other brokers, or null for none: off by
     * configuration, or a TLS inter-broker listener, which would close the probe's idle connection at
     * its handshake timeout (every 10 s, with a warning on the probed broker).
     */
    private String crashProbeListener() {
        SecurityProtocol protocol = config.listeners().interBrokerSecurityProtocol();
        boolean tls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
        return config.crashDetection() && !tls ? config.listeners().interBrokerListenerName() : null;
    }

    /**
     * After a restart this broker resigned its leaderships, and where it was the last ISR member (or, the
     * ISR empty, an eligible leader replica) nobody leads until the controller hands them back (a few
     * hundred ms). Waiting for that, bounded, makes
     * "ready" mean ready to produce; after the bound the broker serves anyway (clients retry).
     */
    private void awaitOwnLeaderships(long timeoutMs) throws InterruptedException {
        CountDownLatch settled = new CountDownLatch(1);
        MetadataListener watch = (previous, current) -> {
            if (settled.getCount() > 0 && !hasOrphanedPartitions(current)) {
                settled.countDown();
            }
        };
        metadata.addListener(watch);
        if (hasOrphanedPartitions(metadata.image())
                && !settled.await(timeoutMs, TimeUnit.MILLISECONDS)) {
            LOG.warn("Some partitions whose ISR includes broker {} still have no leader after {} ms; serving anyway",
                    config.nodeId(), timeoutMs);
        }
    }

    private boolean hasOrphanedPartitions(MetadataImage image) {
        for (TopicImage topic : image.topics()) {
            for (PartitionState state : topic.partitions()) {
                if (!state.hasLeader() && (state.isr().contains(config.nodeId())
                        || (state.isr().isEmpty() && state.eligibleLeaderReplicas().contains(config.nodeId())))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A partition's state or high watermark changed: requests waiting on it may complete. */
    private void partitionChanged(TopicPartition tp) {
        producePurgatory.checkAndComplete(tp);
        fetchPurgatory.checkAndComplete(tp);
    }

    /** Unfenced again: the high watermarks held back meanwhile may move. */
    private void fencingChanged(boolean fenced) {
        if (fenced) {
            return;
        }
        for (Partition p : partitions.partitions()) {
            if (p.maybeIncrementHighWatermark()) {
                partitionChanged(p.topicPartition());
            }
        }
    }

    /**
     * The listeners to bind: all but those KRaft settings name as controller listeners (kept in configs
     * copied from Kafka, e.g. the apache/kafka image's CONTROLLER listener); Krill has no KRaft quorum.
     */
    private List<Listener> clientListeners() {
        String controllerNames = config.staticConfigs().getOrDefault("controller.listener.names", "");
        java.util.Set<String> skipped = new java.util.HashSet<>();
        for (String name : controllerNames.split(",")) {
            if (!name.isBlank()) {
                skipped.add(name.trim().toUpperCase(java.util.Locale.ROOT));
            }
        }
        List<Listener> bound = new ArrayList<>();
        for (Listener listener : config.listeners().listeners()) {
            if (skipped.contains(listener.name())) {
                LOG.info("Not binding listener {}: it is a KRaft controller listener (controller.listener.names)",
                        listener.name());
            } else {
                bound.add(listener);
            }
        }
        return bound;
    }

    /**
     * The security of every listener to bind (TLS stores loaded, SASL mechanisms checked), so that a
     * misconfigured listener fails the start before anything is served.
     */
    private List<ListenerSecurity> listenerSecurity() {
        ServerMechanismFactory factory = new ServerMechanismFactory() {
            @Override
            public List<String> enabledMechanisms(String listenerName) {
                return saslMechanisms.enabled(listenerName);
            }

            @Override
            public SaslServerMechanism create(String listenerName, String mechanism) {
                return saslMechanisms.create(listenerName, mechanism);
            }
        };
        List<ListenerSecurity> result = new ArrayList<>();
        for (Listener listener : clientListeners()) {
            ListenerSecurity security = ListenerSecurity.of(config, listener, factory);
            if (security.sasl()) {
                saslMechanisms.checkListener(listener.name());
            }
            result.add(security);
        }
        return result;
    }

    /** This broker as clients reach it; a configured port 0 is replaced by the port actually bound. */
    private BrokerInfo brokerInfo(List<InetSocketAddress> bound) {
        Map<String, Integer> boundPorts = new HashMap<>();
        List<Listener> listeners = clientListeners();
        for (int i = 0; i < bound.size(); i++) {
            boundPorts.put(listeners.get(i).name(), bound.get(i).getPort());
        }
        Map<String, BrokerInfo.Endpoint> endpoints = new HashMap<>();
        java.util.Set<String> served = new java.util.HashSet<>();
        for (Listener listener : listeners) {
            served.add(listener.name());
        }
        for (Listener advertised : config.listeners().advertisedListeners()) {
            if (!served.contains(advertised.name())) {
                continue;
            }
            int port = advertised.port() == 0 ? boundPorts.getOrDefault(advertised.name(), 0) : advertised.port();
            endpoints.put(advertised.name(), new BrokerInfo.Endpoint(advertised.name(), advertised.host(), port));
        }
        return new BrokerInfo(config.nodeId(), config.rack().orElse(null), endpoints);
    }

    private LogManagerConfig logManagerConfig(List<Path> logDirs) {
        LogSettings log = config.log();
        return LogManagerConfig.builder(logDirs)
                .defaultLogConfig(LogConfigs.from(TopicConfig.resolve(Map.of(), config)))
                .retentionCheckIntervalMs(log.retentionCheckIntervalMs())
                .flushCheckIntervalMs(log.flushSchedulerIntervalMs())
                .recoveryPointCheckpointIntervalMs(log.flushOffsetCheckpointIntervalMs())
                .logStartOffsetCheckpointIntervalMs(log.flushStartOffsetCheckpointIntervalMs())
                .cleanerEnabled(log.cleanerEnable())
                .cleanerBackoffMs(log.cleanerBackoffMs())
                .recoveryThreadsPerDataDir(log.numRecoveryThreadsPerDataDir())
                .build();
    }

    /** The port of the HTTP endpoint (/metrics, /health, /ready), or -1 when it is off. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    public BrokerMetrics metrics() {
        return metrics;
    }

    /** The addresses the listeners are bound to, in listener order. */
    public List<InetSocketAddress> boundAddresses() {
        return server.boundAddresses();
    }

    /** The effective configuration: static plus the dynamic layers from the cluster metadata. */
    public BrokerConfig config() {
        return dynamicConfig == null ? config : dynamicConfig.current();
    }

    /**
     * Calls {@code action} (once per failure, any thread) when an I/O error has taken the last online log
     * dir offline: the broker then has nowhere to keep any replica. The process's main halts, as Kafka
     * does, so that the cluster's session expiry moves every leadership and ISR place away from it;
     * in-process brokers of tests do not register this.
     */
    public void onEveryLogDirOffline(Runnable action) {
        logManager.addFailureListener((dir, reason, cause) -> {
            if (logManager.offlineLogDirs().size() >= config.logDirs().size()) {
                action.run();
            }
        });
    }

    public MetadataStore metadata() {
        return metadata;
    }

    public PartitionManager partitions() {
        return partitions;
    }

    /** Where share-partition leaders and the group coordinator keep share-partitions' durable state. */
    public ShareStatePersister shareStatePersister() {
        return shareStatePersister;
    }

    /**
     * Graceful stop (SIGTERM): a controlled shutdown first (this broker stops leading and resigns its
     * leaderships and ISR places in the cluster, so clients move to the new leaders), then the network
     * (in-flight requests finish), the coordinators, and the logs (which writes the clean-shutdown
     * marker), and last the embedded ZooKeeper.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        java.util.LinkedHashMap<String, Runnable> steps = new java.util.LinkedHashMap<>();
        steps.put("http", () -> {
            if (http != null) {
                http.close();
            }
        });
        steps.put("console", () -> {
            if (console != null) {
                console.close();
            }
        });
        // Controlled shutdown: stop leading, stop fetching, and hand leaderships over while clients can
        // still reach this broker and be told NOT_LEADER_OR_FOLLOWER; only then close the sockets.
        steps.put("stop leading", () -> {
            if (partitions != null) {
                partitions.stopLeading();
            }
        });
        steps.put("replica fetchers", () -> {
            if (fetchers != null) {
                fetchers.close();
            }
        });
        steps.put("ISR changes", () -> {
            if (isrChanger != null) {
                isrChanger.close();
            }
        });
        steps.put("metadata (resign, leave)", () -> {
            if (metadata != null) {
                metadata.close();
            }
        });
        steps.put("share dead-letter writer", () -> {
            if (deadLetterWriter != null) {
                deadLetterWriter.close(); // before the network: a Produce to this broker's own listener ends
            }
        });
        steps.put("network", () -> {
            if (server != null) {
                server.shutdown(config.socket().requestTimeoutMs());
            }
        });
        steps.put("transaction verifier", () -> {
            if (verificationSender != null) {
                verificationSender.close();
            }
        });
        steps.put("leader end offsets", () -> {
            if (leaderEndOffsets != null) {
                leaderEndOffsets.close();
            }
        });
        steps.put("share partitions", () -> {
            if (sharePartitions != null) {
                sharePartitions.close();
            }
        });
        steps.put("share state persister", () -> {
            if (shareStatePersister != null) {
                shareStatePersister.close();
            }
        });
        steps.put("share coordinator", () -> {
            if (shareCoordinator != null) {
                shareCoordinator.close();
            }
        });
        steps.put("transaction coordinator", () -> {
            if (transactionCoordinator != null) {
                transactionCoordinator.close();
            }
        });
        steps.put("group coordinator", () -> {
            if (groupCoordinator != null) {
                groupCoordinator.close();
            }
        });
        steps.put("purgatories", () -> {
            if (producePurgatory != null) {
                producePurgatory.close();
            }
            if (fetchPurgatory != null) {
                fetchPurgatory.close();
            }
        });
        steps.put("logs", () -> {
            if (logManager != null) {
                logManager.close();
            }
        });
        steps.put("embedded ZooKeeper", () -> {
            if (embeddedZooKeeper != null) {
                embeddedZooKeeper.close();
            }
        });
        RuntimeException failure = null;
        long started = System.nanoTime();
        StringBuilder slow = new StringBuilder();
        for (Map.Entry<String, Runnable> step : steps.entrySet()) {
            long stepStarted = System.nanoTime();
            try {
                step.getValue().run();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
            long stepMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stepStarted);
            if (stepMs >= 10) {
                slow.append(slow.length() == 0 ? "" : ", ").append(step.getKey()).append(' ').append(stepMs).append(" ms");
            }
        }
        LOG.info("Krill broker {} stopped in {} ms ({})", config.nodeId(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), slow.length() == 0 ? "no step took 10 ms" : slow);
        if (failure != null) {
            throw failure;
        }
    }
}
