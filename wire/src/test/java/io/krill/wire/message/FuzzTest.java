package io.krill.wire.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.krill.wire.message.RandomMessages.Flavor;
import io.krill.wire.message.SchemaCatalog.Schema;
import io.krill.wire.protocol.MalformedMessageException;
import io.krill.wire.protocol.Message;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Feeds every message class, at every version, mutations of valid encodings: every truncation of
 * two samples, bit flips, random bytes, lengths and counts forced huge or negative, over-long
 * varints, insertions, deletions and garbage. A read may succeed (and the message must then write
 * back exactly {@code size()} bytes) or throw {@link MalformedMessageException}; nothing else.
 * Where the JVM can count a thread's allocations, each read must allocate no more than a small
 * constant plus a linear multiple of its input: a claimed length never sizes an allocation.
 */
class FuzzTest {
    private static final long SEED = Long.getLong("krill.fuzz.seed", 4242L);
    private static final int MUTATIONS = Integer.getInteger("krill.fuzz.mutations", 15000);
    private static final int SAMPLES = 4;
    private static final int MAX_REPORTED = 20;
    private static final int[] INTS = {0x7fffffff, 0xffffffff, 0x80000000, 0xfffffffe, 0x7ffffffe, 0x00ffffff, 2, 0};
    private static final byte[][] VARINTS = {
        {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f},
        {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01},
        {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80},
        {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07},
        {(byte) 0xff, (byte) 0xff, 0x03},
        {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f},
    };

    private final AllocationMeter meter = AllocationMeter.create();
    private final List<String> failures = new ArrayList<>();
    private int failureCount;
    private long parsed;
    private long rejected;
    private long maxAllocated;
    private int maxAllocatedInput;

    @Test
    void malformedInputOnlyEverThrowsMalformedMessageException() {
        long start = System.nanoTime();
        int pairs = 0;
        for (Schema schema : SchemaCatalog.all()) {
            Class<?> cls = RandomMessages.load(schema.krillClassName());
            for (short version : schema.versions()) {
                Random rnd = new Random(SEED * 31 + schema.name().hashCode() * 1_000_003L + version);
                RandomMessages gen = new RandomMessages(Flavor.KRILL, rnd);
                byte[][] samples = new byte[SAMPLES][];
                for (int i = 0; i < SAMPLES; i++) {
                    samples[i] = KrillCodec.write((Message) gen.build(schema, version), version);
                }
                String where = "seed=" + SEED + " schema=" + schema.name() + " version=" + version;
                for (int s = 0; s < 2; s++) {
                    for (int len = 0; len < samples[s].length; len++) {
                        decode(cls, Arrays.copyOf(samples[s], len), version, where + " truncation");
                    }
                }
                for (int m = 0; m < MUTATIONS; m++) {
                    byte[] input = mutate(samples[rnd.nextInt(SAMPLES)], rnd);
                    decode(cls, input, version, where + " mutation " + m);
                }
                pairs++;
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("fuzz: %d inputs over %d (schema,version) pairs: %d parsed, %d rejected as malformed, "
                + "largest allocation by one read %d bytes (for %d input bytes)%s, %d ms, seed %d%n",
            parsed + rejected, pairs, parsed, rejected, maxAllocated, maxAllocatedInput,
            meter.available() ? "" : " (not measurable here)", millis, SEED);
        if (!failures.isEmpty()) {
            fail(failureCount + " failures" + (failureCount > failures.size() ? ", the first " + failures.size() : "")
                + ":\n" + String.join("\n", failures));
        }
        assertTrue(rejected > parsed, "most mutations should be rejected");
    }

    private void decode(Class<?> cls, byte[] input, short version, String where) {
        Message m = (Message) RandomMessages.newInstance(cls);
        long before = meter.allocated();
        boolean ok = read(m, input, version, where);
        long allocated = meter.allocated() - before;
        if (allocated > allowance(input)) {
            // Retry once: the first use of a code path may allocate for class loading or caches.
            before = meter.allocated();
            read((Message) RandomMessages.newInstance(cls), input, version, where);
            allocated = meter.allocated() - before;
            if (allocated > allowance(input)) {
                report(where + ": allocated " + allocated + " bytes for " + input.length + " input bytes");
            }
        }
        if (allocated > maxAllocated) {
            maxAllocated = allocated;
            maxAllocatedInput = input.length;
        }
        if (ok) {
            parsed++;
        } else {
            rejected++;
            return;
        }
        try {
            KrillCodec.write(m, version);
        } catch (Throwable t) {
            report(where + ": parsed but could not write back: " + t + " on " + ConformanceTest.hex(input));
        }
    }

    /** Reads; true if parsed, false if rejected as malformed; any other throwable is a failure. */
    private boolean read(Message m, byte[] input, short version, String where) {
        try {
            m.read(Unpooled.wrappedBuffer(input), version);
            return true;
        } catch (MalformedMessageException e) {
            return false;
        } catch (Throwable t) {
            report(where + ": read threw " + t + " on " + ConformanceTest.hex(input));
            return false;
        }
    }

    /**
     * Objects cost more than the bytes they decode from (a 1-byte struct is a ~40-byte object plus a
     * list slot, and a truncation exception carries a stack trace), so the bound is a constant plus a
     * linear term; what it rules out is an allocation sized by a claimed length.
     */
    private long allowance(byte[] input) {
        return meter.available() ? 64 * 1024 + 256L * input.length : Long.MAX_VALUE;
    }

    private void report(String failure) {
        failureCount++;
        if (failures.size() < MAX_REPORTED) {
            failures.add(failure);
        }
    }

    private static byte[] mutate(byte[] sample, Random rnd) {
        byte[] b = sample.clone();
        int kind = rnd.nextInt(10);
        if (b.length == 0 && kind < 8) {
            kind = 8;
        }
        switch (kind) {
            case 0 -> {
                for (int i = 1 + rnd.nextInt(3); i > 0; i--) {
                    int p = rnd.nextInt(b.length);
                    b[p] ^= (byte) (1 << rnd.nextInt(8));
                }
            }
            case 1 -> {
                for (int i = 1 + rnd.nextInt(4); i > 0; i--) {
                    b[rnd.nextInt(b.length)] = (byte) rnd.nextInt();
                }
            }
            case 2 -> {
                int v = rnd.nextInt(4) == 0 ? rnd.nextInt() : INTS[rnd.nextInt(INTS.length)];
                int p = rnd.nextInt(b.length);
                for (int i = 0; i < 4 && p + i < b.length; i++) {
                    b[p + i] = (byte) (v >>> (24 - 8 * i));
                }
            }
            case 3 -> {
                int v = INTS[rnd.nextInt(INTS.length)];
                int p = rnd.nextInt(b.length);
                b[p] = (byte) (v >>> 8);
                if (p + 1 < b.length) {
                    b[p + 1] = (byte) v;
                }
            }
            case 4 -> {
                byte[] varint = VARINTS[rnd.nextInt(VARINTS.length)];
                int p = rnd.nextInt(b.length);
                System.arraycopy(varint, 0, b, p, Math.min(varint.length, b.length - p));
            }
            case 5 -> b = Arrays.copyOf(b, rnd.nextInt(b.length));
            case 6 -> {
                int p = rnd.nextInt(b.length + 1);
                int n = 1 + rnd.nextInt(3);
                byte[] out = new byte[b.length + n];
                System.arraycopy(b, 0, out, 0, p);
                for (int i = 0; i < n; i++) {
                    out[p + i] = (byte) rnd.nextInt();
                }
                System.arraycopy(b, p, out, p + n, b.length - p);
                b = out;
            }
            case 7 -> {
                int p = rnd.nextInt(b.length);
                int n = 1 + rnd.nextInt(Math.min(4, b.length - p));
                byte[] out = new byte[b.length - n];
                System.arraycopy(b, 0, out, 0, p);
                System.arraycopy(b, p + n, out, p, b.length - p - n);
                b = out;
            }
            case 8 -> {
                b = new byte[rnd.nextInt(64)];
                rnd.nextBytes(b);
            }
            default -> {
                byte[] tail = new byte[1 + rnd.nextInt(8)];
                rnd.nextBytes(tail);
                byte[] out = Arrays.copyOf(b, b.length + tail.length);
                System.arraycopy(tail, 0, out, b.length, tail.length);
                b = out;
            }
        }
        return b;
    }

    /**
     * Each input is rejected by the check of its bad claim itself (the message names it), not by a
     * truncation found after reading elements or bytes the claim sized, and without allocating for it.
     */
    @Test
    void hugeClaimedCountsAndLengthsFailFastWithoutAllocating() {
        // ProduceRequest v3 (classic encoding): null transactional id, acks, timeout, then a topic count.
        byte[] produce = {(byte) 0xff, (byte) 0xff, 0, 1, 0, 0, 0, 100, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff,
            1, 2, 3, 4};
        expectMalformed(new ProduceRequest(), produce, (short) 3,
            "array of 2147483647 elements cannot fit in the 4 remaining bytes");
        // ProduceRequest v9 (compact): the same, with a varint count of 2^31-2 elements.
        byte[] compact = {0, 0, 1, 0, 0, 0, 100, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 1, 2, 3, 4};
        expectMalformed(new ProduceRequest(), compact, (short) 9,
            "array of 2147483646 elements cannot fit in the 4 remaining bytes");
        // SaslAuthenticateRequest v0: a bytes field claiming 2 GiB.
        expectMalformed(new SaslAuthenticateRequest(), new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1, 2},
            (short) 0, "need 2147483647 bytes, 2 remaining");
        // A negative length other than -1 is not null but malformed.
        expectMalformed(new SaslAuthenticateRequest(), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe},
            (short) 0, "negative bytes length -2");
        // ApiVersionsRequest v3: software name "a" and version "b" (compact strings), then a tagged-field
        // count of 2^31-1.
        byte[] tags = {2, 'a', 2, 'b', (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07};
        expectMalformed(new ApiVersionsRequest(), tags, (short) 3, "bad tagged field count 2147483647");
        // A varint longer than 5 bytes: its fifth byte already carries more than 32 bits.
        byte[] longVarint = {(byte) 0x81, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x00};
        expectMalformed(new ApiVersionsRequest(), longVarint, (short) 3, "varint longer than 32 bits");
        // Versions the schema does not define.
        expectMalformed(new ProduceRequest(), produce, (short) 2, "ProduceRequest: unsupported version 2");
        expectMalformed(new ProduceRequest(), produce, (short) 14, "ProduceRequest: unsupported version 14");
        expectMalformed(new RequestHeader(), new byte[] {0, 0, 0, 0, 0, 0, 0, 0}, (short) 0,
            "RequestHeader: unsupported version 0");
    }

    private void expectMalformed(Message m, byte[] input, short version, String rejection) {
        // The first read warms up the code path (class loading allocates); the second is measured.
        assertThrows(MalformedMessageException.class, () -> m.read(Unpooled.wrappedBuffer(input), version));
        long before = meter.allocated();
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
            () -> m.read(Unpooled.wrappedBuffer(input), version));
        long allocated = meter.allocated() - before;
        assertEquals(rejection, e.getMessage(), "rejected by the check of the claim, version " + version + " of "
            + m.getClass().getSimpleName() + ": " + ConformanceTest.hex(input));
        if (meter.available()) {
            assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
        }
    }

    /** Allocated bytes of the current thread, where the JVM exposes them. */
    private static final class AllocationMeter {
        private final com.sun.management.ThreadMXBean bean;

        private AllocationMeter(com.sun.management.ThreadMXBean bean) {
            this.bean = bean;
        }

        static AllocationMeter create() {
            if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean b
                && b.isThreadAllocatedMemorySupported()) {
                b.setThreadAllocatedMemoryEnabled(true);
                return new AllocationMeter(b);
            }
            return new AllocationMeter(null);
        }

        boolean available() {
            return bean != null;
        }

        long allocated() {
            return bean == null ? 0 : bean.getCurrentThreadAllocatedBytes();
        }
    }

    /** Without the meter the allocation bounds above check nothing: reported as skipped, not passed. */
    @Test
    void meterSeesAnAllocation() {
        assumeTrue(meter.available(), "this JVM does not count a thread's allocations");
        long before = meter.allocated();
        byte[] big = new byte[1 << 20];
        assertEquals(1 << 20, big.length);
        assertTrue(meter.allocated() - before >= 1 << 20, "the meter saw " + (meter.allocated() - before) + " bytes");
    }
}
