package io.loomgmp.trace;

import io.loomgmp.jfr.testing.MiniJson;

import io.loomgmp.jfr.testing.SyntheticRecording;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * trace.html opened for real in headless Chromium: the page's own account of what it drew (the
 * {@code data-*} attributes on its body, read with {@code --dump-dom}), its hover, zoom and pan
 * handlers driven by synthetic events ({@code #selftest}), and a screenshot whose pixels show each
 * lane's band painted with more than its background. The virtual-thread table is checked against
 * {@link ThreadAnalysis} of the same recording: its rows and figures, its order after clicks on
 * column headers, and a row's link picking its thread's runs out on the timeline (clicked, and as
 * a {@code #vt=N} URL); the scheduling-latency histogram by its cells and by the bars in a
 * screenshot.
 *
 * <p>Needs a Chromium: the one named by {@code -Dloomgmp.chromium=<path>} (then a missing one
 * fails the test), else {@code chromium}, {@code chromium-browser} or {@code google-chrome} on the
 * PATH. Without one the tests are skipped with one line saying so and how to get one; the run's
 * summary counts them as skipped ({@code ./loomgmp test} installs Debian's chromium when run as
 * root, and lists the skipped tests at the end). Linux only: elsewhere they are skipped too.
 * {@code -Dloomgmp.skipBrowserTest=true} skips them on purpose.
 */
@DisabledIfSystemProperty(named = "loomgmp.skipBrowserTest", matches = "true",
        disabledReason = "skipped by -Dloomgmp.skipBrowserTest=true")
@EnabledOnOs(value = OS.LINUX, disabledReason = "the browser lookup and flags are Linux's")
class HtmlInChromiumTest {
    private static final String WINDOW = "1200,900";
    private static String chromium;
    private static Map<String, String> body;
    /** The page after its #selftest, as chromium dumped it. */
    private static String dom;
    /** What the page should show, from the same recording. */
    private static ThreadAnalysis expected;
    private static long origin;
    /** Why the tests are skipped (no browser), or null. */
    private static String skipped;

    @BeforeAll
    static void openThePage() throws Exception {
        String configured = System.getProperty("loomgmp.chromium"); // a browser elsewhere than on the PATH
        if (configured != null && !configured.isBlank()) {
            if (!Files.isExecutable(Path.of(configured))) {
                fail("-Dloomgmp.chromium=" + configured + " names no executable");
            }
            chromium = configured;
        } else {
            chromium = chromiumOnThePath();
        }
        if (chromium == null) {
            String why = "SKIPPED: the trace.html browser tests need a Chromium, and there is none (no chromium,"
                    + " chromium-browser or google-chrome on the PATH): install one (as root: apt-get install -y"
                    + " --no-install-recommends chromium; ./loomgmp test does this when run as root), or name one"
                    + " with -Dloomgmp.chromium=<path>";
            System.err.println("loomgmp: " + why);
            skipped = why; // each test is then reported skipped (an abort here would report none)
            return;
        }
        TraceFixture.ensure();
        Timeline timeline = Timeline.of(new RecordingReader(Long.MAX_VALUE, new PrintStream(OutputStream.nullOutputStream()))
                .read(TraceFixture.RECORDING));
        expected = Summary.of(timeline).threads;
        origin = timeline.origin;
        dom = runChromium("--dump-dom", TraceFixture.HTML.toUri() + "#selftest");
        Matcher m = Pattern.compile("<body([^>]*)>").matcher(dom);
        assertTrue(m.find(), "no body in the dumped DOM:\n" + dom);
        body = attributes(m.group(1));
    }

    @BeforeEach
    void needsTheBrowser() {
        Assumptions.assumeTrue(skipped == null, skipped);
    }

    @Test
    void thePageIsSelfContained() throws Exception {
        String html = Files.readString(TraceFixture.HTML);
        assertFalse(html.contains("<script src"), "no external script");
        assertFalse(html.contains("<link"), "no external stylesheet");
        assertFalse(Pattern.compile("(src|href)=\"?(https?:)?//").matcher(html).find(), "nothing fetched");
    }

    @Test
    void everyLaneIsDrawnWithItsSlicesAndMarks() {
        assertEquals("drawn", body.get("data-state"), "the script ran to the end: " + body);
        assertEquals("Sysmon|Proc 0|Proc 1|Other threads", body.get("data-lane-names"));
        assertEquals("4", body.get("data-lanes"));
        String[] perLane = body.get("data-lane-slices-drawn").split(" ");
        assertEquals(String.valueOf(SyntheticRecording.CHAIN + 1), perLane[1], "Proc 0's runs");
        assertEquals(String.valueOf(SyntheticRecording.STOLEN + 1 + SyntheticRecording.AFTER_HANDOFF), perLane[2],
                "Proc 1's runs");
        assertEquals("1", perLane[3], "the outside wake-up's anchor");
        assertTrue(Integer.parseInt(body.get("data-marks-drawn")) >= SyntheticRecording.CHAIN + 4, body.toString());
        assertEquals(String.valueOf(SyntheticRecording.CHAIN), body.get("data-flows-drawn"), "wake-up arrows");
    }

    @Test
    void hoverZoomAndPanWork() {
        String selftest = body.get("data-selftest");
        assertTrue(selftest != null, "the #selftest ran: " + body);
        Map<String, String> result = selftestResult(selftest);
        assertEquals("true", result.get("hoverVisible"), selftest);
        String tooltip = result.get("hoverText");
        assertTrue(tooltip.contains("VT " + result.get("hoverVirtualThread")) && tooltip.contains("source")
                && tooltip.contains("duration") && tooltip.contains("carrier  gmp-M"), "tooltip: " + tooltip);
        double zoom = Double.parseDouble(result.get("zoomFactor"));
        assertTrue(zoom > 0.3 && zoom < 0.8, "the wheel zoomed in: " + zoom);
        assertTrue(Double.parseDouble(result.get("panShift")) > 0, "dragging left moved the view later: " + selftest);
        assertEquals("true", result.get("resetToWhole"), "double-click shows the whole recording");
    }

    @Test
    void theScreenshotHasEachLanePainted() throws Exception {
        Path png = TraceFixture.DIR.resolve("trace-screenshot.png");
        Files.deleteIfExists(png);
        runChromium("--screenshot=" + png, TraceFixture.HTML.toUri().toString());
        BufferedImage image = ImageIO.read(png.toFile());
        assertTrue(image != null, "chromium wrote no screenshot at " + png);
        String[] bands = body.get("data-lane-bands").split(" ");
        String[] backgrounds = body.get("data-lane-backgrounds").split(" ");
        String[] names = body.get("data-lane-names").split("\\|");
        String[] plot = body.get("data-plot-x").split("-");
        int x0 = Integer.parseInt(plot[0]);
        int x1 = Math.min(image.getWidth(), Integer.parseInt(plot[1]));
        // Fewest coloured (saturated) pixels per lane: runs fill 18-pixel-high bars in saturated
        // colours, sysmon's preemption request and hand-off are two saturated triangles, while
        // wake-up ticks, arrows and labels are grey or white, so they cannot stand in for runs.
        // The outside wake-up's lane has only grey: it must just differ from its background.
        Map<String, Integer> leastColoured = Map.of("Sysmon", 20, "Proc 0", 300, "Proc 1", 300, "Other threads", 0);
        List<String> report = new ArrayList<>();
        for (int lane = 0; lane < names.length; lane++) {
            String[] band = bands[lane].split("-");
            int y0 = Integer.parseInt(band[0]);
            int y1 = Math.min(image.getHeight(), Integer.parseInt(band[1]));
            int background = Integer.parseInt(backgrounds[lane].substring(1), 16);
            int painted = 0;
            int coloured = 0;
            int plain = 0;
            for (int y = y0; y < y1; y++) {
                for (int x = x0; x < x1; x++) {
                    int rgb = image.getRGB(x, y) & 0xffffff;
                    if (distance(rgb, background) <= 24) {
                        plain++;
                    } else {
                        painted++;
                        if (saturation(rgb) > 60) coloured++;
                    }
                }
            }
            report.add(names[lane] + ": " + painted + " painted (" + coloured + " coloured), " + plain + " background");
            // The band really is this lane: most of it shows the lane's own background colour.
            assertTrue(plain > (y1 - y0) * (x1 - x0) / 3, "band of " + names[lane] + " is not where the page says: " + report);
            assertTrue(painted >= 5, names[lane] + " has nothing drawn: " + report);
            assertTrue(coloured >= leastColoured.get(names[lane]), names[lane] + " has too little drawn: " + report);
        }
        System.out.println("trace.html screenshot " + png + ": " + report);
    }

    @Test
    void theVirtualThreadTableHasEachThreadWithItsFigures() {
        Map<Long, long[]> rows = threadRows(dom);
        assertEquals(SyntheticRecording.CHAIN + 1 + SyntheticRecording.STOLEN + 1 + SyntheticRecording.AFTER_HANDOFF,
                rows.size(), "one row per virtual thread: " + rows.keySet());
        assertEquals(List.of("virtual thread", "runs", "running", "runnable", "waits", "longest wait", "parked",
                "yielded", "preempted", "finished"), headers(dom));
        for (ThreadAnalysis.Row r : expected.rows) {
            long[] figures = {r.runs, r.runningNanos, r.runnableNanos, r.waits, r.longestWait, r.ended(0), r.ended(1),
                    r.ended(2), r.ended(3)};
            assertArrayEquals(figures, rows.get(r.virtualThread), "VT " + r.virtualThread);
        }
        // What the scenario fixes, whatever the timings: [runs, running, runnable, waits, longest, parked,
        // yielded, preempted, finished].
        long[] first = rows.get(100L);
        assertArrayEquals(new long[]{1, 0, 0, 0, 1, 0, 0}, pick(first, 0, 2, 3, 4, 5, 7, 8),
                "the chain's first run: no wake-up before it, so no wait");
        long[] last = rows.get(100L + SyntheticRecording.CHAIN - 1);
        assertArrayEquals(new long[]{1, 1, 1}, pick(last, 0, 3, 7), "the chain's last run: woken, then preempted");
        assertEquals(last[2], last[4]);
        long[] outside = rows.get(SyntheticRecording.OUTSIDE_WOKEN);
        assertArrayEquals(new long[]{1, 1, 1}, pick(outside, 0, 3, 8), "woken from outside, finished");
        assertTrue(outside[2] > 0 && outside[2] == outside[4], "its one wait is its runnable time: " + outside[2]);
        assertArrayEquals(new long[]{1, 0, 1}, pick(rows.get(SyntheticRecording.BLOCKED), 0, 3, 8));
        for (int i = 0; i < SyntheticRecording.AFTER_HANDOFF; i++) {
            assertArrayEquals(new long[]{1, 0, 0, 1}, pick(rows.get(400L + i), 0, 2, 3, 6), "VT " + (400 + i));
        }
        assertEquals(SyntheticRecording.CHAIN, rows.values().stream().mapToLong(r -> r[3]).sum(),
                "waits: the chain's runs after the first, and the outside-woken one");
    }

    @Test
    void clickingAColumnHeaderSortsTheTable() {
        Map<String, String> result = selftestResult(body.get("data-selftest"));
        List<ThreadAnalysis.Row> rows = expected.rows;
        Comparator<ThreadAnalysis.Row> byId = Comparator.comparingLong(r -> r.virtualThread);
        Comparator<ThreadAnalysis.Row> byRunnable = Comparator.comparingLong(r -> r.runnableNanos);
        String runnableDescending = order(rows, byRunnable.reversed().thenComparing(byId));
        assertEquals(runnableDescending, result.get("threadOrderFirst"), "at first: the longest waiters first");
        assertEquals(order(rows, byId), result.get("threadOrderById"), "by virtual thread");
        assertEquals(runnableDescending, result.get("threadOrderByRunnable"));
        assertEquals("descending", result.get("threadSortRunnable"));
        assertEquals(order(rows, byRunnable.thenComparing(byId)), result.get("threadOrderByRunnableAscending"),
                "a second click reverses it");
        assertEquals("ascending", result.get("threadSortRunnableAgain"));
        assertFalse(result.get("threadOrderById").equals(result.get("threadOrderByRunnable")),
                "the chain's first thread never waited: it moves from the top to the bottom");
        assertEquals(runnableDescending, String.join(" ", threadRows(dom).keySet().stream().map(String::valueOf).toList()),
                "the table as dumped, after a third click");
    }

    @Test
    void aThreadsLinkPicksItsRunsOutOnTheTimeline() throws Exception {
        Map<String, Object> result = selftestObjects(body.get("data-selftest"));
        ThreadAnalysis.Row longest = expected.rows.stream()
                .min(Comparator.comparingLong((ThreadAnalysis.Row r) -> -r.runnableNanos).thenComparingLong(r -> r.virtualThread))
                .orElseThrow();
        String vt = String.valueOf(longest.virtualThread);
        assertEquals(vt, String.valueOf(result.get("linkedVt")), "the first row's link was clicked");
        assertEquals(vt, String.valueOf(result.get("selectedVt")));
        assertEquals(String.valueOf(longest.runs), String.valueOf(result.get("selectedSlicesDrawn")),
                "each of its runs drawn picked out");
        assertEquals(true, result.get("selectedRowMarked"));
        assertEquals("#vt=" + vt, result.get("hash"), "the URL names the thread");
        assertTrue(String.valueOf(result.get("selectionLine")).startsWith("VT " + vt + ": "), result.toString());
        List<?> view = (List<?>) result.get("viewAfterLink");
        double start = Double.parseDouble(view.get(0).toString());
        double end = Double.parseDouble(view.get(1).toString());
        assertTrue(start <= longest.firstSeen - origin && end >= longest.lastRunEnd - origin
                        && end - start < (longest.lastRunEnd - longest.firstSeen) * 2 + 2_000,
                "zoomed on it, from its wake-up to its run's end: " + view + " vs " + (longest.firstSeen - origin)
                        + ".." + (longest.lastRunEnd - origin));
        assertEquals("0", String.valueOf(result.get("clearedSlicesDrawn")), "Esc / clear: nothing picked out");

        // The same as a URL: trace.html#vt=N opens the page on that thread.
        String opened = runChromium("--dump-dom", TraceFixture.HTML.toUri() + "#vt=" + SyntheticRecording.BLOCKED);
        Matcher m = Pattern.compile("<body([^>]*)>").matcher(opened);
        assertTrue(m.find(), opened);
        Map<String, String> onIt = attributes(m.group(1));
        assertEquals(String.valueOf(SyntheticRecording.BLOCKED), onIt.get("data-selected-vt"), onIt.toString());
        assertEquals("1", onIt.get("data-selected-slices-drawn"), "its one run, cut on P1 by the hand-off");
        assertTrue(opened.contains("<tr data-vt=\"" + SyntheticRecording.BLOCKED + "\" class=\"selected\">"),
                "its row is marked");
    }

    @Test
    void theLatencyHistogramHasEveryWaitAndIsDrawn() throws Exception {
        int from = dom.indexOf("<table class=\"bars\" id=\"latency\">");
        assertTrue(from >= 0, "no latency table in the page");
        String table = dom.substring(from, dom.indexOf("</table>", from));
        LatencyProfile latency = expected.latency;
        assertEquals(SyntheticRecording.CHAIN, latency.all.total);
        Matcher row = Pattern.compile("<tr data-bucket=\"(\\d+)\">(.*?)</tr>").matcher(table);
        Pattern cell = Pattern.compile("<td class=\"n\" data-n=\"(\\d+)\"(?: data-p=\"(\\d+)\")?>");
        long all = 0;
        long[] perP = new long[2];
        int bars = 0;
        int counted = 0;
        List<Integer> buckets = new ArrayList<>();
        while (row.find()) {
            int bucket = Integer.parseInt(row.group(1));
            buckets.add(bucket);
            Matcher c = cell.matcher(row.group(2));
            while (c.find()) {
                long n = Long.parseLong(c.group(1));
                if (n > 0) counted++;
                if (c.group(2) == null) {
                    all += n;
                    assertEquals(latency.all.counts[bucket], n, "bucket " + bucket);
                } else {
                    perP[Integer.parseInt(c.group(2))] += n;
                }
            }
            bars += row.group(2).split("<div style=\"width:", -1).length - 1;
        }
        assertEquals(latency.all.firstNonEmpty(), buckets.getFirst());
        assertEquals(latency.all.lastNonEmpty(), buckets.getLast());
        assertEquals(SyntheticRecording.CHAIN, all);
        assertArrayEquals(new long[]{SyntheticRecording.CHAIN, 0}, perP, "every wait ended on P0, where they ran");
        assertEquals(counted, bars, "a bar for each non-empty cell, none for the empty ones");
        for (String figure : List.of("p50", "p99", "max")) {
            Matcher p = Pattern.compile("data-figure=\"" + figure + "\"><th>" + figure + "</th><td class=\"n\" data-ns=\"(\\d+)\"")
                    .matcher(table);
            assertTrue(p.find(), figure + " row missing");
            long want = switch (figure) {
                case "p50" -> latency.overall.p50();
                case "p99" -> latency.overall.p99();
                default -> latency.overall.max();
            };
            assertEquals(want, Long.parseLong(p.group(1)), figure);
        }

        // Drawn: in a screenshot tall enough to hold the table, each non-empty bucket's row has its
        // bar painted in the bars' colour (#4e79a7).
        String[] box = body.get("data-latency-box").split(" ");
        int x0 = Integer.parseInt(box[0]);
        int y0 = Integer.parseInt(box[1]);
        int x1 = Integer.parseInt(box[2]);
        int y1 = Integer.parseInt(box[3]);
        Path png = TraceFixture.DIR.resolve("trace-latency-screenshot.png");
        Files.deleteIfExists(png);
        runChromium("1200," + (y1 + 60), "--screenshot=" + png, TraceFixture.HTML.toUri().toString());
        BufferedImage image = ImageIO.read(png.toFile());
        assertTrue(image != null && image.getHeight() >= y1, "no screenshot of the whole table at " + png);
        int barPixels = 0;
        int barRows = 0;
        boolean inBar = false;
        for (int y = y0; y < y1; y++) {
            int onLine = 0;
            for (int x = x0; x < Math.min(x1, image.getWidth()); x++) {
                if (distance(image.getRGB(x, y) & 0xffffff, 0x4e79a7) <= 30) onLine++;
            }
            barPixels += onLine;
            if (onLine > 0 && !inBar) barRows++;
            inBar = onLine > 0;
        }
        long nonEmpty = java.util.Arrays.stream(latency.all.counts).filter(n -> n > 0).count();
        assertEquals(nonEmpty, barRows, "one painted bar row per non-empty bucket, in " + png);
        assertTrue(barPixels >= 2_000, "the longest bar spans the bar column: " + barPixels + " pixels, in " + png);
    }

    /** Each row of the virtual-thread table, in page order: its data-v figures. */
    private static Map<Long, long[]> threadRows(String page) {
        int from = page.indexOf("<table class=\"threads\" id=\"threads\">");
        assertTrue(from >= 0, "no thread table in the page");
        String table = page.substring(from, page.indexOf("</table>", from));
        Map<Long, long[]> rows = new LinkedHashMap<>();
        Matcher row = Pattern.compile("<tr data-vt=\"(\\d+)\"[^>]*>(.*?)</tr>").matcher(table);
        while (row.find()) {
            Matcher v = Pattern.compile("data-v=\"(-?\\d+)\"").matcher(row.group(2));
            List<Long> figures = new ArrayList<>();
            while (v.find()) figures.add(Long.parseLong(v.group(1)));
            rows.put(Long.parseLong(row.group(1)), figures.stream().mapToLong(Long::longValue).toArray());
        }
        return rows;
    }

    private static List<String> headers(String page) {
        Matcher header = Pattern.compile("<tr class=\"sortable\">(.*?)</tr>").matcher(page);
        assertTrue(header.find(), "no sortable header row");
        List<String> titles = new ArrayList<>();
        Matcher th = Pattern.compile("<th[^>]*>([^<]*)</th>").matcher(header.group(1));
        while (th.find()) titles.add(th.group(1));
        return titles;
    }

    private static long[] pick(long[] figures, int... columns) {
        return java.util.Arrays.stream(columns).mapToLong(c -> figures[c]).toArray();
    }

    private static String order(List<ThreadAnalysis.Row> rows, Comparator<ThreadAnalysis.Row> by) {
        return String.join(" ", rows.stream().sorted(by).map(r -> String.valueOf(r.virtualThread)).toList());
    }

    private static int saturation(int rgb) {
        int r = rgb >> 16, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
        return Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b));
    }

    private static int distance(int rgb, int other) {
        return Math.abs((rgb >> 16) - (other >> 16)) + Math.abs(((rgb >> 8) & 0xff) - ((other >> 8) & 0xff))
                + Math.abs((rgb & 0xff) - (other & 0xff));
    }

    private static String chromiumOnThePath() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
                if (Files.isExecutable(Path.of(dir, name))) {
                    return Path.of(dir, name).toString();
                }
            }
        }
        return null;
    }

    /** Runs headless chromium on a URL and returns its standard output. */
    private static String runChromium(String mode, String url) throws Exception {
        return runChromium(WINDOW, mode, url);
    }

    private static String runChromium(String window, String mode, String url) throws Exception {
        Path profile = Files.createTempDirectory("loomgmp-chromium");
        Path out = Files.createTempFile("chromium", ".out");
        Path err = Files.createTempFile("chromium", ".err");
        Process process = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=" + window,
                "--user-data-dir=" + profile, "--no-first-run", "--disable-extensions", mode, url)
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("chromium did not finish in 60 s: " + Files.readString(err));
            }
            assertEquals(0, process.exitValue(), "chromium failed:\n" + Files.readString(err));
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            deleteTree(profile);
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** name="value" pairs of a tag, HTML entities in values decoded. */
    private static Map<String, String> attributes(String tag) {
        Map<String, String> map = new HashMap<>();
        Matcher m = Pattern.compile("([\\w-]+)=\"([^\"]*)\"").matcher(tag);
        while (m.find()) {
            map.put(m.group(1), m.group(2).replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">")
                    .replace("&amp;", "&"));
        }
        return map;
    }

    /** The flat JSON object the page writes into data-selftest, values as text. */
    private static Map<String, String> selftestResult(String json) {
        Map<String, String> result = new HashMap<>();
        selftestObjects(json).forEach((k, v) -> result.put(k, String.valueOf(v)));
        return result;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> selftestObjects(String json) {
        return (Map<String, Object>) MiniJson.parse(json);
    }
}
