package io.krill.controller.cluster;

import java.util.ArrayList;
import java.util.List;
import org.apache.helix.PropertyPathBuilder;
import org.apache.helix.PropertyType;
import org.apache.helix.model.BuiltInStateModelDefinitions;
import org.apache.helix.model.InstanceConfig;
import org.apache.helix.model.ParticipantHistory;
import org.apache.helix.model.StateModelDefinition;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;

/**
 * The ZooKeeper nodes Helix expects of a cluster and of a participant, as creates for one
 * {@code multi}: what Helix's admin API makes with one request per node ({@code addCluster},
 * {@code addStateModelDef}, {@code addInstance}) and what a Helix controller adds at its first
 * connect (the built-in state model definitions), made here in a single round trip and a single
 * transaction. A new broker's start waited for about sixty sequential requests, plus a ZooKeeper
 * session of the admin's own, before this.
 *
 * <p>Paths come from Helix's {@link PropertyPathBuilder}; the content mirrors Helix 2.0.1's admin
 * code, and {@code HelixLayoutTest} compares the result node by node with what that admin API makes,
 * so a Helix upgrade that changes the layout fails a test rather than a start. Stateless.
 */
final class HelixLayout {
    private HelixLayout() {
    }

    /**
     * Creates for the cluster's nodes, parents first: the structure {@code ZKHelixAdmin.addCluster}
     * makes, the built-in state model definitions, and {@code models}.
     */
    static List<Op> cluster(String cluster, List<StateModelDefinition> models) {
        List<Op> ops = new ArrayList<>();
        create(ops, "/" + cluster, null);
        create(ops, PropertyPathBuilder.idealState(cluster), null);
        String clusterConfig = PropertyPathBuilder.clusterConfig(cluster);
        create(ops, parent(parent(clusterConfig)), null);
        create(ops, parent(clusterConfig), null);
        create(ops, clusterConfig, new ZNRecord(cluster));
        create(ops, PropertyPathBuilder.instanceConfig(cluster), null);
        create(ops, PropertyPathBuilder.resourceConfig(cluster), null);
        create(ops, PropertyPathBuilder.customizedStateConfig(cluster), null);
        create(ops, PropertyPathBuilder.propertyStore(cluster), null);
        create(ops, PropertyPathBuilder.liveInstance(cluster), null);
        create(ops, PropertyPathBuilder.instance(cluster), null);
        create(ops, PropertyPathBuilder.externalView(cluster), null);
        create(ops, PropertyPathBuilder.stateModelDef(cluster), null);
        create(ops, PropertyPathBuilder.controller(cluster), null);
        ZNRecord history = new ZNRecord(PropertyType.HISTORY.toString());
        history.setListField(cluster, new ArrayList<>());
        create(ops, PropertyPathBuilder.controllerHistory(cluster), history);
        create(ops, PropertyPathBuilder.controllerMessage(cluster), null);
        create(ops, PropertyPathBuilder.controllerStatusUpdate(cluster), null);
        create(ops, PropertyPathBuilder.controllerError(cluster), null);
        for (BuiltInStateModelDefinitions builtIn : BuiltInStateModelDefinitions.values()) {
            StateModelDefinition model = builtIn.getStateModelDefinition();
            create(ops, PropertyPathBuilder.stateModelDef(cluster) + "/" + model.getId(), model.getRecord());
        }
        for (StateModelDefinition model : models) {
            create(ops, PropertyPathBuilder.stateModelDef(cluster) + "/" + model.getId(), model.getRecord());
        }
        return ops;
    }

    /** Creates for a new participant's nodes: what {@code ZKHelixAdmin.addInstance} makes. */
    static List<Op> instance(String cluster, InstanceConfig config) {
        String name = config.getInstanceName();
        List<Op> ops = new ArrayList<>();
        create(ops, PropertyPathBuilder.instanceConfig(cluster, name), config.getRecord());
        create(ops, parent(PropertyPathBuilder.instanceMessage(cluster, name)), null);
        create(ops, PropertyPathBuilder.instanceMessage(cluster, name), null);
        create(ops, PropertyPathBuilder.instanceCurrentState(cluster, name), null);
        create(ops, PropertyPathBuilder.instanceTaskCurrentState(cluster, name), null);
        create(ops, PropertyPathBuilder.instanceCustomizedState(cluster, name), null);
        create(ops, PropertyPathBuilder.instanceError(cluster, name), null);
        create(ops, PropertyPathBuilder.instanceStatusUpdate(cluster, name), null);
        create(ops, PropertyPathBuilder.instanceHistory(cluster, name), new ParticipantHistory(name).getRecord());
        return ops;
    }

    private static void create(List<Op> ops, String path, ZNRecord record) {
        ops.add(Op.create(path, record == null ? null : MetadataRecords.serialize(record),
                ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    }

    private static String parent(String path) {
        return path.substring(0, path.lastIndexOf('/'));
    }
}
