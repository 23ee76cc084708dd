/** Cluster coordination with Apache Helix on ZooKeeper (see docs/architecture.md). */
package io.krill.controller;
