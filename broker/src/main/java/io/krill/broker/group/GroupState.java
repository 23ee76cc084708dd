package io.krill.broker.group;

/**
 * The states of a classic-protocol group, with the names DescribeGroups and ListGroups report.
 *
 * <pre>
 * Empty --join--> PreparingRebalance --all joined / rebalance timeout--> CompletingRebalance
 *   ^                 ^      |                                                  |
 *   |                 |      +--no member left--> Empty                         | leader's SyncGroup
 *   |                 +---- join, leave, expiry, metadata change ---- Stable <--+
 *   +-- last offsets expire / DeleteGroups --> Dead (removed from the coordinator)
 * </pre>
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String displayName;

    GroupState(String displayName) {
        this.displayName = displayName;
    }

    /** The name on the wire (DescribeGroups, ListGroups and its states filter). */
    public String displayName() {
        return displayName;
    }

    /** The state named {@code name} (case-insensitive), or null. */
    public static GroupState forName(String name) {
        for (GroupState state : values()) {
            if (state.displayName.equalsIgnoreCase(name)) {
                return state;
            }
        }
        return null;
    }
}
