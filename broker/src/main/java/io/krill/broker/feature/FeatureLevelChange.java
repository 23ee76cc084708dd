package io.krill.broker.feature;

import io.krill.controller.metadata.FinalizedFeatures;
import io.krill.wire.error.ApiException;
import io.krill.wire.error.Errors;
import java.util.Map;

/**
 * One UpdateFeatures request's changes, checked as Kafka's controller checks them: a level below 0, one the
 * software does not support, a lower level without a downgrade type, or a higher one with it is
 * INVALID_UPDATE_VERSION ("Invalid update version V for feature F. ..."), and the whole request fails with
 * the first such error, changing nothing. The check runs against the levels the store holds at the moment
 * of the write ({@link #apply}), so two concurrent changes cannot both pass against a stale view.
 *
 * <p>Immutable; thread-safe.
 *
 * @param levels       the wanted level per feature (0 turns a feature off)
 * @param upgradeTypes per feature: 1 upgrade only, 2 safe downgrade, 3 unsafe downgrade (Kafka's codes)
 * @param nodeId       this broker, named in the messages
 */
public record FeatureLevelChange(Map<String, Short> levels, Map<String, Byte> upgradeTypes, int nodeId) {
    public static final byte UPGRADE = 1;
    public static final byte SAFE_DOWNGRADE = 2;
    public static final byte UNSAFE_DOWNGRADE = 3;

    public FeatureLevelChange {
        levels = Map.copyOf(levels);
        upgradeTypes = Map.copyOf(upgradeTypes);
    }

    /**
     * The entity configs that store {@code current} with these changes and the epoch bumped.
     *
     * @throws ApiException INVALID_UPDATE_VERSION for the first refused change
     */
    public Map<String, String> apply(FinalizedFeatures current) {
        check(current);
        return current.toConfigsWith(levels);
    }

    /** @throws ApiException INVALID_UPDATE_VERSION for the first refused change */
    public void check(FinalizedFeatures current) {
        for (Map.Entry<String, Short> change : levels.entrySet()) {
            String feature = change.getKey();
            short level = change.getValue();
            byte type = upgradeTypes.getOrDefault(feature, UPGRADE);
            if (type < UPGRADE || type > UNSAFE_DOWNGRADE) {
                throw invalid(feature, level, "The controller does not support the given upgrade type.");
            }
            if (level < 0) {
                throw invalid(feature, level, "A feature version cannot be less than 0.");
            }
            String unsupported = SupportedFeatures.reasonNotSupported(feature, level, nodeId);
            if (unsupported != null) {
                throw invalid(feature, level, unsupported);
            }
            short now = current.level(feature);
            if (level < now && type == UPGRADE) {
                throw invalid(feature, level, "Can't downgrade the version of this feature without setting the "
                        + "upgrade type to either safe or unsafe downgrade.");
            }
            if (level > now && type != UPGRADE) {
                throw invalid(feature, level, "Can't downgrade to a newer version.");
            }
        }
    }

    private static ApiException invalid(String feature, short level, String why) {
        return new ApiException(Errors.INVALID_UPDATE_VERSION,
                "Invalid update version " + level + " for feature " + feature + ". " + why);
    }
}
