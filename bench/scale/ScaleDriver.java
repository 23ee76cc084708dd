// bench/scale/ScaleDriver.java: the client side of bench/scale.sh, compiled by it at run time with javac
// against Apache Kafka 4.4's jars (kafka-clients only) into its work dir. Not a Krill class: it talks to
// either broker as a Kafka client does, with the Admin client and raw Metadata requests built and parsed
// by kafka-clients' own request classes.
//
//   java -cp DIR:/opt/kafka44/libs/* ScaleDriver COMMAND key=value...
//
// Commands (each prints key=value result lines on stdout, progress on stderr):
//   ready     until every broker's Metadata shows all brokers and a controller, and a probe topic of
//             1 partition has a full ISR; prints the controller (KRaft: the quorum leader)
//   create    CreateTopics for n partitions (topics of 20, or one topic of n), until every partition is
//             led with a full ISR on every broker's Metadata
//   metadata  median time of Admin describeTopics of all topics, and of one Metadata request for all
//   signal    SIGKILL or SIGTERM a broker (victim=ID, or auto: the one leading most partitions outside
//             exclude=), until no partition is led by it and every partition has a leader; with wait_exit,
//             also until the process is gone
//   isr       until every partition has a full ISR (since=EPOCH_MS: the clock starts then)
//
// Common keys: brokers=1@host:port,2@host:port,... poll=IDS (the brokers whose Metadata must agree),
// n=PARTITIONS expected, rf=3, prefix=scale-t, timeout_s=300, poll_ms=250, timeline=FILE.
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;

public final class ScaleDriver {
    static Map<String, String> opts = new HashMap<>();
    static final Map<Integer, InetSocketAddress> BROKERS = new TreeMap<>();
    static String prefix;
    static int n, rf;
    static long timeoutMs, pollMs;
    static PrintWriter timeline;
    static final long T_START = System.currentTimeMillis();

    public static void main(String[] args) throws Exception {
        if (args.length == 0) throw new IllegalArgumentException("usage: ScaleDriver COMMAND key=value...");
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("not key=value: " + args[i]);
            opts.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        for (String b : opt("brokers", "").split(",")) {
            if (b.isEmpty()) continue;
            String[] idHost = b.split("@");
            String[] hp = idHost[1].split(":");
            BROKERS.put(Integer.parseInt(idHost[0]), new InetSocketAddress(hp[0], Integer.parseInt(hp[1])));
        }
        prefix = opt("prefix", "scale-t");
        n = Integer.parseInt(opt("n", "0"));
        rf = Integer.parseInt(opt("rf", "3"));
        timeoutMs = (long) (Double.parseDouble(opt("timeout_s", "300")) * 1000);
        pollMs = Long.parseLong(opt("poll_ms", "250"));
        if (opts.containsKey("timeline")) {
            timeline = new PrintWriter(Files.newBufferedWriter(Path.of(opts.get("timeline"))), true);
            timeline.println("t_s\tbroker\tpartitions\tled\tleaderless\tled_by_victim\tisr_full\tbrokers\tcontroller\tpoll_ms");
        }
        int rc;
        try {
            rc = switch (args[0]) {
                case "ready" -> ready();
                case "create" -> create();
                case "metadata" -> metadata();
                case "signal" -> signal();
                case "isr" -> isr();
                case "elect" -> elect();
                default -> throw new IllegalArgumentException("unknown command " + args[0]);
            };
        } finally {
            if (timeline != null) timeline.close();
        }
        System.out.flush();
        System.exit(rc);
    }

    static String opt(String k, String def) { return opts.getOrDefault(k, def); }

    static void result(String k, Object v) { System.out.println(k + "=" + v); System.out.flush(); }

    static void progress(String s) {
        System.err.printf("[driver %6.1fs] %s%n", (System.currentTimeMillis() - T_START) / 1000.0, s);
    }

    static String secs(long ms) { return String.format("%.3f", ms / 1000.0); }

    static List<Integer> pollSet() {
        String p = opt("poll", "");
        List<Integer> ids = new ArrayList<>();
        if (p.isEmpty()) ids.addAll(BROKERS.keySet());
        else for (String s : p.split(",")) ids.add(Integer.parseInt(s));
        return ids;
    }

    static String bootstrap(List<Integer> ids) {
        StringBuilder sb = new StringBuilder();
        for (int id : ids) {
            InetSocketAddress a = BROKERS.get(id);
            if (sb.length() > 0) sb.append(',');
            sb.append(a.getHostString()).append(':').append(a.getPort());
        }
        return sb.toString();
    }

    static Admin admin(List<Integer> ids, long requestTimeoutMs) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(ids));
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) requestTimeoutMs);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Math.max(requestTimeoutMs, timeoutMs + 5_000));
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "scale-driver");
        return Admin.create(p);
    }

    // ---------------------------------------------------------------------------------------------
    // Raw Metadata requests: one connection per broker, the same request (all topics) to either broker.

    static final class Conn implements AutoCloseable {
        final int id;
        final Socket socket = new Socket();
        final DataInputStream in;
        final OutputStream out;
        int correlation;
        short metadataVersion;
        long lastBytes;

        Conn(int id) throws IOException {
            this.id = id;
            socket.connect(BROKERS.get(id), 3_000);
            socket.setSoTimeout(15_000);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
            ApiVersionsResponse av = (ApiVersionsResponse) send(new ApiVersionsRequest.Builder((short) 3).build((short) 3), ApiKeys.API_VERSIONS, (short) 3);
            ApiVersionsResponseData.ApiVersion m = av.data().apiKeys().find(ApiKeys.METADATA.id);
            if (m == null) throw new IOException("broker " + id + " does not advertise Metadata");
            metadataVersion = (short) Math.min(m.maxVersion(), Math.min(12, ApiKeys.METADATA.latestVersion()));
        }

        AbstractResponse send(AbstractRequest req, ApiKeys key, short version) throws IOException {
            RequestHeader h = new RequestHeader(key, version, "scale-driver", ++correlation);
            ByteBuffer body = req.serializeWithHeader(h);
            byte[] frame = new byte[4 + body.remaining()];
            ByteBuffer.wrap(frame).putInt(body.remaining()).put(body);
            out.write(frame);
            out.flush();
            int size = in.readInt();
            byte[] resp = new byte[size];
            in.readFully(resp);
            lastBytes = 4L + size;
            return AbstractResponse.parseResponse(ByteBuffer.wrap(resp), h);
        }

        MetadataResponseData metadata() throws IOException {
            MetadataRequestData d = new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false);
            return ((MetadataResponse) send(new MetadataRequest.Builder(d).build(metadataVersion), ApiKeys.METADATA, metadataVersion)).data();
        }

        @Override public void close() { try { socket.close(); } catch (IOException ignored) { } }
    }

    /** One broker's view of the measured topics (those named prefix*). */
    record View(int broker, int partitions, int led, int leaderless, int ledByVictim, int isrFull,
                int brokers, int controller, Map<Integer, Integer> leadersPerBroker, long pollMs, int ledByPreferred) {
        String summary() {
            return "broker " + broker + ": " + partitions + " partitions, " + led + " led, " + isrFull + " ISR full"
                    + (ledByVictim > 0 ? ", " + ledByVictim + " led by the victim" : "") + ", brokers " + brokers
                    + ", controller " + controller + " (" + pollMs + " ms)";
        }
    }

    static View view(int broker, MetadataResponseData md, int victim, long ms) {
        int parts = 0, led = 0, byVictim = 0, full = 0, preferred = 0;
        Map<Integer, Integer> perBroker = new TreeMap<>();
        for (MetadataResponseData.MetadataResponseTopic t : md.topics()) {
            if (t.name() == null || !t.name().startsWith(prefix)) continue;
            for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
                parts++;
                if (p.leaderId() >= 0) {
                    led++;
                    if (!p.replicaNodes().isEmpty() && p.leaderId() == p.replicaNodes().get(0)) preferred++;
                    perBroker.merge(p.leaderId(), 1, Integer::sum);
                    if (p.leaderId() == victim) byVictim++;
                }
                if (p.isrNodes().size() >= rf) full++;
            }
        }
        // partitions not (yet) in the answer count as leaderless
        int expected = Math.max(n, parts);
        return new View(broker, parts, led, expected - led, byVictim, full, md.brokers().size(), md.controllerId(), perBroker, ms,
                preferred);
    }

    static final Map<Integer, Conn> CONNS = new HashMap<>();

    /** Each polled broker's view, or empty for one that did not answer. */
    static Map<Integer, Optional<View>> pollOnce(List<Integer> ids, int victim) {
        Map<Integer, Optional<View>> views = new LinkedHashMap<>();
        for (int id : ids) {
            long t0 = System.nanoTime();
            try {
                Conn c = CONNS.get(id);
                if (c == null) { c = new Conn(id); CONNS.put(id, c); }
                MetadataResponseData md = c.metadata();
                View v = view(id, md, victim, (System.nanoTime() - t0) / 1_000_000);
                views.put(id, Optional.of(v));
            } catch (Exception e) {
                Conn c = CONNS.remove(id);
                if (c != null) c.close();
                views.put(id, Optional.empty());
            }
        }
        return views;
    }

    /** Result of waiting for a condition on every polled broker's view. */
    record Wait(boolean met, long ms, long t50ms, long t90ms, Map<Integer, Optional<View>> last) { }

    /**
     * Polls ids until cond holds on all of them or the deadline (t0 + timeout) passes. remaining(view) is the
     * work left (for the 50 %/90 % marks, measured from the first answer); the worst polled broker counts.
     */
    static Wait await(long t0, List<Integer> ids, int victim, Predicate<View> cond,
                      java.util.function.ToIntFunction<View> remaining, String what) throws InterruptedException {
        return await(t0, ids, victim, cond, remaining, what, () -> "");
    }

    static Wait await(long t0, List<Integer> ids, int victim, Predicate<View> cond,
                      java.util.function.ToIntFunction<View> remaining, String what,
                      java.util.function.Supplier<String> note) throws InterruptedException {
        long deadline = t0 + timeoutMs;
        int first = -1;
        long t50 = -1, t90 = -1, lastReport = 0;
        Map<Integer, Optional<View>> views;
        while (true) {
            views = pollOnce(ids, victim);
            long now = System.currentTimeMillis();
            boolean all = true;
            int worst = 0;
            for (Map.Entry<Integer, Optional<View>> e : views.entrySet()) {
                if (e.getValue().isEmpty()) { all = false; worst = Integer.MAX_VALUE; continue; }
                View v = e.getValue().get();
                if (!cond.test(v)) all = false;
                worst = Math.max(worst, remaining.applyAsInt(v));
                if (timeline != null) {
                    timeline.printf("%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d%n", (now - t0) / 1000.0, v.broker, v.partitions,
                            v.led, v.leaderless, v.ledByVictim, v.isrFull, v.brokers, v.controller, v.pollMs);
                }
            }
            if (worst != Integer.MAX_VALUE) {
                if (first < 0) first = worst;
                if (t50 < 0 && worst <= first * 0.5) t50 = now - t0;
                if (t90 < 0 && worst <= first * 0.1) t90 = now - t0;
            }
            if (all) return new Wait(true, now - t0, t50, t90, views);
            if (now - lastReport >= 10_000) {
                lastReport = now;
                StringBuilder sb = new StringBuilder(what + ", " + secs(now - t0) + " s" + note.get() + ":");
                views.forEach((id, v) -> sb.append(" [").append(v.map(View::summary).orElse("broker " + id + ": no answer")).append(']'));
                progress(sb.toString());
            }
            if (now >= deadline) return new Wait(false, now - t0, t50, t90, views);
            Thread.sleep(pollMs);
        }
    }

    static void report(String step, Wait w) {
        result(step + "_s", w.met ? secs(w.ms) : "timeout");
        result(step + "_t50_s", w.t50ms >= 0 ? secs(w.t50ms) : "");
        result(step + "_t90_s", w.t90ms >= 0 ? secs(w.t90ms) : "");
        // the state at the end, worst broker: what was left at a timeout
        int led = Integer.MAX_VALUE, full = Integer.MAX_VALUE, byVictim = 0, parts = Integer.MAX_VALUE;
        for (Optional<View> v : w.last.values()) {
            if (v.isEmpty()) continue;
            led = Math.min(led, v.get().led);
            full = Math.min(full, v.get().isrFull);
            parts = Math.min(parts, v.get().partitions);
            byVictim = Math.max(byVictim, v.get().ledByVictim);
        }
        if (led != Integer.MAX_VALUE) {
            result(step + "_end_led", led);
            result(step + "_end_isr_full", full);
            result(step + "_end_led_by_victim", byVictim);
            result(step + "_end_partitions", parts);
        }
        progress(step + ": " + (w.met ? "done in " + secs(w.ms) + " s" : "TIMEOUT after " + secs(w.ms) + " s")
                + "; last views: " + w.last.values().stream().map(v -> v.map(View::summary).orElse("no answer")).toList());
    }

    // ---------------------------------------------------------------------------------------------

    static int ready() throws Exception {
        List<Integer> ids = new ArrayList<>(BROKERS.keySet());
        long t0 = System.currentTimeMillis();
        String probe = opt("probe", "scale-probe");
        // 1. every broker answers Metadata with all brokers and a controller
        while (true) {
            Map<Integer, Optional<View>> views = pollOnce(ids, -1);
            boolean ok = views.values().stream().allMatch(v -> v.isPresent() && v.get().brokers >= ids.size() && v.get().controller >= 0);
            if (ok) break;
            if (System.currentTimeMillis() - t0 > timeoutMs) { progress("not ready: " + views); return 1; }
            Thread.sleep(200);
        }
        result("brokers_registered_s", secs(System.currentTimeMillis() - t0));
        // 2. a probe topic (1 partition, all replicas) gets a full ISR
        try (Admin a = admin(ids, 30_000)) {
            while (true) {
                try {
                    a.createTopics(List.of(new NewTopic(probe, 1, (short) rf).configs(Map.of("min.insync.replicas", opt("min_isr", "2")))))
                            .all().get(30, TimeUnit.SECONDS);
                    break;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof TopicExistsException) break;
                    if (System.currentTimeMillis() - t0 > timeoutMs) { progress("probe topic: " + e.getCause()); return 1; }
                    Thread.sleep(500);
                }
            }
            String savedPrefix = prefix;
            prefix = probe;
            int savedN = n;
            n = 1;
            Wait w = await(t0, ids, -1, v -> v.isrFull == 1 && v.led == 1, v -> 1 - v.isrFull, "probe topic");
            prefix = savedPrefix;
            n = savedN;
            if (!w.met) { progress("probe topic never had a full ISR"); return 1; }
            result("ready_s", secs(System.currentTimeMillis() - t0));
            // the controller: the KRaft quorum leader for Kafka (Metadata names a random broker there);
            // Metadata's controller id for a broker that has no quorum (Krill: the Helix controller)
            String source = "metadata";
            int controller = w.last.values().iterator().next().get().controller;
            try {
                controller = a.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS).leaderId();
                source = "quorum";
            } catch (Exception e) {
                // not supported (Krill): keep Metadata's
            }
            result("controller", controller);
            result("controller_source", source);
        }
        return 0;
    }

    static List<NewTopic> topics() {
        String shape = opt("shape", "twenty");
        Map<String, String> cfg = Map.of("min.insync.replicas", opt("min_isr", "2"));
        List<NewTopic> topics = new ArrayList<>();
        if (shape.equals("one")) {
            topics.add(new NewTopic(prefix + "-0", n, (short) rf).configs(cfg));
        } else {
            int per = Integer.parseInt(opt("per_topic", "20"));
            int count = (n + per - 1) / per;
            for (int i = 0; i < count; i++) {
                int p = Math.min(per, n - i * per);
                topics.add(new NewTopic(String.format("%s-%05d", prefix, i), p, (short) rf).configs(cfg));
            }
        }
        return topics;
    }

    static int create() throws Exception {
        List<Integer> ids = pollSet();
        List<NewTopic> topics = topics();
        // at most batch partitions per CreateTopics request (KRaft refuses over-large single operations);
        // the requests go out together
        int batch = Integer.parseInt(opt("batch_partitions", "5000"));
        pollOnce(ids, -1); // connections open and warm before the clock starts
        try (Admin a = admin(ids, timeoutMs + 5_000)) {
            a.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            long t0 = System.currentTimeMillis();
            List<CreateTopicsResult> results = new ArrayList<>();
            List<NewTopic> chunk = new ArrayList<>();
            int inChunk = 0;
            for (NewTopic t : topics) {
                if (inChunk + t.numPartitions() > batch && !chunk.isEmpty()) {
                    results.add(a.createTopics(chunk, new CreateTopicsOptions().timeoutMs((int) timeoutMs)));
                    chunk = new ArrayList<>();
                    inChunk = 0;
                }
                chunk.add(t);
                inChunk += t.numPartitions();
            }
            if (!chunk.isEmpty()) results.add(a.createTopics(chunk, new CreateTopicsOptions().timeoutMs((int) timeoutMs)));
            result("create_requests", results.size());
            result("create_topics", topics.size());
            // the answer's time, taken when it comes; the partitions are polled meanwhile
            List<KafkaFuture<Void>> futures = new ArrayList<>();
            for (CreateTopicsResult r : results) futures.addAll(r.values().values());
            java.util.concurrent.atomic.AtomicLong acked = new java.util.concurrent.atomic.AtomicLong(-1);
            KafkaFuture<Void> ackTaken = KafkaFuture.allOf(futures.toArray(new KafkaFuture[0]))
                    .whenComplete((v, e) -> acked.compareAndSet(-1, System.currentTimeMillis() - t0));
            Wait w = await(t0, ids, -1, v -> v.partitions == n && v.led == n && v.isrFull == n,
                    v -> n - Math.min(v.led, v.isrFull), "create",
                    () -> acked.get() >= 0 ? " (CreateTopics answered at " + secs(acked.get()) + " s)" : " (CreateTopics not answered yet)");
            int ok = 0, failed = 0;
            Map<String, Integer> errors = new TreeMap<>();
            for (CreateTopicsResult r : results) {
                for (Map.Entry<String, KafkaFuture<Void>> e : r.values().entrySet()) {
                    long left = Math.max(1, t0 + timeoutMs - System.currentTimeMillis());
                    try {
                        e.getValue().get(left, TimeUnit.MILLISECONDS);
                        ok++;
                    } catch (ExecutionException ex) {
                        if (ex.getCause() instanceof TopicExistsException) ok++;
                        else { failed++; errors.merge(ex.getCause().getClass().getSimpleName(), 1, Integer::sum); }
                    } catch (java.util.concurrent.TimeoutException ex) {
                        failed++;
                        errors.merge("no answer in time", 1, Integer::sum);
                    }
                }
            }
            try {
                ackTaken.get(5, TimeUnit.SECONDS); // the callback that took the time has run
            } catch (ExecutionException | java.util.concurrent.TimeoutException ignored) {
                // failures are counted above; no answer stays "timeout"
            }
            long ackMs = acked.get();
            result("create_ack_s", ackMs < 0 ? "timeout" : secs(ackMs));
            result("create_topics_failed", failed);
            if (!errors.isEmpty()) { result("create_errors", errors.toString().replace(' ', '_')); progress("CreateTopics errors: " + errors); }
            progress("CreateTopics answered after " + (ackMs < 0 ? "(no answer)" : secs(ackMs) + " s") + " (" + ok + " ok, " + failed + " failed)");
            report("create", w);
        }
        return 0;
    }

    static double median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        int k = s.size();
        return k % 2 == 1 ? s.get(k / 2) : (s.get(k / 2 - 1) + s.get(k / 2)) / 2.0;
    }

    static int metadata() throws Exception {
        int repeats = Integer.parseInt(opt("repeats", "5"));
        List<Integer> ids = pollSet();
        int target = ids.get(0);
        // 1. Admin describeTopics of every measured topic (the client picks DescribeTopicPartitions or Metadata)
        try (Admin a = admin(List.of(target), 60_000)) {
            List<String> names = new ArrayList<>();
            for (String t : a.listTopics().names().get(60, TimeUnit.SECONDS)) if (t.startsWith(prefix)) names.add(t);
            Collections.sort(names);
            List<Long> times = new ArrayList<>();
            int partitions = 0;
            for (int i = 0; i <= repeats; i++) {
                long t0 = System.nanoTime();
                Map<String, TopicDescription> d = a.describeTopics(TopicCollection.ofTopicNames(names), new DescribeTopicsOptions().timeoutMs(60_000))
                        .allTopicNames().get(90, TimeUnit.SECONDS);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                partitions = d.values().stream().mapToInt(x -> x.partitions().size()).sum();
                if (i > 0) times.add(ms); // the first one warms up
            }
            result("describe_topics", names.size());
            result("describe_partitions", partitions);
            result("describe_ms", String.format("%.0f", median(times)));
            result("describe_ms_all", times.toString().replace(" ", ""));
        }
        // 2. one Metadata request for all topics, on one connection
        try (Conn c = new Conn(target)) {
            List<Long> times = new ArrayList<>();
            int partitions = 0;
            for (int i = 0; i <= repeats; i++) {
                long t0 = System.nanoTime();
                MetadataResponseData md = c.metadata();
                long us = (System.nanoTime() - t0) / 1_000;
                partitions = view(target, md, -1, 0).partitions;
                if (i > 0) times.add(us);
            }
            result("metadata_version", c.metadataVersion);
            result("metadata_partitions", partitions);
            result("metadata_bytes", c.lastBytes);
            result("metadata_ms", String.format("%.1f", median(times) / 1000.0));
            result("metadata_ms_all", times.stream().map(x -> String.format("%.1f", x / 1000.0)).toList().toString().replace(" ", ""));
        }
        return 0;
    }

    static Map<Integer, Long> pids() {
        Map<Integer, Long> m = new HashMap<>();
        for (String s : opt("pids", "").split(",")) {
            if (s.isEmpty()) continue;
            String[] kv = s.split(":");
            m.put(Integer.parseInt(kv[0]), Long.parseLong(kv[1]));
        }
        return m;
    }

    /**
     * An operator's preferred election of every partition (Admin electLeaders with no partition list, as
     * {@code kafka-leader-election --election-type preferred --all-topic-partitions}): the time to its
     * answer, and until every broker's Metadata shows every measured partition led by its first replica.
     */
    static int elect() throws Exception {
        List<Integer> ids = pollSet();
        Map<Integer, Optional<View>> before = pollOnce(ids, -1);
        before.values().stream().filter(Optional::isPresent).map(Optional::get).findFirst()
                .ifPresent(v -> result("before_led_by_preferred", v.ledByPreferred()));
        try (Admin admin = admin(ids, timeoutMs)) {
            long t0 = System.currentTimeMillis();
            var answered = admin.electLeaders(org.apache.kafka.common.ElectionType.PREFERRED, null).partitions()
                    .get(timeoutMs, TimeUnit.MILLISECONDS);
            long ack = System.currentTimeMillis() - t0;
            long refused = answered.values().stream().filter(Optional::isPresent)
                    .filter(e -> !(e.get() instanceof org.apache.kafka.common.errors.ElectionNotNeededException)).count();
            result("elect_ack_s", secs(ack));
            result("elect_answered", answered.size());
            result("elect_refused", refused);
            progress("ElectLeaders answered after " + secs(ack) + " s (" + answered.size() + " partitions, " + refused
                    + " refused other than not needed)");
            Wait w = await(t0, ids, -1, v -> v.ledByPreferred() == n && v.partitions() == n,
                    v -> n - v.ledByPreferred(), "elect");
            report("elect", w);
            return w.met() ? 0 : 1;
        }
    }

    static int signal() throws Exception {
        String sig = opt("sig", "KILL");
        Map<Integer, Long> pids = pids();
        List<Integer> all = new ArrayList<>(BROKERS.keySet());
        int victim;
        if (opt("victim", "auto").equals("auto")) {
            // the broker leading the most partitions, outside exclude= (the controller)
            List<Integer> exclude = new ArrayList<>();
            for (String s : opt("exclude", "").split(",")) if (!s.isEmpty()) exclude.add(Integer.parseInt(s));
            Map<Integer, Optional<View>> views = pollOnce(all, -1);
            View v = views.values().stream().filter(Optional::isPresent).map(Optional::get).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no broker answered Metadata"));
            victim = -1;
            int best = -1;
            for (int id : all) {
                if (exclude.contains(id)) continue;
                int led = v.leadersPerBroker.getOrDefault(id, 0);
                if (led > best) { best = led; victim = id; }
            }
        } else {
            victim = Integer.parseInt(opt("victim", "1"));
        }
        final int vid = victim;
        List<Integer> ids = new ArrayList<>(all);
        ids.remove(Integer.valueOf(victim));
        Map<Integer, Optional<View>> before = pollOnce(ids, victim); // warm connections, the state before
        View b0 = before.values().stream().filter(Optional::isPresent).map(Optional::get).findFirst().orElse(null);
        result("victim", victim);
        if (b0 != null) {
            result("before_led_by_victim", b0.ledByVictim);
            result("before_led", b0.led);
            result("before_isr_full", b0.isrFull);
            result("before_leaders_per_broker", b0.leadersPerBroker.toString().replace(" ", ""));
        }
        ProcessHandle ph = ProcessHandle.of(pids.get(victim)).orElseThrow(() -> new IllegalStateException("no process " + pids.get(vid)));
        progress("SIG" + sig + " broker " + victim + " (pid " + ph.pid() + "), leading " + (b0 == null ? "?" : b0.ledByVictim) + " partitions");
        long t0 = System.currentTimeMillis();
        if (sig.equals("KILL")) ph.destroyForcibly(); else ph.destroy();
        String step = opt("step", "signal");
        Wait w = await(t0, ids, victim, v -> v.ledByVictim == 0 && v.led == n && v.partitions == n,
                v -> v.ledByVictim + v.leaderless, step);
        report(step, w);
        if (Boolean.parseBoolean(opt("wait_exit", "false"))) {
            long deadline = t0 + timeoutMs;
            while (ph.isAlive() && System.currentTimeMillis() < deadline) Thread.sleep(20);
            result(step + "_exit_s", ph.isAlive() ? "timeout" : secs(System.currentTimeMillis() - t0));
        }
        return 0;
    }

    static int isr() throws Exception {
        List<Integer> ids = pollSet();
        long since = Long.parseLong(opt("since", String.valueOf(System.currentTimeMillis())));
        String step = opt("step", "isr");
        Wait w = await(since, ids, -1, v -> v.isrFull == n && v.led == n && v.partitions == n,
                v -> n - Math.min(v.isrFull, v.led), step);
        report(step, w);
        return 0;
    }
}
