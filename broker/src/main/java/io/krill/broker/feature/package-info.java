/**
 * Feature versioning (KIP-584): the levels this broker can run ({@link io.krill.broker.feature.SupportedFeatures})
 * and the rules for changing the cluster's finalized levels ({@link io.krill.broker.feature.FeatureLevelChange}).
 * The finalized levels themselves live in the metadata image ({@code FinalizedFeatures}).
 */
package io.krill.broker.feature;
