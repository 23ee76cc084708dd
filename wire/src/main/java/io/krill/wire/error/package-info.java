/** Kafka protocol error codes ({@link io.krill.wire.error.Errors}) and the exception that carries one. */
package io.krill.wire.error;
