/** The segmented append-only partition log (see docs/architecture.md). */
package io.krill.log;
