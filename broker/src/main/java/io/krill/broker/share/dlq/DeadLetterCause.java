package io.krill.broker.share.dlq;

/** Why records went to the dead-letter queue; the message is Kafka's {@code __dlq.errors.message} header. */
public enum DeadLetterCause {
    /** A consumer acknowledged them with REJECT. */
    REJECTED("Offset rejected by client."),
    /** Their delivery count reached {@code share.delivery.count.limit}. */
    DELIVERY_COUNT_EXCEEDED("Offset delivery count exceeded the threshold.");

    private final String message;

    DeadLetterCause(String message) {
        this.message = message;
    }

    public String message() {
        return message;
    }
}
