/** Stock Kafka clients and tools against a running Krill broker. */
package io.krill.compat;
