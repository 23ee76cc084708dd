package io.krill.wire.protocol;

/** The body of a request or response of one Kafka API. */
public interface ApiMessage extends Message {

    /** The API key of the schema this message was generated from. */
    short apiKey();
}
