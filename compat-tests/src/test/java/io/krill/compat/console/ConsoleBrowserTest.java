package io.krill.compat.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.Clients;
import io.krill.compat.support.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The web console (docs/console.md) in a real Chromium, against one broker that stock clients gave topics,
 * keyed records with headers and a binary value, a classic group that committed part way, a KIP-848 group,
 * a share group and a transaction left open: each page shows what the clients know (counts, partitions,
 * records from an offset and from a time, lag per partition, the open transactional id), the charts draw
 * their samples, and user data that looks like HTML stays text. Screenshots of every page land in
 * target/console-screenshots/.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConsoleBrowserTest {
    private static final int HTTP_PORT = FreePorts.next();

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("krill.http.port", Integer.toString(HTTP_PORT))
            .with("krill.console.history.interval.ms", "500");

    private static final String ORDERS = "orders";
    private static final String PAYMENTS = "payments";
    /** Written to all along, at a rate that rises and falls: the records-in chart has something to show. */
    private static final String CLICKS = "clicks";
    private static final String CLASSIC = "console-classic";
    private static final String MODERN = "console-848";
    private static final String SHARE = "console-share";
    private static final String TX_ID = "console-tx";
    /** Would set window.__xss if the page ever parsed user data as HTML. */
    private static final String XSS = "<img src=x onerror=\"window.__xss=1\">";
    private static final byte[] BINARY = {(byte) 0xff, (byte) 0xfe, 0, 1, 2};
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static long firstTimestamp;
    private static ConsoleBrowser browser;
    private static KafkaConsumer<String, String> modernConsumer;
    private static KafkaShareConsumer<String, String> shareConsumer;
    private static KafkaProducer<String, String> openTransaction;
    private static KafkaProducer<String, String> clicksProducer;
    private static ScheduledExecutorService clicks;

    @BeforeAll
    static void clientsThenBrowser() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(ConsoleBrowser.CHROMIUM) && Files.isExecutable(ConsoleBrowser.CHROMEDRIVER),
                "no /usr/bin/chromium or /usr/bin/chromedriver: apt-get install chromium chromium-driver (.ci/run does)");
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(ORDERS, 3, (short) 1), new NewTopic(PAYMENTS, 1, (short) 1),
                    new NewTopic(CLICKS, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        clicksProducer = Clients.producer(KRILL.bootstrapServers(), Map.of());
        clicks = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger tick = new AtomicInteger();
        clicks.scheduleAtFixedRate(() -> {
            int t = tick.getAndIncrement();
            for (int i = 0; i < 2 + Math.abs(t % 40 - 20); i++) {
                clicksProducer.send(new ProducerRecord<>(CLICKS, "user-" + i, "click " + t));
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
        produceOrders();
        try (KafkaProducer<String, String> producer = Clients.producer(KRILL.bootstrapServers(), Map.of())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(PAYMENTS, 0, "pay" + i, "amount " + i)).get(30, TimeUnit.SECONDS);
            }
        }
        // A classic group (offsets committed with manual assignment) part way through each partition, and a
        // group whose id is HTML.
        commit(CLASSIC, Map.of(new TopicPartition(ORDERS, 0), 10L, new TopicPartition(ORDERS, 1), 10L,
                new TopicPartition(ORDERS, 2), 4L));
        commit(XSS, Map.of(new TopicPartition(ORDERS, 0), 1L));
        modernConsumer = modernGroupMember();
        shareConsumer = shareGroupMember();
        openTransaction = Clients.producer(KRILL.bootstrapServers(), Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TX_ID,
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "240000"));
        openTransaction.initTransactions();
        openTransaction.beginTransaction();
        openTransaction.send(new ProducerRecord<>(PAYMENTS, 0, "pay-tx", "not yet committed")).get(30, TimeUnit.SECONDS);

        browser = new ConsoleBrowser("http://127.0.0.1:" + HTTP_PORT + "/console/", Path.of("target"));
    }

    @AfterAll
    static void closeAll() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            if (clicks != null) {
                clicks.shutdownNow();
                clicksProducer.close(Duration.ofSeconds(10));
            }
            if (openTransaction != null) {
                openTransaction.close(Duration.ofSeconds(10));
            }
            if (modernConsumer != null) {
                modernConsumer.close(Duration.ofSeconds(10));
            }
            if (shareConsumer != null) {
                shareConsumer.close(Duration.ofSeconds(10));
            }
        }
    }

    /**
     * orders-0: "k0".."k29" (values "v0".., header trace="t-i", timestamps a second apart), then a binary
     * value and an HTML value; orders-1 and orders-2: 10 records each.
     */
    private static void produceOrders() throws Exception {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        firstTimestamp = (System.currentTimeMillis() - 600_000) / 1000 * 1000;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 30; i++) {
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(ORDERS, 0, firstTimestamp + i * 1000L, utf8("k" + i), utf8("v" + i));
                r.headers().add(new RecordHeader("trace", utf8("t-" + i)));
                producer.send(r);
            }
            producer.send(new ProducerRecord<>(ORDERS, 0, firstTimestamp + 30_000, utf8("bin"), BINARY));
            producer.send(new ProducerRecord<>(ORDERS, 0, firstTimestamp + 31_000, utf8("html"), utf8(XSS)));
            for (int p = 1; p <= 2; p++) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(ORDERS, p, utf8("p" + p + "-k" + i), utf8("p" + p + "-v" + i)));
                }
            }
            producer.flush();
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void commit(String group, Map<TopicPartition, Long> offsets) {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(offsets.keySet());
            consumer.commitSync(offsets.entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> new OffsetAndMetadata(e.getValue()))));
        }
    }

    /**
     * A KIP-848 member of MODERN, subscribed to payments and clicks, that has read payments and committed; stays
     * in the group without polling, so that its lag on clicks (written to all along) grows.
     */
    private static KafkaConsumer<String, String> modernGroupMember() {
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, MODERN);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "console-848-client");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        consumer.subscribe(List.of(PAYMENTS, CLICKS));
        TopicPartition payments = new TopicPartition(PAYMENTS, 0);
        Awaitility.await().atMost(WAIT).until(() -> {
            consumer.poll(Duration.ofMillis(200));
            return consumer.assignment().size() == 3 && consumer.position(payments) >= 5;
        });
        consumer.commitSync(Duration.ofSeconds(30));
        return consumer;
    }

    /** A member of the share group SHARE on payments that has acquired its records; stays in the group. */
    private static KafkaShareConsumer<String, String> shareGroupMember() throws Exception {
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, SHARE), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Properties props = Clients.base(KRILL.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, SHARE);
        KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        consumer.subscribe(List.of(PAYMENTS));
        int[] read = {0};
        Awaitility.await().atMost(WAIT).until(() -> {
            read[0] += consumer.poll(Duration.ofMillis(200)).count();
            return read[0] >= 5;
        });
        consumer.commitSync(Duration.ofSeconds(30));
        return consumer;
    }

    private static String api(String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + HTTP_PORT + "/console/api/" + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return r.body();
    }

    /** krill.console.read.only is true by default: no page shows an action control. */
    @Test
    void readOnlyShowsNoActionControls() {
        for (String route : List.of("topics", "topics/" + ORDERS, "groups/" + CLASSIC)) {
            browser.open(route);
            assertEquals(0, browser.all("[data-testid='create-topic'], [data-testid='topic-actions'], "
                    + "[data-testid='group-actions'], [data-testid$='-submit'], button.danger").size(), route);
        }
    }

    @Test
    void overviewShowsTheBrokerTheCountsAndRecordsInOverTime() throws Exception {
        browser.open("");
        String clusterId;
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            clusterId = admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
        assertEquals(clusterId, browser.text("cluster-id"));
        assertEquals("1", browser.text("controller-id"));
        assertEquals("1", browser.text("count-brokers"));
        assertEquals("127.0.0.1:" + KRILL.port(), browser.cell("tr[data-broker-id='1']", "host"));
        assertTrue(Integer.parseInt(browser.text("count-topics")) >= 2, browser.text("count-topics"));
        assertTrue(api("cluster").contains("\"topics\":" + browser.text("count-topics")), "the page shows the API's count");
        assertTrue(Integer.parseInt(browser.text("count-partitions")) >= 4, browser.text("count-partitions"));
        assertEquals("0", browser.text("count-offline"));
        // Records in per topic: the broker samples every 500 ms, the page reads every 5 s.
        Awaitility.await().atMost(WAIT).until(() -> browser.chartPoints("chart-records-in") >= 20);
        assertTrue(Integer.parseInt(browser.byTestId("chart-records-in").getAttribute("data-series")) >= 3);
        // Everything the page loaded came from the broker: no CDN, no web font.
        @SuppressWarnings("unchecked")
        List<String> loaded = (List<String>) browser.js("return performance.getEntriesByType('resource').map(e => e.name);");
        for (String url : loaded) {
            assertTrue(url.startsWith("http://127.0.0.1:" + HTTP_PORT + "/"), url);
        }
        browser.screenshot("overview");

        WebElement pause = browser.byTestId("refresh-toggle");
        pause.click();
        assertEquals("true", pause.getAttribute("aria-pressed"));
        assertEquals("Resume", pause.getText());
        pause.click();
        assertEquals("false", pause.getAttribute("aria-pressed"));
    }

    @Test
    void anErrorShowsTheBrokersAnswer() {
        browser.driver().get("http://127.0.0.1:" + HTTP_PORT + "/console/#/topics/no-such-topic");
        Awaitility.await().atMost(WAIT).until(() -> "error".equals(browser.one("#view").getAttribute("data-loaded")));
        assertEquals("404", browser.attribute("[data-testid='error']", "data-status"));
        String error = browser.text("error");
        assertTrue(error.startsWith("UNKNOWN_TOPIC_OR_PARTITION (HTTP 404)"), error);
    }

    @Test
    void topicsListAndATopicsPartitions() {
        browser.open("topics");
        assertEquals("3", browser.cell("tr[data-topic='orders']", "partitions"));
        assertEquals("52", browser.cell("tr[data-topic='orders']", "records"));
        assertEquals("1", browser.cell("tr[data-topic='payments']", "partitions"));
        browser.screenshot("topics");

        browser.one("tr[data-topic='orders'] a").click();
        browser.awaitLoaded();
        assertEquals("orders", browser.text("topic-name"));
        assertEquals(3, browser.all("[data-testid='partitions-table'] tbody tr").size());
        long[] ends = {32, 10, 10};
        for (int p = 0; p < 3; p++) {
            String row = "tr[data-partition='" + p + "']";
            assertEquals("1", browser.cell(row, "leader"));
            assertEquals("0", browser.cell(row, "start"));
            assertEquals(Long.toString(ends[p]), browser.cell(row, "end"));
        }
        Awaitility.await().atMost(WAIT).until(() -> browser.chartPoints("chart-topic-records-in") >= 2);
        browser.screenshot("topic");
    }

    @Test
    void recordBrowserReadsFromAnOffsetAndFromATimeAPageAtATime() {
        browser.open("topics/orders");
        awaitRecords();
        read("0", "offset", "0", "read_uncommitted", "10");
        assertEquals(offsets(0, 10), shownOffsets());
        assertEquals("k0", browser.cell("tr[data-offset='0']", "key"));
        assertEquals("v0", browser.cell("tr[data-offset='0']", "value"));
        assertEquals("trace: t-0", browser.cell("tr[data-offset='0']", "headers"));
        assertEquals(Long.toString(firstTimestamp),
                browser.one("tr[data-offset='0'] td[data-col='timestamp']").getAttribute("data-value"));

        click("rb-next");
        assertEquals(offsets(10, 20), shownOffsets());
        assertEquals("t-19", browser.one("tr[data-offset='19'] td[data-col='headers'] .payload").getText());
        click("rb-prev");
        assertEquals(offsets(0, 10), shownOffsets());

        // From a time: the first record at or after it.
        read("0", "timestamp", Long.toString(firstTimestamp + 20_000), "read_uncommitted", "10");
        assertEquals(offsets(20, 30), shownOffsets());
        // A time as the table shows it (the browser's local time, to the millisecond), copied into "from time".
        read("0", "timestamp", browser.cell("tr[data-offset='25']", "timestamp"), "read_uncommitted", "10");
        assertEquals(offsets(25, 32), shownOffsets());
        read("0", "timestamp", Long.toString(firstTimestamp + 20_000), "read_uncommitted", "10");
        click("rb-next");
        assertEquals(offsets(30, 32), shownOffsets());
        assertTrue(browser.byTestId("rb-next").getAttribute("disabled") != null,
                "no page after the last record");

        // A value that is not UTF-8 comes as base64 with a marker; a value that is HTML stays text.
        WebElement binary = browser.one("tr[data-offset='30'] td[data-col='value']");
        assertEquals(1, binary.findElements(By.cssSelector("[data-testid='binary-marker']")).size());
        assertEquals(Base64.getEncoder().encodeToString(BINARY), binary.findElement(By.cssSelector(".payload")).getText());
        assertEquals(XSS, browser.cell("tr[data-offset='31']", "value"));
        assertNoScriptRan();

        read("0", "offset", "22", "read_uncommitted", "10");
        assertEquals(offsets(22, 32), shownOffsets());
        browser.scrollTo("record-browser");
        browser.screenshot("records");
    }

    @Test
    void readCommittedStopsBeforeTheOpenTransaction() {
        browser.open("topics/payments");
        awaitRecords();
        read("0", "offset", "0", "read_uncommitted", "50");
        assertEquals(offsets(0, 6), shownOffsets());
        assertEquals("not yet committed", browser.cell("tr[data-offset='5']", "value"));
        read("0", "offset", "0", "read_committed", "50");
        assertEquals(offsets(0, 5), shownOffsets());
    }

    @Test
    void groupsListEveryKind() {
        browser.open("groups");
        assertEquals("classic", groupCell(CLASSIC, "type"));
        assertEquals("consumer", groupCell(MODERN, "type"));
        assertEquals("share", groupCell(SHARE, "type"));
        assertEquals("28", groupCell(CLASSIC, "lag"));
        browser.screenshot("groups");
    }

    @Test
    void aGroupsLagPerPartitionIsWhatTheClientComputes() throws Exception {
        Map<TopicPartition, Long> lag = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
        try (Admin admin = Admin.create(Clients.base(KRILL.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(CLASSIC)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            var ends = admin.listOffsets(committed.keySet().stream().collect(Collectors.toMap(Function.identity(),
                    tp -> OffsetSpec.latest()))).all().get(30, TimeUnit.SECONDS);
            committed.forEach((tp, o) -> lag.put(tp, ends.get(tp).offset() - o.offset()));
        }
        assertEquals(List.of(22L, 0L, 6L), new ArrayList<>(lag.values()));

        browser.open("groups/" + CLASSIC);
        assertEquals(CLASSIC, browser.text("group-id"));
        lag.forEach((tp, expected) -> assertEquals(Long.toString(expected),
                browser.cell("[data-testid='offsets-table'] tr[data-topic='" + tp.topic() + "'][data-partition='" + tp.partition() + "']", "lag"),
                tp.toString()));
        assertEquals("28", browser.text("group-lag"));
        assertEquals(3, browser.chartPoints("chart-lag-partitions"));
        // Total and per-topic lag over time: samples every 500 ms, the page reads every 5 s.
        Awaitility.await().atMost(WAIT).until(() -> browser.chartPoints("chart-lag-history") >= 2);
        Object drawn = browser.js("const c = document.querySelector(\"[data-testid='chart-lag-history'] canvas\");"
                + "return c.width * c.height;");
        assertTrue(((Number) drawn).longValue() > 0, "the lag chart's canvas has a size");
        browser.scrollTo("offsets");
        browser.screenshot("group-classic");
    }

    @Test
    void aKip848GroupShowsItsMemberAndItsLagGrowing() {
        browser.open("groups/" + MODERN);
        assertEquals("consumer", browser.text("group-type"));
        List<WebElement> members = browser.all("[data-testid='members-table'] tbody tr");
        assertEquals(1, members.size());
        assertEquals("console-848-client", browser.cell("[data-testid='members-table'] tbody tr", "client"));
        String assignment = browser.cell("[data-testid='members-table'] tbody tr", "assignment");
        assertTrue(assignment.contains("payments: 0") && assignment.matches("(?s).*clicks: (0, 1|1, 0).*"), assignment);
        assertEquals("1", browser.cell("[data-testid='offsets-table'] tr[data-topic='payments'][data-partition='0']", "lag"),
                "committed at 5, before the open transaction's record");
        // The member does not poll while clicks are written: the page, refreshing by itself, shows the lag grow.
        String clicksLag = "[data-testid='offsets-table'] tr[data-topic='clicks'][data-partition='0'] td[data-col='lag']";
        long before = Long.parseLong(browser.attribute(clicksLag, "data-value"));
        Awaitility.await().atMost(WAIT).until(() -> Long.parseLong(browser.attribute(clicksLag, "data-value")) > before);
        assertEquals(3, browser.chartPoints("chart-lag-partitions"));
        Awaitility.await().atMost(WAIT).until(() -> browser.chartPoints("chart-lag-history") >= 16);
        assertEquals("3", browser.byTestId("chart-lag-history").getAttribute("data-series"), "payments, clicks and all topics");
        browser.scrollTo("offsets");
        browser.screenshot("group");

        browser.open("groups/" + SHARE);
        assertEquals("share", browser.text("group-type"));
        assertEquals(1, browser.all("[data-testid='members-table'] tbody tr").size());
    }

    @Test
    void onAPhoneThePageDoesNotScrollSideways() {
        browser.viewport(400, 800);
        try {
            for (String route : List.of("", "topics/orders", "groups/" + MODERN)) {
                browser.open(route);
                Object overflow = browser.js("return document.documentElement.scrollWidth - window.innerWidth;");
                assertTrue(((Number) overflow).longValue() <= 0, "#/" + route + " is wider than the screen by " + overflow + " px");
            }
            browser.screenshot("group-narrow");
        } finally {
            browser.viewport(1280, 800);
        }
    }

    @Test
    void transactionsShowTheOpenOne() {
        browser.open("transactions");
        String row = "tr[data-transactional-id='" + TX_ID + "']";
        assertEquals("Ongoing", browser.cell(row, "state"));
        assertEquals("payments-0", browser.cell(row, "partitions"));
        browser.screenshot("transactions");
    }

    @Test
    void aGroupIdThatIsHtmlStaysText() {
        browser.open("groups");
        WebElement pause = browser.byTestId("refresh-toggle");
        pause.click(); // the list stays as it is while we find the row and click its link
        try {
            WebElement row = browser.all("tr[data-group]").stream()
                    .filter(r -> XSS.equals(r.getAttribute("data-group"))).findFirst().orElseThrow();
            assertEquals(XSS, row.findElement(By.cssSelector("td[data-col='group']")).getText());
            row.findElement(By.cssSelector("a")).click();
            browser.awaitLoaded();
        } finally {
            pause.click();
        }
        assertEquals(XSS, browser.text("group-id"));
        assertEquals("31", browser.cell("[data-testid='offsets-table'] tr[data-topic='orders'][data-partition='0']", "lag"));
        assertNoScriptRan();
    }

    private static void assertNoScriptRan() {
        assertNull(browser.js("return window.__xss === undefined ? null : String(window.__xss);"), "user data ran as HTML");
        assertTrue(browser.all("#view img").isEmpty(), "user data became an <img>");
    }

    private static String groupCell(String group, String column) {
        return browser.cell("tr[data-group='" + group + "']", column);
    }

    /** Waits for the record browser's first page (the last records, read when the topic opens). */
    private static void awaitRecords() {
        Awaitility.await().atMost(WAIT).until(() -> "true".equals(browser.byTestId("rb-results").getAttribute("data-loaded")));
    }

    private static void read(String partition, String mode, String from, String isolation, String limit) {
        new Select(browser.byTestId("rb-partition")).selectByValue(partition);
        new Select(browser.byTestId("rb-mode")).selectByValue(mode);
        new Select(browser.byTestId("rb-isolation")).selectByValue(isolation);
        new Select(browser.byTestId("rb-limit")).selectByValue(limit);
        WebElement input = browser.byTestId("rb-from");
        input.clear();
        input.sendKeys(from);
        click("rb-load");
    }

    /** Clicks a record browser button and waits for its page. */
    private static void click(String testId) {
        browser.byTestId(testId).click();
        awaitRecords();
        assertTrue(browser.all("[data-testid='rb-results'] [data-testid='error']").isEmpty(),
                () -> browser.text("rb-results"));
    }

    private static List<Long> shownOffsets() {
        return browser.all("[data-testid='records-table'] tbody tr").stream()
                .map(r -> Long.parseLong(r.getAttribute("data-offset"))).collect(Collectors.toList());
    }

    private static List<Long> offsets(long from, long to) {
        List<Long> xs = new ArrayList<>();
        for (long o = from; o < to; o++) {
            xs.add(o);
        }
        return xs;
    }
}
