package io.krill.broker.group;

import io.krill.wire.error.Errors;
import io.krill.wire.message.ConsumerProtocolSubscription;
import io.krill.wire.message.JoinGroupResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A classic-protocol group: its state, generation, selected protocol, leader, members (static ones
 * also by instance id), the members it waits for (KIP-394 pending joins, pending syncs) and its
 * committed offsets. A group that only stores offsets (a "simple" group: no protocol type) is Empty.
 *
 * <p>Not thread-safe: every access holds the group's monitor ({@code synchronized (group)}). The
 * coordinator never holds two group locks at once.
 */
final class ClassicGroup {
    static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    private static final Map<GroupState, Set<GroupState>> VALID_PREVIOUS = Map.of(
            GroupState.DEAD, EnumSet.allOf(GroupState.class),
            GroupState.COMPLETING_REBALANCE, EnumSet.of(GroupState.PREPARING_REBALANCE),
            GroupState.STABLE, EnumSet.of(GroupState.COMPLETING_REBALANCE),
            GroupState.PREPARING_REBALANCE, EnumSet.of(GroupState.STABLE, GroupState.COMPLETING_REBALANCE,
                    GroupState.EMPTY),
            GroupState.EMPTY, EnumSet.of(GroupState.PREPARING_REBALANCE));

    private final String groupId;
    private final int partition;
    private GroupState state = GroupState.EMPTY;
    /** When the group entered its state; -1 when unknown. */
    private long stateTimestampMs;
    int generationId;
    String protocolType;
    String protocolName;
    String leaderId;
    private final Map<String, ClassicMember> members = new LinkedHashMap<>();
    private final Map<String, String> staticMembers = new HashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED, not yet joined with them. */
    final Set<String> pendingJoinMembers = new HashSet<>();
    /** Members of the new generation that have not sent SyncGroup yet. */
    final Set<String> pendingSyncMembers = new HashSet<>();
    private int numMembersAwaitingJoin;
    /** A member joined during the initial rebalance delay, which then extends. */
    boolean newMemberAdded;
    /** In the initial rebalance delay of a new group: the join phase ends by the delay, not by joins. */
    boolean initialJoinPhase;
    /** Identifies the current join-phase deadline; a deadline task with another token is stale. */
    long rebalanceToken;
    /** Topics the members subscribe to (consumer protocol), null when unknown. */
    private Set<String> subscribedTopics = Set.of();
    private final Map<String, Map<Integer, OffsetAndMetadata>> offsets = new TreeMap<>();
    /** Offsets of transactions not ended yet: not visible until a commit marker. */
    final PendingTxnOffsets pendingTxnOffsets = new PendingTxnOffsets();
    /** Set when the group is of type "consumer" (KIP-848); the classic state then stays Empty. */
    ConsumerGroup consumer;
    /** Set when the group is a share group (KIP-932); the classic state then stays Empty, without offsets. */
    ShareGroup share;

    /**
     * Whether this is only a placeholder, as a failed first request can leave: Empty, no protocol, no
     * member ever, no offsets, no consumer or share side. Kafka would have no group: another type may
     * take the id.
     */
    boolean isBlank() {
        return state == GroupState.EMPTY && consumer == null && share == null && protocolType == null
                && generationId == 0 && members.isEmpty() && pendingJoinMembers.isEmpty() && offsets.isEmpty()
                && pendingTxnOffsets.isEmpty();
    }

    ClassicGroup(String groupId, int partition, long now) {
        this.groupId = groupId;
        this.partition = partition;
        this.stateTimestampMs = now;
    }

    String groupId() {
        return groupId;
    }

    int partition() {
        return partition;
    }

    GroupState state() {
        return state;
    }

    boolean is(GroupState s) {
        return state == s;
    }

    long stateTimestampMs() {
        return stateTimestampMs;
    }

    void transitionTo(GroupState target, long now) {
        if (!VALID_PREVIOUS.get(target).contains(state)) {
            throw new IllegalStateException("group " + groupId + " cannot go from " + state + " to " + target);
        }
        state = target;
        stateTimestampMs = now;
    }

    /** Restores a loaded group's state without the transition checks. */
    void restore(GroupState loaded, long stateTimestamp) {
        state = loaded;
        stateTimestampMs = stateTimestamp;
    }

    // ---- members

    boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    ClassicMember member(String memberId) {
        return members.get(memberId);
    }

    Collection<ClassicMember> members() {
        return members.values();
    }

    int size() {
        return members.size();
    }

    boolean isEmptyOfMembers() {
        return members.isEmpty();
    }

    boolean isLeader(String memberId) {
        return memberId != null && memberId.equals(leaderId);
    }

    /** The member id of the static member {@code instanceId}, or null. */
    String staticMemberId(String instanceId) {
        return instanceId == null ? null : staticMembers.get(instanceId);
    }

    boolean isPendingJoin(String memberId) {
        return pendingJoinMembers.contains(memberId);
    }

    int numMembersAwaitingJoin() {
        return numMembersAwaitingJoin;
    }

    void add(ClassicMember member) {
        if (members.isEmpty()) {
            protocolType = member.protocolType;
        }
        if (leaderId == null) {
            leaderId = member.memberId();
        }
        members.put(member.memberId(), member);
        if (member.isStatic()) {
            staticMembers.put(member.groupInstanceId(), member.memberId());
        }
        if (member.isAwaitingJoin()) {
            numMembersAwaitingJoin++;
        }
        pendingJoinMembers.remove(member.memberId());
    }

    void remove(String memberId) {
        ClassicMember member = members.remove(memberId);
        if (member == null) {
            return;
        }
        if (member.isAwaitingJoin()) {
            numMembersAwaitingJoin--;
        }
        if (member.isStatic() && memberId.equals(staticMembers.get(member.groupInstanceId()))) {
            staticMembers.remove(member.groupInstanceId());
        }
        pendingSyncMembers.remove(memberId);
        if (isLeader(memberId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /** Gives the static member {@code instanceId} the id {@code newMemberId}; returns the member. */
    ClassicMember replaceStaticMember(String instanceId, String oldMemberId, String newMemberId) {
        ClassicMember member = members.remove(oldMemberId);
        if (member == null) {
            throw new IllegalStateException("static member " + instanceId + " has no member " + oldMemberId);
        }
        member.setMemberId(newMemberId);
        members.put(newMemberId, member);
        staticMembers.put(instanceId, newMemberId);
        if (isLeader(oldMemberId)) {
            leaderId = newMemberId;
        }
        if (pendingSyncMembers.remove(oldMemberId)) {
            pendingSyncMembers.add(newMemberId);
        }
        return member;
    }

    void setAwaitingJoin(ClassicMember member, java.util.function.Consumer<JoinGroupResponse> callback) {
        if (member.awaitingJoin == null && callback != null) {
            numMembersAwaitingJoin++;
        } else if (member.awaitingJoin != null && callback == null) {
            numMembersAwaitingJoin--;
        }
        member.awaitingJoin = callback;
    }

    boolean hasAllMembersJoined() {
        return members.size() == numMembersAwaitingJoin && pendingJoinMembers.isEmpty();
    }

    List<ClassicMember> notYetRejoinedMembers() {
        List<ClassicMember> result = new ArrayList<>();
        for (ClassicMember member : members.values()) {
            if (!member.isAwaitingJoin()) {
                result.add(member);
            }
        }
        return result;
    }

    /** If the leader has not rejoined, makes the first member that has the leader. False if none has. */
    boolean maybeElectNewJoinedLeader() {
        if (leaderId != null) {
            ClassicMember leader = members.get(leaderId);
            if (leader != null && leader.isAwaitingJoin()) {
                return true;
            }
        }
        for (ClassicMember member : members.values()) {
            if (member.isAwaitingJoin()) {
                leaderId = member.memberId();
                return true;
            }
        }
        return false;
    }

    int maxRebalanceTimeoutMs() {
        int max = 0;
        for (ClassicMember member : members.values()) {
            max = Math.max(max, member.rebalanceTimeoutMs);
        }
        return max;
    }

    // ---- protocols

    /** The protocols every member supports. */
    Set<String> candidateProtocols() {
        Map<String, Integer> counts = new HashMap<>();
        for (ClassicMember member : members.values()) {
            for (ClassicMember.Protocol p : member.protocols) {
                counts.merge(p.name(), 1, Integer::sum);
            }
        }
        Set<String> candidates = new HashSet<>();
        counts.forEach((name, count) -> {
            if (count == members.size()) {
                candidates.add(name);
            }
        });
        return candidates;
    }

    /**
     * Whether a member with these protocols may join: an empty group takes any non-empty protocol
     * type and list; otherwise the type must match and one protocol must be supported by every member.
     */
    boolean supportsProtocols(String memberProtocolType, List<ClassicMember.Protocol> memberProtocols) {
        if (members.isEmpty()) {
            return memberProtocolType != null && !memberProtocolType.isEmpty() && !memberProtocols.isEmpty();
        }
        if (!memberProtocolType.equals(protocolType)) {
            return false;
        }
        Set<String> candidates = candidateProtocols();
        for (ClassicMember.Protocol p : memberProtocols) {
            if (candidates.contains(p.name())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The protocol of the next generation: among the protocols every member supports, the one most
     * members prefer (each votes for its first supported); ties go to the first voted for.
     */
    String selectProtocol() {
        if (members.isEmpty()) {
            throw new IllegalStateException("cannot select a protocol for the empty group " + groupId);
        }
        Set<String> candidates = candidateProtocols();
        Map<String, Integer> votes = new LinkedHashMap<>();
        for (ClassicMember member : members.values()) {
            votes.merge(member.vote(candidates), 1, Integer::sum);
        }
        String best = null;
        int bestVotes = -1;
        for (Map.Entry<String, Integer> e : votes.entrySet()) {
            if (e.getValue() > bestVotes) {
                best = e.getKey();
                bestVotes = e.getValue();
            }
        }
        return best;
    }

    /** Starts the next generation: CompletingRebalance with a protocol, or Empty without members. */
    void initNextGeneration(long now) {
        generationId++;
        if (!members.isEmpty()) {
            protocolName = selectProtocol();
            subscribedTopics = computeSubscribedTopics();
            transitionTo(GroupState.COMPLETING_REBALANCE, now);
        } else {
            protocolName = null;
            subscribedTopics = Set.of();
            transitionTo(GroupState.EMPTY, now);
        }
        pendingSyncMembers.clear();
        pendingSyncMembers.addAll(members.keySet());
    }

    /** The members with their metadata for the selected protocol, as the leader's JoinGroup lists them. */
    List<JoinGroupResponse.JoinGroupResponseMember> membersForLeader() {
        List<JoinGroupResponse.JoinGroupResponseMember> list = new ArrayList<>(members.size());
        for (ClassicMember member : members.values()) {
            byte[] metadata = member.metadata(protocolName);
            list.add(new JoinGroupResponse.JoinGroupResponseMember()
                    .setMemberId(member.memberId())
                    .setGroupInstanceId(member.groupInstanceId())
                    .setMetadata(metadata == null ? ClassicMember.EMPTY : metadata));
        }
        return list;
    }

    void refreshSubscribedTopics() {
        subscribedTopics = members.isEmpty() ? Set.of() : computeSubscribedTopics();
    }

    private Set<String> computeSubscribedTopics() {
        if (!CONSUMER_PROTOCOL_TYPE.equals(protocolType) || protocolName == null) {
            return null;
        }
        Set<String> topics = new HashSet<>();
        for (ClassicMember member : members.values()) {
            byte[] metadata = member.metadata(protocolName);
            if (metadata == null) {
                return null;
            }
            try {
                ByteBuf buf = Unpooled.wrappedBuffer(metadata);
                short version = buf.readShort();
                ConsumerProtocolSubscription subscription = new ConsumerProtocolSubscription();
                subscription.read(buf, (short) Math.min(version, ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION));
                topics.addAll(subscription.topics());
            } catch (RuntimeException e) {
                return null;
            }
        }
        return topics;
    }

    /** Whether a member subscribes to {@code topic}; when unknown, a consumer group is assumed to. */
    boolean isSubscribedToTopic(String topic) {
        if (members.isEmpty()) {
            return false;
        }
        if (subscribedTopics == null) {
            return CONSUMER_PROTOCOL_TYPE.equals(protocolType);
        }
        return subscribedTopics.contains(topic);
    }

    // ---- offsets

    Map<String, Map<Integer, OffsetAndMetadata>> offsets() {
        return offsets;
    }

    OffsetAndMetadata offset(String topic, int partitionIndex) {
        Map<Integer, OffsetAndMetadata> byPartition = offsets.get(topic);
        return byPartition == null ? null : byPartition.get(partitionIndex);
    }

    void putOffset(String topic, int partitionIndex, OffsetAndMetadata value) {
        offsets.computeIfAbsent(topic, t -> new TreeMap<>()).put(partitionIndex, value);
    }

    void removeOffset(String topic, int partitionIndex) {
        Map<Integer, OffsetAndMetadata> byPartition = offsets.get(topic);
        if (byPartition != null) {
            byPartition.remove(partitionIndex);
            if (byPartition.isEmpty()) {
                offsets.remove(topic);
            }
        }
    }

    boolean hasOffsets() {
        return !offsets.isEmpty();
    }

    /**
     * Checks a member's identity: a static member by instance id (FENCED_INSTANCE_ID when another member
     * id holds it, UNKNOWN_MEMBER_ID when none does), a dynamic one by member id. Null when valid.
     */
    Errors validateMember(String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String existing = staticMembers.get(groupInstanceId);
            if (existing == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!existing.equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
            return null;
        }
        return members.containsKey(memberId) ? null : Errors.UNKNOWN_MEMBER_ID;
    }

    @Override
    public String toString() {
        return "ClassicGroup(" + groupId + ", " + state + ", generation " + generationId + ", " + members.size()
                + " members)";
    }
}
