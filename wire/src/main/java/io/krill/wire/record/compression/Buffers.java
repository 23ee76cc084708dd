package io.krill.wire.record.compression;

import io.krill.wire.record.CorruptRecordException;

/**
 * Small helpers shared by the codecs. Stateless, thread-safe.
 */
final class Buffers {
    /** Output is produced in windows of at most this many bytes, so a bomb is caught early. */
    static final int WINDOW = 64 * 1024;

    private Buffers() {
    }

    static CorruptRecordException tooLarge(String codec, int maxBytes) {
        return new CorruptRecordException(codec + " payload decompresses to more than the limit of " + maxBytes
                + " bytes");
    }

    static CorruptRecordException corrupt(String codec, Throwable cause) {
        return new CorruptRecordException(codec + " payload is corrupt: " + cause.getMessage(), cause);
    }

    static CorruptRecordException corrupt(String codec, String message) {
        return new CorruptRecordException(codec + " payload is corrupt: " + message);
    }
}
