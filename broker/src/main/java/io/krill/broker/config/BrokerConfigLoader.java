package io.krill.broker.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** Reads server.properties and applies {@code --override key=value} arguments. Stateless. */
final class BrokerConfigLoader {
    private BrokerConfigLoader() {
    }

    /**
     * @return the file's properties with the overrides applied (overrides win), in file order then override order
     * @throws ConfigException if the file cannot be read or an override is not {@code key=value}
     */
    static Map<String, String> read(Path file, List<String> overrides) {
        Properties props = new Properties();
        // Like Kafka: java.util.Properties format, ISO-8859-1 with \\u escapes.
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        } catch (NoSuchFileException e) {
            throw new ConfigException("Configuration file " + file + " does not exist");
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException("Cannot read configuration file " + file + ": " + e.getMessage());
        }
        Map<String, String> result = toMap(props);
        result.putAll(parseOverrides(overrides));
        return result;
    }

    /** Parses {@code key=value} strings; the value may contain '=' and may be empty. */
    static Map<String, String> parseOverrides(List<String> overrides) {
        Map<String, String> result = new LinkedHashMap<>();
        for (String o : overrides) {
            int eq = o.indexOf('=');
            String key = eq < 0 ? "" : o.substring(0, eq).trim();
            if (key.isEmpty()) {
                throw new ConfigException("Invalid override '" + o + "': expected key=value");
            }
            result.put(key, o.substring(eq + 1));
        }
        return result;
    }

    static Map<String, String> toMap(Properties props) {
        Map<String, String> result = new LinkedHashMap<>();
        for (String name : props.stringPropertyNames()) {
            result.put(name, props.getProperty(name));
        }
        return result;
    }
}
