package io.krill.log;

/** An offset with where it is on disk: the segment's base offset and the byte position in it. */
record LogOffsetMetadata(long offset, long segmentBaseOffset, int position) {
}
