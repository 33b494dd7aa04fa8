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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * trace.html opened for real in headless Chromium: the page's own account of what it drew (the
 * {@code data-*} attributes on its body, read with {@code --dump-dom}), its hover, zoom and pan
 * handlers driven by synthetic events ({@code #selftest}), and a screenshot whose pixels show each
 * lane's band painted with more than its background.
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
        String dom = runChromium("--dump-dom", TraceFixture.HTML.toUri() + "#selftest");
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
        Path profile = Files.createTempDirectory("loomgmp-chromium");
        Path out = Files.createTempFile("chromium", ".out");
        Path err = Files.createTempFile("chromium", ".err");
        Process process = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=" + WINDOW,
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
    @SuppressWarnings("unchecked")
    private static Map<String, String> selftestResult(String json) {
        Map<String, String> result = new HashMap<>();
        ((Map<String, Object>) MiniJson.parse(json)).forEach((k, v) -> result.put(k, String.valueOf(v)));
        return result;
    }
}
