package io.krill.compat.differential;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A response as a JSON tree, written by kafka-clients' generated converter of its schema
 * ({@code org.apache.kafka.common.message.<Name>ResponseDataJsonConverter.write(data, version)}): every
 * field the version has, with its name in the schema, nulls and empty record sets kept apart (records
 * as base64). Then each side's topic ids are replaced by {@code <topic id of NAME>}: a topic's id is the
 * one value two clusters cannot share, and mapping it back to its name keeps the comparison strict (an
 * id of the wrong topic, or of none, is still a difference).
 *
 * <p>Stateless; thread-safe.
 */
final class ResponseJson {
    private ResponseJson() {
    }

    /** {@code data} as its converter writes it at {@code version}. */
    static JsonNode write(ApiMessage data, short version) {
        Class<?> dataClass = data.getClass();
        try {
            Class<?> converter = Class.forName(dataClass.getName() + "JsonConverter");
            Method write = converter.getMethod("write", dataClass, short.class);
            return (JsonNode) write.invoke(null, data, version);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot write " + dataClass.getSimpleName() + " v" + version + " as JSON",
                    e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no JSON converter for " + dataClass.getName(), e);
        }
    }

    /**
     * A copy of {@code tree} with every text equal to a key of {@code idNames} (a topic id as kafka-clients
     * prints a {@code Uuid}) replaced by {@code <topic id of NAME>}.
     */
    static JsonNode withTopicNames(JsonNode tree, Map<String, String> idNames) {
        if (tree.isTextual()) {
            String name = idNames.get(tree.textValue());
            return name == null ? tree : TextNode.valueOf("<topic id of " + name + ">");
        }
        if (tree.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> field : tree.properties()) {
                copy.set(field.getKey(), withTopicNames(field.getValue(), idNames));
            }
            return copy;
        }
        if (tree.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            tree.forEach(element -> copy.add(withTopicNames(element, idNames)));
            return copy;
        }
        return tree;
    }
}
