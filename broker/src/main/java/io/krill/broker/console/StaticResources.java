package io.krill.broker.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The console's static files from the class path: the page ({@code /console/<file>} from
 * {@value #PAGE_ROOT}, {@code index.html} for {@code /console/}) and uPlot from its WebJar
 * ({@code /console/vendor/uplot/<file>} from the jar's {@code dist/}). A path is served only when each of
 * its segments is a plain file name (letters, digits, {@code .-_}, not {@code .} or {@code ..}) and its
 * extension has a content type here; anything else is not found.
 *
 * <p>Thread-safety: immutable after construction.
 */
final class StaticResources {
    static final String PAGE_ROOT = "io/krill/broker/console/static/";
    static final String VENDOR_PREFIX = "vendor/uplot/";
    private static final String UPLOT_POM = "META-INF/maven/org.webjars.npm/uplot/pom.properties";
    private static final String UPLOT_FALLBACK_VERSION = "1.6.30";
    private static final int MAX_BYTES = 4 * 1024 * 1024;
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "png", "image/png",
            "svg", "image/svg+xml",
            "ico", "image/x-icon",
            "json", "application/json");

    /** A file to send: its bytes, content type, and whether it is a versioned vendor file (cached long). */
    record Resource(byte[] bytes, String contentType, boolean immutable) {
    }

    private final ClassLoader loader;
    private final String uplotRoot;

    StaticResources(ClassLoader loader) {
        this.loader = loader;
        this.uplotRoot = "META-INF/resources/webjars/uplot/" + uplotVersion(loader) + "/dist/";
    }

    /**
     * The file for {@code path}, the part of the request path after {@code /console/} (already
     * percent-decoded); null when there is none or the path is not a safe one.
     */
    Resource find(String path) {
        String relative = path.isEmpty() ? "index.html" : path;
        if (!isSafe(relative)) {
            return null;
        }
        String type = contentType(relative);
        if (type == null) {
            return null;
        }
        boolean vendor = relative.startsWith(VENDOR_PREFIX);
        String name = vendor ? uplotRoot + relative.substring(VENDOR_PREFIX.length()) : PAGE_ROOT + relative;
        byte[] bytes = read(name);
        return bytes == null ? null : new Resource(bytes, type, vendor);
    }

    /** Whether every '/'-separated segment of {@code path} is a plain, non-dot file name. */
    static boolean isSafe(String path) {
        if (path.isEmpty() || path.length() > 200 || path.startsWith("/") || path.endsWith("/")) {
            return false;
        }
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..") || segment.startsWith(".")) {
                return false;
            }
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || c == '.' || c == '-' || c == '_';
                if (!plain) {
                    return false;
                }
            }
        }
        return true;
    }

    static String contentType(String path) {
        int dot = path.lastIndexOf('.');
        return dot < 0 ? null : TYPES.get(path.substring(dot + 1).toLowerCase(Locale.ROOT));
    }

    private byte[] read(String name) {
        try (InputStream in = loader.getResourceAsStream(name)) {
            if (in == null) {
                return null;
            }
            byte[] bytes = in.readNBytes(MAX_BYTES + 1);
            if (bytes.length > MAX_BYTES) {
                throw new IllegalStateException("console resource " + name + " is larger than " + MAX_BYTES + " bytes");
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read console resource " + name, e);
        }
    }

    /** The uPlot WebJar's version (its directory name), from the jar's Maven properties. */
    private static String uplotVersion(ClassLoader loader) {
        try (InputStream in = loader.getResourceAsStream(UPLOT_POM)) {
            if (in == null) {
                return UPLOT_FALLBACK_VERSION;
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", UPLOT_FALLBACK_VERSION);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + UPLOT_POM, e);
        }
    }
}
