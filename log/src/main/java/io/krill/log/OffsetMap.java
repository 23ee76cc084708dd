package io.krill.log;

import io.netty.buffer.ByteBuf;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The cleaner's key-to-latest-offset map in a fixed budget ({@code log.cleaner.dedupe.buffer.size}):
 * open addressing over one byte array of 24-byte slots (16-byte MD5 of the key, 8-byte offset + 1, 0 =
 * empty). Keys are never stored, so a hash collision (2^-128) would merge two keys: the risk Kafka takes
 * too. Filled to 90% at most. Not thread-safe (one cleaner thread).
 */
final class OffsetMap {
    private static final int HASH = 16;
    private static final int SLOT = HASH + 8;
    private static final double MAX_LOAD = 0.9;

    private final byte[] slots;
    private final int capacity;
    private final MessageDigest md5;
    private final byte[] hash = new byte[HASH];
    private int size;

    OffsetMap(long memoryBytes) {
        long n = Math.max(16, Math.min(memoryBytes, Integer.MAX_VALUE - 64) / SLOT);
        capacity = (int) n;
        slots = new byte[capacity * SLOT];
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    int size() {
        return size;
    }

    /** Keys the map accepts before it counts as full. */
    int maxKeys() {
        return (int) (capacity * MAX_LOAD);
    }

    boolean hasRoomFor(int keys) {
        return (long) size + keys <= maxKeys();
    }

    void clear() {
        Arrays.fill(slots, (byte) 0);
        size = 0;
    }

    private void digest(ByteBuf buf, int index, int length) {
        md5.reset();
        if (buf.hasArray()) {
            md5.update(buf.array(), buf.arrayOffset() + index, length);
        } else {
            md5.update(buf.nioBuffer(index, length));
        }
        try {
            md5.digest(hash, 0, HASH);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    private int probeStart() {
        int h = ((hash[0] & 0xff) << 24) | ((hash[1] & 0xff) << 16) | ((hash[2] & 0xff) << 8) | (hash[3] & 0xff);
        return Math.floorMod(h, capacity);
    }

    private boolean hashAt(int slot) {
        int base = slot * SLOT;
        for (int i = 0; i < HASH; i++) {
            if (slots[base + i] != hash[i]) {
                return false;
            }
        }
        return true;
    }

    private long storedAt(int slot) {
        int base = slot * SLOT + HASH;
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (slots[base + i] & 0xff);
        }
        return v;
    }

    private void store(int slot, long value) {
        int base = slot * SLOT;
        System.arraycopy(hash, 0, slots, base, HASH);
        for (int i = 7; i >= 0; i--) {
            slots[base + HASH + i] = (byte) value;
            value >>>= 8;
        }
    }

    /** Records {@code offset} as the key's latest (offsets are put in increasing order). */
    void put(ByteBuf buf, int keyIndex, int keyLength, long offset) {
        if (size >= maxKeys()) {
            throw new IllegalStateException("offset map is full");
        }
        digest(buf, keyIndex, keyLength);
        int slot = probeStart();
        while (true) {
            long stored = storedAt(slot);
            if (stored == 0) {
                store(slot, offset + 1);
                size++;
                return;
            }
            if (hashAt(slot)) {
                store(slot, offset + 1);
                return;
            }
            slot = slot + 1 == capacity ? 0 : slot + 1;
        }
    }

    /** The key's latest offset, or -1. */
    long get(ByteBuf buf, int keyIndex, int keyLength) {
        digest(buf, keyIndex, keyLength);
        int slot = probeStart();
        while (true) {
            long stored = storedAt(slot);
            if (stored == 0) {
                return -1;
            }
            if (hashAt(slot)) {
                return stored - 1;
            }
            slot = slot + 1 == capacity ? 0 : slot + 1;
        }
    }
}
