package io.krill.controller.local;

import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The single-node broker's topic registry on disk, {@code <log.dir>/krill-metadata}: a text file,
 * one record per line.
 *
 * <pre>
 * version 1
 * cluster &lt;clusterId&gt;
 * topic &lt;name&gt; &lt;topicId&gt; &lt;partitionCount&gt; &lt;internal:0|1&gt;
 * config &lt;name&gt; &lt;key&gt; &lt;base64(value)&gt;
 * entityConfig &lt;default|urlencoded entity&gt; &lt;key&gt; &lt;base64(value)&gt;
 * producerIds &lt;next unallocated producer id&gt;
 * </pre>
 *
 * <p>Crash behaviour: written whole to {@code krill-metadata.tmp}, fsynced, then renamed over the old
 * file and the directory fsynced, so a crash leaves the old or the new file, never a mix. A stale
 * {@code .tmp} is ignored. Partition state is not stored: on one node the node leads every partition.
 *
 * <p>Stateless; callers serialise writes.
 */
final class MetadataFile {
    static final String NAME = "krill-metadata";
    private static final int VERSION = 1;

    /** What the file holds. */
    record Contents(String clusterId, List<TopicImage> topics, long nextProducerId,
                    Map<String, Map<String, String>> entityConfigs) {
    }

    private static final String DEFAULT_ENTITY = "default";

    private final Path path;

    MetadataFile(Path dir) {
        this.path = dir.resolve(NAME);
    }

    Path path() {
        return path;
    }

    /** Reads the file, or returns null when there is none yet. */
    Contents read(int nodeId) {
        if (!Files.exists(path)) {
            return null;
        }
        try {
            List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
            String clusterId = null;
            long nextProducerId = 0;
            Map<String, String[]> topicLines = new LinkedHashMap<>();
            Map<String, Map<String, String>> configs = new HashMap<>();
            Map<String, Map<String, String>> entityConfigs = new HashMap<>();
            for (int i = 0; i < lines.size(); i++) {
                String[] parts = lines.get(i).split(" ");
                switch (parts[0]) {
                    case "version" -> {
                        if (Integer.parseInt(parts[1]) != VERSION) {
                            throw new IllegalStateException(path + ": unsupported version " + parts[1]);
                        }
                    }
                    case "cluster" -> clusterId = parts[1];
                    case "producerIds" -> nextProducerId = Long.parseLong(parts[1]);
                    case "topic" -> topicLines.put(parts[1], parts);
                    case "config" -> configs.computeIfAbsent(parts[1], k -> new HashMap<>()).put(parts[2],
                            new String(Base64.getDecoder().decode(parts[3]), StandardCharsets.UTF_8));
                    case "entityConfig" -> entityConfigs.computeIfAbsent(DEFAULT_ENTITY.equals(parts[1]) ? ""
                            : URLDecoder.decode(parts[1], StandardCharsets.UTF_8), k -> new HashMap<>()).put(parts[2],
                            new String(Base64.getDecoder().decode(parts[3]), StandardCharsets.UTF_8));
                    case "" -> {
                    }
                    default -> throw new IllegalStateException(path + ":" + (i + 1) + ": unknown record " + parts[0]);
                }
            }
            List<TopicImage> topics = new ArrayList<>();
            for (String[] parts : topicLines.values()) {
                String name = parts[1];
                int count = Integer.parseInt(parts[3]);
                List<PartitionState> partitions = new ArrayList<>(count);
                for (int p = 0; p < count; p++) {
                    partitions.add(LocalMetadataStore.soleReplica(p, nodeId));
                }
                topics.add(new TopicImage(name, UUID.fromString(parts[2]), partitions,
                        configs.getOrDefault(name, Map.of()), parts[4].equals("1")));
            }
            return new Contents(clusterId, topics, nextProducerId, entityConfigs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException("corrupt metadata file " + path + ": " + e.getMessage(), e);
        }
    }

    /** Replaces the file atomically with {@code clusterId}, {@code topics} and the dynamic broker configs. */
    void write(String clusterId, Collection<TopicImage> topics, long nextProducerId,
               Map<String, Map<String, String>> entityConfigs) {
        StringBuilder text = new StringBuilder();
        text.append("version ").append(VERSION).append('\n');
        text.append("cluster ").append(clusterId).append('\n');
        text.append("producerIds ").append(nextProducerId).append('\n');
        for (TopicImage topic : topics) {
            text.append("topic ").append(topic.name()).append(' ').append(topic.id()).append(' ')
                    .append(topic.partitionCount()).append(' ').append(topic.internal() ? 1 : 0).append('\n');
            for (Map.Entry<String, String> config : topic.configs().entrySet()) {
                text.append("config ").append(topic.name()).append(' ').append(config.getKey()).append(' ')
                        .append(Base64.getEncoder().encodeToString(config.getValue().getBytes(StandardCharsets.UTF_8)))
                        .append('\n');
            }
        }
        for (Map.Entry<String, Map<String, String>> entity : entityConfigs.entrySet()) {
            String name = entity.getKey().isEmpty() ? DEFAULT_ENTITY
                    : URLEncoder.encode(entity.getKey(), StandardCharsets.UTF_8);
            for (Map.Entry<String, String> config : entity.getValue().entrySet()) {
                text.append("entityConfig ").append(name).append(' ').append(config.getKey()).append(' ')
                        .append(Base64.getEncoder().encodeToString(config.getValue().getBytes(StandardCharsets.UTF_8)))
                        .append('\n');
            }
        }
        Path tmp = path.resolveSibling(NAME + ".tmp");
        try {
            Files.createDirectories(path.getParent());
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(java.nio.ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)));
                channel.force(true);
            }
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel dir = FileChannel.open(path.getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            } catch (IOException ignored) {
                // Some file systems cannot fsync a directory; the rename is still atomic there.
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path, e);
        }
    }
}
