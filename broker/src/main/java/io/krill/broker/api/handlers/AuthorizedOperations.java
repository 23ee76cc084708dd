package io.krill.broker.api.handlers;

/**
 * The authorized-operations bitfields of DescribeCluster, DescribeTopicPartitions and ConsumerGroupDescribe. Krill has no
 * authorizer, so, like Kafka without one, every operation a resource type supports is authorized (bit n
 * set for AclOperation code n, as Kafka's {@code Utils.to32BitField}). Constants only.
 */
final class AuthorizedOperations {
    /** Kafka's value when the client did not ask for authorized operations. */
    static final int OMITTED = Integer.MIN_VALUE;

    private static final int READ = 3;
    private static final int WRITE = 4;
    private static final int CREATE = 5;
    private static final int DELETE = 6;
    private static final int ALTER = 7;
    private static final int DESCRIBE = 8;
    private static final int CLUSTER_ACTION = 9;
    private static final int DESCRIBE_CONFIGS = 10;
    private static final int ALTER_CONFIGS = 11;
    private static final int IDEMPOTENT_WRITE = 12;

    /** READ, WRITE, CREATE, DESCRIBE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS. */
    static final int TOPIC = bits(READ, WRITE, CREATE, DESCRIBE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS);

    /** CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER, DESCRIBE. */
    static final int CLUSTER = bits(CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER,
            DESCRIBE);

    /** READ, DESCRIBE, DELETE (Kafka's supported operations of a group). */
    static final int GROUP = bits(READ, DESCRIBE, DELETE);

    private AuthorizedOperations() {
    }

    private static int bits(int... operations) {
        int field = 0;
        for (int operation : operations) {
            field |= 1 << operation;
        }
        return field;
    }
}
