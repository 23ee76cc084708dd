/**
 * The web console (docs/console.md; read-only unless krill.console.read.only=false): static page files, the JSON API under
 * {@code /console/api/}, which any broker answers for the whole cluster by asking the other brokers over
 * the inter-broker listener ({@link io.krill.broker.console.BrokerClient}), the in-memory history of
 * records-in and lag ({@link io.krill.broker.console.ConsoleHistory}) and the console's security (HTTP
 * Basic checked as the console listener checks passwords, ACLs per principal).
 */
package io.krill.broker.console;
