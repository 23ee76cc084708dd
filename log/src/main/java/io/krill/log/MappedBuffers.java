package io.krill.log;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.MappedByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Explicit unmapping of index mappings through {@code sun.misc.Unsafe.invokeCleaner} (module
 * jdk.unsupported, no JVM flags needed). Without it the mapping lives until garbage collection, which is
 * correct but keeps address space and file blocks longer. Callers guarantee no thread touches the buffer
 * afterwards (reference counting in {@link AbstractIndex}); touching an unmapped buffer crashes the JVM.
 */
final class MappedBuffers {
    private static final Logger log = LoggerFactory.getLogger(MappedBuffers.class);
    private static final Object UNSAFE;
    private static final Method INVOKE_CLEANER;

    static {
        Object unsafe = null;
        Method invoke = null;
        try {
            Class<?> cls = Class.forName("sun.misc.Unsafe");
            Field f = cls.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = f.get(null);
            invoke = cls.getMethod("invokeCleaner", java.nio.ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.info("explicit unmapping unavailable, index mappings are freed by GC: {}", e.toString());
        }
        UNSAFE = unsafe;
        INVOKE_CLEANER = invoke;
    }

    private MappedBuffers() {
    }

    static void unmap(MappedByteBuffer buffer) {
        if (INVOKE_CLEANER == null || buffer == null) {
            return;
        }
        try {
            INVOKE_CLEANER.invoke(UNSAFE, buffer);
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.warn("unmapping an index failed, left to GC", e);
        }
    }
}
