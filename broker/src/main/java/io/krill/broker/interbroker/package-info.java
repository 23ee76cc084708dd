/**
 * What the broker's components use to call other brokers: the {@link io.krill.broker.interbroker.BrokerOutbox},
 * a queue and a thread per destination broker, so that request threads and coordinators never wait on
 * another broker; and {@link io.krill.broker.interbroker.LeaderEndOffsets}, the partition leaders' high
 * watermarks for share groups' lags, asked on one.
 */
package io.krill.broker.interbroker;
