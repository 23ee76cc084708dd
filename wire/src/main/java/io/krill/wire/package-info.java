/** The Kafka wire protocol: generated message codecs, the record batch flyweight, error codes. */
package io.krill.wire;
