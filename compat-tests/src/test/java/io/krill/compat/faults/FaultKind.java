package io.krill.compat.faults;

/** What the {@link Nemesis} can do to the cluster; each is undone (healed) before the next one starts. */
enum FaultKind {
    /** SIGKILL of a broker (a leader when there is one to pick), restarted after a few seconds. */
    KILL,
    /** SIGSTOP of a broker for longer than the ZooKeeper session timeout, then SIGCONT: a zombie wakes up. */
    PAUSE,
    /** Every packet of one broker dropped: cut from clients, ZooKeeper and the other brokers. */
    ISOLATE,
    /** A leader cut from ZooKeeper only: clients and followers still reach it. */
    LEADER_FROM_ZOOKEEPER,
    /** A minority of brokers cut from the majority and from ZooKeeper (which sides with the majority). */
    MINORITY_SPLIT,
    /** ZooKeeper killed (SIGKILL) and started again on its data. */
    ZOOKEEPER_RESTART,
    /** The small-disk broker's filesystem filled up; then freed and the broker restarted. */
    DISK_FULL,
    /** Every broker SIGKILLed at once (a power cut), all started again together. */
    KILL_ALL,
    /**
     * The other brokers frozen (SIGSTOP, briefly: they stay live and in the ISR) while the leader of most
     * partitions takes more writes, then the leader SIGKILLed and the others thawed: the next leader lacks
     * what the dead one appended meanwhile, which acks=all must not have acknowledged.
     */
    FOLLOWERS_BEHIND
}
