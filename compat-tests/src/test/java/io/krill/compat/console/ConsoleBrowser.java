package io.krill.compat.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The Debian Chromium, headless, driven through /usr/bin/chromedriver, looking at one broker's console.
 * The driver and browser are named explicitly so that Selenium Manager never looks for (or downloads) either.
 * Finds elements by their {@code data-testid}, waits with Awaitility for what the page says it has loaded
 * ({@code #view[data-loaded]} for the page at {@code #view[data-hash]}).
 */
final class ConsoleBrowser implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Duration WAIT = Duration.ofSeconds(30);

    private final ChromeDriver driver;
    private final String base;
    private final Path screenshots;

    ConsoleBrowser(String base, Path workDir) throws IOException {
        this.base = base;
        this.screenshots = Files.createDirectories(workDir.resolve("console-screenshots"));
        Path profile = Files.createTempDirectory(Files.createDirectories(workDir), "chromium-profile");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // As root in a container: no sandbox, no GPU, /tmp instead of a small /dev/shm; nothing phones home.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-proxy-server", "--hide-scrollbars", "--window-size=1280,800",
                "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(WAIT);
        viewport(1280, 800);
    }

    /** Sizes the window so that the page itself (not the window with its invisible frame) is width x height. */
    void viewport(int width, int height) {
        driver.manage().window().setSize(new Dimension(width, height));
        long innerWidth = (Long) js("return window.innerWidth;");
        long innerHeight = (Long) js("return window.innerHeight;");
        driver.manage().window().setSize(new Dimension(2 * width - (int) innerWidth, 2 * height - (int) innerHeight));
    }

    /** Opens {@code #/<route>} and waits until the page has shown its data (or an error). */
    void open(String route) {
        driver.get(base + "#/" + route);
        awaitLoaded();
    }

    /** Waits until the page for the current address has loaded its data; fails on an error box. */
    void awaitLoaded() {
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            String state = (String) js("const v = document.getElementById('view');"
                    + "return v.dataset.hash === location.hash ? v.dataset.loaded : 'old';");
            if ("error".equals(state)) {
                throw new AssertionError("the page shows an error: " + text("error"));
            }
            return "true".equals(state);
        });
    }

    WebElement byTestId(String testId) {
        return driver.findElement(By.cssSelector("[data-testid='" + testId + "']"));
    }

    List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    WebElement one(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    // The page redraws its tables on every refresh (5 s): reading in one script, not by a WebElement found
    // earlier, never meets an element that has just been replaced.

    String text(String testId) {
        return textOf("[data-testid='" + testId + "']");
    }

    /** The text of a row's cell by its column, e.g. cell("tr[data-partition='0']", "lag"). */
    String cell(String row, String column) {
        return textOf(row + " td[data-col='" + column + "']");
    }

    /** The rendered text of the first element that {@code css} selects. */
    String textOf(String css) {
        return (String) js("const e = document.querySelector(arguments[0]);"
                + "if (!e) throw new Error('nothing at ' + arguments[0]); return e.innerText.trim();", css);
    }

    /** An attribute of the first element that {@code css} selects, null when it has none. */
    String attribute(String css, String name) {
        return (String) js("const e = document.querySelector(arguments[0]);"
                + "if (!e) throw new Error('nothing at ' + arguments[0]); return e.getAttribute(arguments[1]);", css, name);
    }

    Object js(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    /** The number of samples and series a chart holds, once it has drawn its canvas. */
    int chartPoints(String testId) {
        Number points = (Number) js("const c = document.querySelector(\"[data-testid='\" + arguments[0] + \"']\");"
                + "return c && c.querySelector('canvas') ? Number(c.dataset.points) : -1;", testId);
        return points.intValue();
    }

    void scrollTo(String testId) {
        js("arguments[0].scrollIntoView({block: 'start'}); window.scrollBy(0, -60);", byTestId(testId));
    }

    /** Saves what the browser shows (1280x800) as target/console-screenshots/<name>.png. */
    Path screenshot(String name) {
        try {
            Path file = screenshots.resolve(name + ".png");
            Files.move(driver.getScreenshotAs(OutputType.FILE).toPath(), file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    ChromeDriver driver() {
        return driver;
    }

    @Override
    public void close() {
        driver.quit();
    }
}
