package io.krill.wire.message;

import io.krill.wire.generator.FieldSpec;
import io.krill.wire.generator.FieldType;
import io.krill.wire.generator.StructSpec;
import io.krill.wire.message.SchemaCatalog.Schema;
import io.krill.wire.protocol.ByteBufRecords;
import io.krill.wire.protocol.Message;
import io.netty.buffer.Unpooled;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Builds random, valid instances of either kafka-clients' message classes or Krill's, by reflection,
 * guided by the schema: only fields present at the version are set, nulls only where nullable,
 * tagged fields sometimes left at their default, and unknown tagged fields sometimes injected into
 * flexible structs (with tags no field of the struct declares).
 *
 * <p>Not thread-safe (it owns a {@link Random}).
 */
final class RandomMessages {
    enum Flavor { KAFKA, KRILL }

    private static final Map<Class<?>, Map<String, Method>> SETTERS = new ConcurrentHashMap<>();
    private static final String[] ODD_CHARS = {"é", "中", "\uD83D\uDE00", "ß", "\u0000", "'"};

    private final Flavor flavor;
    private final Random rnd;

    RandomMessages(Flavor flavor, Random rnd) {
        this.flavor = flavor;
        this.rnd = rnd;
    }

    Class<?> topClass(Schema schema) {
        return load(flavor == Flavor.KAFKA ? schema.kafkaClassName() : schema.krillClassName());
    }

    /** A random instance of the schema's top-level class, valid at {@code version}. */
    Object build(Schema schema, short version) {
        Class<?> top = topClass(schema);
        return buildStruct(schema, top, top, schema.struct(""), version, 0);
    }

    private Object buildStruct(Schema schema, Class<?> top, Class<?> cls, StructSpec struct, short version,
                               int depth) {
        Object o = newInstance(cls);
        int maxTag = -1;
        TreeSet<Integer> usedTags = new TreeSet<>();
        for (FieldSpec f : struct.fields()) {
            if (f.hasTag()) {
                usedTags.add(f.tag());
                maxTag = Math.max(maxTag, f.tag());
            }
            if (!f.versions().contains(version)) {
                continue;
            }
            if (f.taggedVersions().contains(version) && rnd.nextInt(3) == 0) {
                continue;
            }
            Method setter = setter(cls, "set" + f.capitalizedName());
            Object value = value(schema, top, f, setter.getParameterTypes()[0], version, depth);
            invoke(setter, o, value);
        }
        if (schema.spec().flexibleVersions().contains(version) && rnd.nextInt(4) == 0) {
            int tag = -1;
            int n = 1 + rnd.nextInt(2);
            for (int i = 0; i < n; i++) {
                tag++;
                while (usedTags.contains(tag) || rnd.nextInt(3) == 0) {
                    tag++;
                }
                addUnknownTag(o, tag, bytes(rnd.nextInt(5)));
            }
        }
        return o;
    }

    private void addUnknownTag(Object o, int tag, byte[] data) {
        if (flavor == Flavor.KAFKA) {
            ((org.apache.kafka.common.protocol.Message) o).unknownTaggedFields().add(new RawTaggedField(tag, data));
        } else {
            ((Message) o).unknownTaggedFields().add(new io.krill.wire.protocol.RawTaggedField(tag, data));
        }
    }

    private Object value(Schema schema, Class<?> top, FieldSpec f, Class<?> paramType, short version, int depth) {
        if (f.nullableVersions().contains(version) && rnd.nextInt(6) == 0) {
            return null;
        }
        FieldType t = f.type();
        if (t.isArray()) {
            int n = rnd.nextInt(depth < 2 ? 4 : 2);
            Collection<Object> out = paramType == List.class ? new ArrayList<>(n) : collection(paramType);
            for (int i = 0; i < n; i++) {
                out.add(element(schema, top, t.element(), version, depth + 1));
            }
            return out;
        }
        if (t.kind() == FieldType.Kind.BYTES) {
            byte[] b = bytes(length());
            if (f.zeroCopy()) {
                return flavor == Flavor.KAFKA ? ByteBuffer.wrap(b) : Unpooled.wrappedBuffer(b);
            }
            return b;
        }
        if (t.kind() == FieldType.Kind.RECORDS) {
            byte[] b = bytes(rnd.nextInt(60));
            return flavor == Flavor.KAFKA ? MemoryRecords.readableRecords(ByteBuffer.wrap(b))
                : ByteBufRecords.of(Unpooled.wrappedBuffer(b));
        }
        return element(schema, top, t, version, depth + 1);
    }

    private Object element(Schema schema, Class<?> top, FieldType t, short version, int depth) {
        return switch (t.kind()) {
            case BOOL -> rnd.nextBoolean();
            case INT8 -> (byte) smallOr(rnd.nextInt());
            case INT16 -> (short) smallOr(rnd.nextInt());
            case UINT16 -> rnd.nextInt(0x10000);
            case INT32 -> smallOr(rnd.nextInt());
            case UINT32 -> rnd.nextLong() & 0xffffffffL;
            case INT64 -> rnd.nextBoolean() ? (long) smallOr(0) : rnd.nextLong();
            case FLOAT64 -> rnd.nextBoolean() ? rnd.nextInt(100) / 4.0 : (rnd.nextDouble() - 0.5) * 1e12;
            case UUID -> flavor == Flavor.KAFKA ? new Uuid(rnd.nextLong(), rnd.nextLong())
                : new java.util.UUID(rnd.nextLong(), rnd.nextLong());
            case STRING -> string();
            case STRUCT -> buildStruct(schema, top, load(top.getName() + "$" + t.structName()),
                schema.struct(t.structName()), version, depth);
            default -> throw new IllegalArgumentException("no random " + t);
        };
    }

    private int smallOr(int random) {
        return rnd.nextInt(3) == 0 ? random : rnd.nextInt(7) - 2;
    }

    private int length() {
        return rnd.nextInt(20) == 0 ? 120 + rnd.nextInt(200) : rnd.nextInt(9);
    }

    private String string() {
        int n = length();
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            if (rnd.nextInt(8) == 0) {
                b.append(ODD_CHARS[rnd.nextInt(ODD_CHARS.length)]);
            } else {
                b.append((char) ('a' + rnd.nextInt(26)));
            }
        }
        return b.toString();
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    @SuppressWarnings("unchecked")
    private static Collection<Object> collection(Class<?> type) {
        return (Collection<Object>) newInstance(type);
    }

    static Class<?> load(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("missing class " + name, e);
        }
    }

    static Object newInstance(Class<?> cls) {
        try {
            return cls.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + cls.getName(), e);
        }
    }

    private static Method setter(Class<?> cls, String name) {
        Map<String, Method> byName = SETTERS.computeIfAbsent(cls, c -> {
            Map<String, Method> m = new ConcurrentHashMap<>();
            for (Method method : c.getMethods()) {
                if (method.getName().startsWith("set") && method.getParameterCount() == 1) {
                    m.put(method.getName(), method);
                }
            }
            return m;
        });
        Method m = byName.get(name);
        if (m == null) {
            throw new IllegalStateException(cls.getName() + " has no " + name);
        }
        return m;
    }

    private static void invoke(Method m, Object target, Object value) {
        try {
            m.invoke(target, value);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(m + " with " + value, e);
        }
    }
}
