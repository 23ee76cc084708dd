package io.krill.compat.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.krill.wire.message.ApiKeys;
import io.krill.wire.protocol.ApiMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * One request sequence, table-driven over versions: it names its API and the lowest version at which its
 * request means what the title says (and, rarely, the highest); {@link #run} then compares it at every
 * version from there up to the highest that both brokers serve and the 4.4 client knows
 * ({@link RequestVersions}). At each version: the set-up on both sides (topics, records, a group in some
 * state, each named after the version when the request changes state), the request built for that
 * version, both answers turned to JSON at that version and compared ({@link ResponseDiff}), and the
 * sequence's own expectations checked on Kafka's answer (that the sequence tests what it claims). Every
 * version is compared even after one fails; the failure lists them all. Each comparison is recorded in
 * {@link Coverage}.
 *
 * <p>Not thread-safe: built and run by one test.
 */
final class Sequence {
    /** A request body for one side at the version it is written at. */
    @FunctionalInterface
    interface RequestBody {
        ApiMessage build(BrokerSide side, short version);
    }

    /** Set-up on one side before the request at {@code version}. */
    @FunctionalInterface
    interface SetUp {
        void prepare(BrokerSide side, short version);
    }

    /** What a side learns from its raw answer before it is written as JSON (random ids to name, say). */
    @FunctionalInterface
    interface Learn {
        void from(BrokerSide side, short version, AbstractResponse response);
    }

    /** The error code a sequence expects in Kafka's answer at a version. */
    @FunctionalInterface
    interface ExpectedError {
        Errors at(short version);
    }

    /** Both answers at one version, as compared (random values replaced by their names). */
    record Answers(short version, JsonNode kafka, JsonNode krill) {
        List<JsonNode> both() {
            return List.of(kafka, krill);
        }
    }

    /** A JSON pointer that depends on the version (a field that moved). */
    @FunctionalInterface
    interface PointerAt {
        String at(short version);
    }

    private record Expectation(PointerAt pointer, ExpectedError error) {
    }

    /** The two brokers a sequence runs on, and the versions compared there. */
    record Pair(BrokerSide kafka, BrokerSide krill, RequestVersions versions) {
    }

    private final String title;
    private final ApiKeys api;
    private Pair pair;
    private short from;
    private short upTo = Short.MAX_VALUE;
    private short[] exact;
    private SetUp setUp = (side, version) -> { };
    private Learn learn = (side, version, response) -> { };
    private RequestBody body;
    private final List<Expectation> expectations = new ArrayList<>();
    private final List<Consumer<Answers>> checks = new ArrayList<>();
    private final List<UnaryOperator<JsonNode>> normalizations = new ArrayList<>();

    private Sequence(String title, ApiKeys api) {
        this.title = title;
        this.api = api;
    }

    static Sequence of(String title, ApiKeys api) {
        return new Sequence(title, api);
    }

    /** Runs on {@code pair} rather than the shared plaintext nodes ({@link DifferentialNodes}). */
    Sequence on(Pair pair) {
        this.pair = pair;
        return this;
    }

    /** The lowest version at which the request means what the title says. */
    Sequence from(int version) {
        this.from = (short) version;
        return this;
    }

    /** The highest version at which it does (a behaviour a later version changed is a sequence of its own). */
    Sequence upTo(int version) {
        this.upTo = (short) version;
        return this;
    }

    /**
     * One comparison only, with a header that names {@code headerVersion} over a body written at
     * {@code bodyVersion} and answers read at {@code jsonVersion}: to ask for a version the codecs cannot
     * write.
     */
    Sequence exactly(int headerVersion, int bodyVersion, int jsonVersion) {
        this.exact = new short[] {(short) headerVersion, (short) bodyVersion, (short) jsonVersion};
        return this;
    }

    Sequence setUp(SetUp setUp) {
        this.setUp = setUp;
        return this;
    }

    Sequence learn(Learn learn) {
        this.learn = learn;
        return this;
    }

    Sequence request(RequestBody body) {
        this.body = body;
        return this;
    }

    Sequence expect(String pointer, Errors expected) {
        return expect(pointer, version -> expected);
    }

    Sequence expect(String pointer, ExpectedError expected) {
        expectations.add(new Expectation(version -> pointer, expected));
        return this;
    }

    Sequence expect(PointerAt pointer, Errors expected) {
        expectations.add(new Expectation(pointer, version -> expected));
        return this;
    }

    /**
     * The array at {@code pointer} is a set: compared sorted by {@code key}, since a broker may list its
     * elements in any order.
     */
    Sequence unordered(String pointer, String key) {
        normalizations.add(tree -> ResponseJson.sortedBy(tree, pointer, key));
        return this;
    }

    /**
     * The array at {@code pointer} lists the whole cluster: only the elements whose {@code key} starts
     * with {@code prefix} (the sequence's own) are compared, sorted by {@code key}.
     */
    Sequence onlyOwn(String pointer, String key, String prefix) {
        normalizations.add(tree -> ResponseJson.sortedBy(ResponseJson.filtered(tree, pointer, key, prefix), pointer,
                key));
        return this;
    }

    /**
     * The value at {@code pointer} is random by design on both sides and no name can stand for it (a number
     * hashed from a random id): replaced by {@code <masked: why>}, so only its presence is compared.
     */
    Sequence masked(String pointer, String why) {
        normalizations.add(tree -> ResponseJson.masked(tree, pointer, "<masked: " + why + ">"));
        return this;
    }

    /** A further check on both answers at each version (a property the diff alone cannot state). */
    Sequence check(Consumer<Answers> check) {
        checks.add(check);
        return this;
    }

    /** Compares the sequence at each of its versions; fails listing every version that differed. */
    Map<Short, Answers> run() {
        Pair nodes = pair != null ? pair : DifferentialNodes.nodes().pair();
        List<short[]> runs = new ArrayList<>();
        if (exact != null) {
            runs.add(exact);
        } else {
            RequestVersions.Range range = nodes.versions().range(api);
            short lowest = (short) Math.max(from, range.lowest());
            short highest = (short) Math.min(upTo, range.highest());
            if (lowest > highest) {
                throw new AssertionError(title + ": no version of " + api.apiName() + " from v" + from + " to v"
                        + upTo + " is served by both brokers (" + range + ")");
            }
            for (short v = lowest; v <= highest; v++) {
                runs.add(new short[] {v, v, v});
            }
        }
        Map<Short, Answers> answers = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        for (short[] run : runs) {
            String fullTitle = title + " (" + api.apiName() + " v" + run[0] + ")";
            try {
                Answers at = compare(nodes, fullTitle, run[0], run[1], run[2]);
                answers.put(run[0], at);
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        }
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.size() + " of " + runs.size() + " version(s) failed:\n"
                    + String.join("\n", failures));
        }
        return answers;
    }

    private Answers compare(Pair nodes, String fullTitle, short headerVersion, short bodyVersion,
                            short jsonVersion) {
        JsonNode onKafka;
        JsonNode onKrill;
        try {
            onKafka = answer(nodes.kafka(), headerVersion, bodyVersion, jsonVersion);
            onKrill = answer(nodes.krill(), headerVersion, bodyVersion, jsonVersion);
        } catch (AssertionError e) {
            Coverage.INSTANCE.record(api.apiName(), headerVersion, title, "FAILED: " + firstLine(e.getMessage()));
            throw e;
        }
        ResponseDiff diff = ResponseDiff.compare(fullTitle, api.apiName(), onKafka, onKrill, AllowList.DEFAULT);
        System.out.println(diff.report());
        Answers answers = new Answers(headerVersion, onKafka, onKrill);
        List<String> problems = new ArrayList<>();
        if (!diff.unexpected().isEmpty()) {
            problems.add(diff.report());
        }
        for (Expectation expectation : expectations) {
            Errors expected = expectation.error().at(headerVersion);
            String pointer = expectation.pointer().at(headerVersion);
            int actual = onKafka.at(pointer).asInt(Integer.MIN_VALUE);
            if (expected.code() != actual) {
                problems.add(fullTitle + ": Kafka's " + pointer + " is " + actual + ", not " + expected
                        + " (the sequence is not testing what it claims): " + onKafka);
            }
        }
        for (Consumer<Answers> check : checks) {
            try {
                check.accept(answers);
            } catch (AssertionError e) {
                problems.add(fullTitle + ": " + e.getMessage());
            }
        }
        String outcome = problems.isEmpty()
                ? (diff.allowed().isEmpty() ? "match" : "match, " + diff.allowed().size() + " allowed")
                : (diff.unexpected().isEmpty() ? "CHECK FAILED" : diff.unexpected().size() + " DIFFERENCE(S)");
        Coverage.INSTANCE.record(api.apiName(), headerVersion, title, outcome);
        if (!problems.isEmpty()) {
            throw new AssertionError(String.join("\n", problems));
        }
        return answers;
    }

    private JsonNode answer(BrokerSide side, short headerVersion, short bodyVersion, short jsonVersion) {
        try {
            setUp.prepare(side, headerVersion);
        } catch (RuntimeException e) {
            throw new AssertionError("set-up of " + title + " v" + headerVersion + " failed on " + side + ": " + e, e);
        }
        AbstractResponse response;
        try {
            response = side.send(api, headerVersion, bodyVersion, body.build(side, bodyVersion));
        } catch (RuntimeException e) {
            throw new AssertionError(api.apiName() + " v" + headerVersion + " to " + side + ": no answer kafka-clients"
                    + " can parse: " + e, e);
        }
        learn.from(side, headerVersion, response);
        JsonNode tree = ResponseJson.withNames(ResponseJson.write(response.data(), jsonVersion), side.names());
        for (UnaryOperator<JsonNode> normalization : normalizations) {
            tree = normalization.apply(tree);
        }
        return tree;
    }

    private static String firstLine(String message) {
        int newline = message == null ? -1 : message.indexOf('\n');
        return newline < 0 ? String.valueOf(message) : message.substring(0, newline);
    }

    /** Asserts that a value at {@code pointer} of Kafka's answer is {@code expected}: for checks. */
    static void assertKafka(Answers answers, String pointer, Errors expected) {
        assertEquals(expected.code(), answers.kafka().at(pointer).asInt(Integer.MIN_VALUE),
                "Kafka's " + pointer + ": " + answers.kafka());
    }
}
