package io.krill.compat.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.krill.compat.KrillBrokerExtension;
import io.krill.compat.support.Clients;
import io.krill.compat.support.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.support.ui.Select;

/**
 * The console's actions in Chromium, on a broker with {@code krill.console.read.only=false}: a topic made
 * through the form, a group's offsets reset to earliest after a preview that changed nothing, and a topic
 * deleted by typing its name; each checked with the Admin client. Screenshots in target/console-screenshots/.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConsoleActionsBrowserTest {
    private static final int HTTP_PORT = FreePorts.next();
    private static final String SOURCE = "browser-source";
    private static final String GROUP = "browser-reset";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    static final KrillBrokerExtension KRILL = new KrillBrokerExtension()
            .with("krill.http.port", Integer.toString(HTTP_PORT))
            .with("krill.console.read.only", "false");

    private static Admin admin;
    private static ConsoleBrowser browser;

    @BeforeAll
    static void topicGroupAndBrowser() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(ConsoleBrowser.CHROMIUM) && Files.isExecutable(ConsoleBrowser.CHROMEDRIVER),
                "no /usr/bin/chromium or /usr/bin/chromedriver: apt-get install chromium chromium-driver (.ci/run does)");
        admin = Admin.create(Clients.base(KRILL.bootstrapServers()));
        admin.createTopics(List.of(new NewTopic(SOURCE, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        for (int p = 0; p < 2; p++) {
            Clients.produce(KRILL.bootstrapServers(), SOURCE, p, List.of("a", "b", "c", "d", "e", "f", "g", "h"));
        }
        admin.alterConsumerGroupOffsets(GROUP, Map.of(new TopicPartition(SOURCE, 0), new OffsetAndMetadata(6),
                new TopicPartition(SOURCE, 1), new OffsetAndMetadata(5))).all().get(30, TimeUnit.SECONDS);
        browser = new ConsoleBrowser("http://127.0.0.1:" + HTTP_PORT + "/console/", Path.of("target"));
    }

    @AfterAll
    static void closeAll() {
        if (browser != null) {
            browser.close();
        }
        if (admin != null) {
            admin.close();
        }
    }

    @Test
    void createATopicThroughTheFormThenDeleteItByTypingItsName() throws Exception {
        browser.open("topics");
        browser.one("[data-testid='create-topic'] summary").click();
        browser.byTestId("create-topic-name").sendKeys("made-in-browser");
        browser.byTestId("create-topic-partitions").sendKeys("2");
        browser.byTestId("create-topic-rf").sendKeys("1");
        browser.byTestId("create-topic-configs").sendKeys("retention.ms=3600000");
        browser.byTestId("create-topic-submit").click();
        awaitResult();
        assertTrue(browser.text("action-result").contains("Created topic made-in-browser"));
        browser.screenshot("actions-create-topic");
        assertEquals(2, admin.describeTopics(List.of("made-in-browser")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("made-in-browser").partitions().size());
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "made-in-browser");
        Map<String, String> configs = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                .get(resource).entries().stream().collect(Collectors.toMap(ConfigEntry::name, e -> String.valueOf(e.value())));
        assertEquals("3600000", configs.get("retention.ms"));

        browser.open("topics/made-in-browser");
        browser.scrollTo("delete-topic-confirm");
        assertEquals("true", String.valueOf(browser.js("return arguments[0].disabled;",
                browser.byTestId("delete-topic-submit"))), "disabled until the name is typed");
        browser.byTestId("delete-topic-confirm").sendKeys("made-in-browser");
        browser.screenshot("actions-delete-topic");
        browser.byTestId("delete-topic-submit").click();
        awaitResult();
        Awaitility.await().atMost(WAIT)
                .until(() -> !admin.listTopics().names().get(30, TimeUnit.SECONDS).contains("made-in-browser"));
    }

    @Test
    void resetAGroupsOffsetsAfterAPreview() throws Exception {
        browser.open("groups/" + GROUP);
        browser.scrollTo("group-actions");
        new Select(browser.byTestId("reset-strategy")).selectByValue("earliest");
        browser.byTestId("reset-preview-submit").click();
        Awaitility.await().atMost(WAIT).until(() -> browser.all("[data-testid='reset-preview-table'] tbody tr").size() == 2);
        assertEquals("0", browser.cell("[data-testid='reset-preview-table'] tr[data-partition='0']", "new"));
        assertEquals("8", browser.cell("[data-testid='reset-preview-table'] tr[data-partition='0']", "lag"));
        assertEquals(Map.of(0, 6L, 1, 5L), committed(), "the preview is a dry run");
        browser.screenshot("actions-reset-preview");
        browser.byTestId("reset-apply").click();
        Awaitility.await().atMost(WAIT).until(() -> committed().equals(Map.of(0, 0L, 1, 0L)));
        awaitResult();
        browser.screenshot("actions-reset-applied");
    }

    private static void awaitResult() {
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!browser.all("[data-testid='action-error']").isEmpty()) {
                throw new AssertionError("the action failed: " + browser.text("action-error"));
            }
            return !browser.all("[data-testid='action-result']").isEmpty();
        });
    }

    private static Map<Integer, Long> committed() throws Exception {
        return admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                .entrySet().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(e -> e.getKey().partition(), e -> e.getValue().offset()));
    }
}
