package dev.baton.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.testkit.RedisServer;
import dev.baton.worker.sim.SimulatedWorker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The dashboard in a real browser: three {@code baton node --http} processes (fast profile) on a private Redis, the
 * system's headless Chromium on a follower's page. The page shows the leader and its term; after the leader is
 * SIGKILLed it shows the new leader under a higher term and the change on its timeline. The nodes run the work
 * cluster with two simulated workers, so the page also shows the item's worker and status from {@code /work/state}, and
 * the workers panel each worker's state and items. The nodes' ids are UUIDs and the item's id has separators: no id
 * is split inside a word, at a desktop width or a phone's, and the leader card keeps its id on one line. Screenshots
 * go to {@code target/dashboard-before-kill.png}, {@code dashboard-1400x900.png}, {@code dashboard-390x844.png} (and
 * the whole page at that width, {@code dashboard-390-full-page.png}) and, after the failover, {@code dashboard.png}.
 *
 * <p>Uses Debian's {@code /usr/bin/chromium} and {@code /usr/bin/chromedriver} (packages {@code chromium} and
 * {@code chromium-driver}; other paths through {@code -Dbaton.test.chromium} and {@code -Dbaton.test.chromedriver})
 * and skips with a message where they are missing. Selenium is handed both paths, so Selenium Manager never runs
 * and nothing is downloaded.
 */
class DashboardBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GROUP = "dashboard";
    private static final Duration STARTUP = Duration.ofSeconds(40);
    /** Lease TTL (3 s) + election + one poll of the page, with slack for a busy machine. */
    private static final Duration FAILOVER_SHOWN = Duration.ofSeconds(15);
    private static final String ITEM = "display-1;camera-7";
    /** UUIDs, as nodes started without --node-id and without --http get: the page must show them without a mess. */
    private static final List<String> NODE_IDS = List.of("3f2a9c1e-8d4b-4c1a-9e7f-2b6d8a9b7d41",
            "7c9e6679-7425-40de-944b-e07fc1f90ae1", "c56a4180-65aa-42ec-a945-5fd21dec0538");

    private Path chromium;
    private Path chromedriver;

    @TempDir
    Path temp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final NodeGroup nodes = new NodeGroup();
    private final Map<String, URI> nodeUrls = new LinkedHashMap<>();
    private RedisServer redis;
    private final List<SimulatedWorker> workers = new ArrayList<>();
    private WebDriver browser;

    @BeforeEach
    void requireChromium() {
        chromium = Path.of(System.getProperty("baton.test.chromium", "/usr/bin/chromium"));
        chromedriver = Path.of(System.getProperty("baton.test.chromedriver", "/usr/bin/chromedriver"));
        assumeTrue(Files.isExecutable(chromium) && Files.isExecutable(chromedriver),
                "Chromium or chromedriver not installed (" + chromium + ", " + chromedriver + "): skipping the"
                        + " dashboard browser test. Install them (Debian: apt-get install chromium chromium-driver)"
                        + " to run it; CI does.");
        // Belt and braces: were Selenium Manager ever started, it would see SE_OFFLINE=true and stay off the network.
        System.setProperty("SE_OFFLINE", "true");
        System.setProperty("webdriver.chrome.driver", chromedriver.toString());
    }

    @AfterEach
    void stopEverything() {
        try {
            if (browser != null) {
                browser.quit();
            }
        } finally {
            try {
                nodes.close();
            } finally {
                workers.forEach(SimulatedWorker::close);
                if (redis != null) {
                    redis.close();
                }
            }
        }
    }

    @Test
    void followersDashboardShowsTheNewLeaderAndHigherTermAfterTheLeaderIsKilled() throws Exception {
        redis = RedisServer.start();
        for (int i = 0; i < 2; i++) {
            workers.add(SimulatedWorker.builder().reportInterval(Duration.ofSeconds(1)).start());
        }
        String workerList = workers.get(0).uri() + "," + workers.get(1).uri();
        for (String name : NODE_IDS) {
            int port = NginxProcess.freeLoopbackPort();
            nodeUrls.put(name, URI.create("http://127.0.0.1:" + port));
            nodes.start(name, "--backend", redis.uri(), "--group", GROUP, "--profile", "fast",
                    "--http", "127.0.0.1:" + port, "--workers", workerList);
        }
        JsonNode leader = awaitOneLeaderKnownToAll();
        String firstLeader = leader.path("leader_id").asText();
        long firstTerm = leader.path("term").asLong();
        putItem(nodeUrls.get(firstLeader), ITEM);
        String follower = nodeUrls.keySet().stream().filter(name -> !name.equals(firstLeader)).findFirst()
                .orElseThrow();

        browser = startBrowser();
        browser.get(nodeUrls.get(follower).resolve("/").toString());
        awaitOnPage("the leader and term of the running cluster", () ->
                leaderShown().equals(firstLeader) && text("leader-term").equals(Long.toString(firstTerm))
                        && browser.findElements(By.cssSelector("#nodes tbody tr")).size() == 3
                        && !browser.findElements(By.cssSelector("#items tr[data-item='" + ITEM + "']")).isEmpty()
                        && itemAssignment().equals(List.of(runningWorker(), "active")));
        assertThat(browser.findElement(By.id("self-id")).getText()).isEqualTo(follower);
        assertThat(browser.findElement(By.id("banner")).isDisplayed()).as("no banner while all is well").isFalse();
        assertThat(browser.findElement(By.cssSelector("#nodes tr.is-leader")).getDomAttribute("data-node"))
                .isEqualTo(firstLeader);
        assertThat(browser.findElement(By.id("leader-id")).getDomProperty("title")).isEqualTo(firstLeader);
        awaitOnPage("both workers in the workers panel, the item on its worker", () ->
                browser.findElement(By.id("workers-section")).isDisplayed()
                        && browser.findElements(By.cssSelector("#workers tbody tr")).size() == 2
                        && workerRow(runningWorker()).contains(ITEM) && workerRow(runningWorker()).contains("online"));
        assertIdsAreWhole();
        screenshot("dashboard-before-kill.png");
        browser.manage().window().setSize(new Dimension(1400, 900));
        assertIdsAreWhole();
        screenshot("dashboard-1400x900.png");
        browser.manage().window().setSize(new Dimension(390, 844));
        assertIdsAreWhole();
        screenshot("dashboard-390x844.png");
        long pageHeight = (Long) ((JavascriptExecutor) browser).executeScript(
                "return document.documentElement.scrollHeight;");
        browser.manage().window().setSize(new Dimension(390, (int) Math.min(4000, pageHeight + 150)));
        screenshot("dashboard-390-full-page.png");
        browser.manage().window().setSize(new Dimension(1366, 900));

        nodes.all().stream().filter(node -> node.name().equals(firstLeader)).findFirst().orElseThrow().sigkill();
        awaitOnPage("a new leader under a higher term after the SIGKILL", () -> {
            String shown = leaderShown();
            return !shown.equals(firstLeader) && nodeUrls.containsKey(shown)
                    && Long.parseLong(text("leader-term")) > firstTerm;
        });
        String secondLeader = leaderShown();
        awaitOnPage("the new leader on the leadership timeline", () ->
                browser.findElements(By.cssSelector("#timeline li.elected")).stream()
                        .anyMatch(entry -> entry.getText().replace("\n", "").contains(secondLeader + " elected leader")));
        awaitOnPage("the item still on its worker after the failover", () ->
                itemAssignment().equals(List.of(runningWorker(), "active")));
        screenshot("dashboard.png");

        assertThat(uncaughtErrors()).as("uncaught errors in the page's console").isEmpty();
    }

    private WebDriver startBrowser() {
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort()
                .withLogFile(temp.resolve("chromedriver.log").toFile())
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1366,900", "--user-data-dir=" + temp.resolve("chromium-profile"));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        return new ChromeDriver(service, options);
    }

    /** The URL of the simulated worker that runs {@link #ITEM}, or "" while none does. */
    private String runningWorker() {
        return workers.stream().filter(w -> w.subscriptions().contains(ITEM)).map(w -> w.uri().toString())
                .findFirst().orElse("");
    }

    /** The item row's worker and status cells, as the page shows them. */
    private List<String> itemAssignment() {
        return browser.findElements(By.cssSelector("#items tr[data-item='" + ITEM + "'] td.assignment")).stream()
                .map(cell -> cell.getText().trim()).toList();
    }

    /** The full id of the leader the page shows (the card may shorten a long one). */
    private String leaderShown() {
        List<WebElement> found = browser.findElements(By.id("leader-id"));
        return found.isEmpty() ? "" : String.valueOf(found.get(0).getDomAttribute("data-leader"));
    }

    /** The text of the workers panel's row for {@code url}, or "" if there is none. */
    private String workerRow(String url) {
        return browser.findElements(By.cssSelector("#workers tbody tr")).stream()
                .filter(row -> url.equals(row.getDomAttribute("data-worker"))).map(WebElement::getText)
                .findFirst().orElse("");
    }

    /**
     * Every id on the page (nodes, items, workers) is broken, if at all, only between its parts: no part between two
     * separators is split over two lines. And the leader card shows its id on one line, the full id in its title.
     */
    private void assertIdsAreWhole() {
        Object split = ((JavascriptExecutor) browser).executeScript("""
                const broken = [];
                for (const id of document.querySelectorAll('.id')) {
                  for (const node of id.childNodes) {
                    if (node.nodeType !== Node.TEXT_NODE || node.textContent.trim() === '') continue;
                    const range = document.createRange();
                    range.selectNodeContents(node);
                    const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
                    if (lines.size > 1) broken.push(node.textContent);
                  }
                }
                const leader = document.getElementById('leader-id');
                const range = document.createRange();
                range.selectNodeContents(leader);
                const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
                if (lines.size > 1 || leader.scrollWidth > leader.clientWidth + 1) broken.push('leader card');
                return broken;""");
        assertThat((List<?>) split).as("id parts split over two lines at width "
                + browser.manage().window().getSize().width).isEmpty();
    }

    private String text(String id) {
        List<WebElement> found = browser.findElements(By.id(id));
        return found.isEmpty() ? "" : found.get(0).getText().trim();
    }

    private void awaitOnPage(String what, Callable<Boolean> condition) throws IOException {
        try {
            await().atMost(FAILOVER_SHOWN).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions().until(condition);
        } catch (ConditionTimeoutException e) {
            screenshot("dashboard-failure.png");
            throw new AssertionError("the dashboard did not show " + what + "; leader shown '" + text("leader-id")
                    + "', term '" + text("leader-term") + "', banner '" + text("banner") + "'\n" + nodes.describe(), e);
        }
    }

    private List<String> uncaughtErrors() {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage)
                .filter(message -> message.contains("Uncaught"))
                .toList();
    }

    private void screenshot(String name) throws IOException {
        Path target = Path.of(System.getProperty("basedir", "."), "target");
        Files.createDirectories(target);
        Path shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, target.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Waits until every node answers {@code GET /cluster/leader} with the same leader; returns that answer. */
    private JsonNode awaitOneLeaderKnownToAll() {
        Map<String, JsonNode> answers = new HashMap<>();
        try {
            await().atMost(STARTUP).pollInterval(Duration.ofMillis(100)).until(() -> {
                answers.clear();
                for (Map.Entry<String, URI> node : nodeUrls.entrySet()) {
                    Optional<JsonNode> leader = getJson(node.getValue().resolve("/cluster/leader"));
                    if (leader.isEmpty()) {
                        return false;
                    }
                    answers.put(node.getKey(), leader.get());
                }
                return answers.values().stream().map(a -> a.path("leader_id").asText()).distinct().count() == 1;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no leader known to all three nodes within " + STARTUP + ": " + answers
                    + "\n" + nodes.describe(), e);
        }
        return answers.values().iterator().next();
    }

    private void putItem(URI leader, String id) throws IOException, InterruptedException {
        String body = JSON.createObjectNode().put("rtspUrl", "rtsp://cameras.example/7").put("modelId", 42)
                .put("modelName", "YOLOv8 nano").put("modelUrl", "https://models.example/yolov8n.onnx")
                .put("weight", 2).toString();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        leader.resolve("/work/items/" + NginxFailoverTest.pathSegment(id)))
                .timeout(Duration.ofSeconds(5)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 299);
    }

    private Optional<JsonNode> getJson(URI uri) throws IOException, InterruptedException {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(JSON.readTree(response.body())) : Optional.empty();
        } catch (java.net.ConnectException | java.net.http.HttpTimeoutException e) {
            return Optional.empty();
        }
    }
}
