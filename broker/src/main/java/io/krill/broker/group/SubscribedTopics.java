package io.krill.broker.group;

import io.krill.controller.metadata.BrokerInfo;
import io.krill.controller.metadata.MetadataImage;
import io.krill.controller.metadata.PartitionState;
import io.krill.controller.metadata.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The metadata of the topics a consumer or share group subscribes to, which the group's target assignment is
 * computed from: when it changes the group epoch moves. It covers what Kafka's metadata hash
 * ({@code ModernGroup.computeMetadataHash}) covers, each topic's id, name, partition count and the racks
 * of each partition's replicas (their brokers' racks), so a topic deleted and created again under the
 * same name moves the epoch and is assigned under its new id. Compared by equality; its {@link #hash} is
 * stored with the group epoch (Kafka's MetadataHash, computed Krill's way), so that a coordinator loading
 * the group moves the epoch if the metadata changed meanwhile ({@link #STALE}).
 * Krill's image lists live brokers only (Kafka's, every registered one), so with racks set a replica's
 * broker going down or coming back moves the epoch too, where Kafka's hash moves only when a rack changes.
 *
 * <p>Thread-safety: stateless; {@link #of} expects the caller to hold the group's monitor (it resolves
 * members' regular expressions in place).
 */
final class SubscribedTopics {
    /** One subscribed topic as the image has it; {@code racks} lists, by partition, its replicas' racks. */
    record Topic(String name, UUID id, int partitions, List<Set<String>> racks) {
    }

    /**
     * Metadata no image gives (a topic without a name): the subscribed topics' metadata of a loaded group whose
     * stored hash is not that of the metadata now, so that its next heartbeat moves the group epoch.
     */
    static final Map<String, Topic> STALE = Map.of("", new Topic("", new UUID(0, 0), 0, List.of()));

    private SubscribedTopics() {
    }

    /**
     * A 64-bit FNV-1a hash of the metadata (each topic's name, id, partition count and racks by partition, in
     * name order); 0 for none, as Kafka's. Stable across brokers and restarts.
     */
    static long hash(Map<String, Topic> topics) {
        if (topics.isEmpty()) {
            return 0;
        }
        StringBuilder text = new StringBuilder();
        new TreeMap<>(topics).values().forEach(t -> text.append(t.name()).append('\0').append(t.id()).append('\0')
                .append(t.partitions()).append('\0').append(t.racks()).append('\n'));
        long hash = 0xcbf29ce484222325L;
        for (byte b : text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
        }
        return hash;
    }

    /**
     * The metadata of a loaded group: {@code now}, the subscribed topics' metadata in the current image, if
     * its hash is the one stored, else {@link #STALE}.
     */
    static Map<String, Topic> loaded(Map<String, Topic> now, long storedHash) {
        return hash(now) == storedHash ? now : STALE;
    }

    /**
     * The subscribed topics that exist in {@code image}, by name. A regex is resolved against the image
     * (full matches, internal topics excluded, as Kafka), again whenever the image changes: a topic created
     * later that matches is assigned at the next heartbeat. Only the topics the member's principal may
     * describe match (Kafka's filter of resolved regexes); ACLs are in the image, so a new ACL is seen at
     * the member's next heartbeat too.
     */
    static Map<String, Topic> of(ConsumerGroup cg, MetadataImage image) {
        Map<String, Topic> topics = new TreeMap<>();
        if (image == null) {
            return topics;
        }
        for (ConsumerGroup.Member m : cg.members.values()) {
            // A member restored from the log keeps the topics its regex matched until it heartbeats here.
            if (m.regex != null && m.describableTopics != ConsumerGroup.NO_TOPICS
                    && (m.regexImage != image || !m.describableTopics.equals(m.regexFilteredBy))) {
                Set<String> matched = new TreeSet<>();
                for (TopicImage t : image.topics()) {
                    if (!t.internal() && m.regex.matches(t.name()) && m.describableTopics.test(t.name())) {
                        matched.add(t.name());
                    }
                }
                m.regexTopics = matched;
                m.regexImage = image;
                m.regexFilteredBy = m.describableTopics;
            }
        }
        return of(cg.subscribedTopics(), image);
    }

    /** The topics named that exist in {@code image}, by name (a share group's subscriptions: names only). */
    static Map<String, Topic> of(Set<String> names, MetadataImage image) {
        Map<String, Topic> topics = new TreeMap<>();
        if (image == null) {
            return topics;
        }
        for (String name : names) {
            TopicImage t = image.topic(name);
            if (t != null) {
                topics.put(name, new Topic(name, t.id(), t.partitionCount(), racks(t, image)));
            }
        }
        return topics;
    }

    private static List<Set<String>> racks(TopicImage topic, MetadataImage image) {
        List<Set<String>> racks = new ArrayList<>(topic.partitionCount());
        for (PartitionState p : topic.partitions()) {
            Set<String> partitionRacks = new TreeSet<>();
            for (int replica : p.replicas()) {
                BrokerInfo broker = image.broker(replica);
                if (broker != null && broker.rack() != null) {
                    partitionRacks.add(broker.rack());
                }
            }
            racks.add(partitionRacks);
        }
        return racks;
    }
}
