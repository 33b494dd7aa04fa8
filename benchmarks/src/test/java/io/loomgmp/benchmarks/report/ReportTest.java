package io.loomgmp.benchmarks.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report generated from a small JMH JSON file: the table's rows, ratios, error bars and verdicts, and the chart. */
class ReportTest {
    private static final String MACHINE = "Test CPU, 2 cores, JDK 25; 2026-01-01, quick run";

    @TempDir
    Path out;

    private static Path fixture() throws URISyntaxException {
        return Path.of(ReportTest.class.getResource("/jmh-fixture.json").toURI());
    }

    @Test
    void tableHasBothSchedulersTheRatioWithItsErrorAndAVerdict() throws Exception {
        Report.write(fixture(), out, MACHINE);
        String markdown = Files.readString(out.resolve(Report.MARKDOWN));
        assertTrue(markdown.contains("Measured on " + MACHINE + "."), markdown);
        assertTrue(markdown.contains("![GMP relative to ForkJoinPool](chart.png)"), markdown);
        List<String> rows = markdown.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| benchmark")).toList();
        assertEquals(List.of(
                // 1000/2000 = 0.5, error 0.5 * hypot(50/1000, 100/2000) = 0.035
                "| PingPong.parkUnpark | time/op | ns/op | 1,000 ± 50 | 2,000 ± 100 | 0.500 ± 0.035 | GMP better |",
                // fewer ops/s is worse: the same ratio, the other verdict
                "| ProducerConsumer.transfer (pairs=4) | throughput | ops/s | 400,000 ± 20,000 | 800,000 ± 40,000"
                        + " | 0.500 ± 0.035 | FJP better |",
                // [27, 33] and [29, 35] overlap
                "| Timers.sleepers (sleepers=10000, sleeps=10) | time/op | ms/op | 30.0 ± 3.0 | 32.0 ± 3.0"
                        + " | 0.938 ± 0.129 | within error |",
                "| Timers.sleepers (sleepers=10000, sleeps=10) | lateness p50 | ms | 0.100 ± 0.010 | 0.200 ± 0.020"
                        + " | 0.500 ± 0.071 | GMP better |",
                "| Timers.sleepers (sleepers=10000, sleeps=10) | lateness p99 | ms | 2.00 ± 0.50 | 40.0 ± 5.0"
                        + " | 0.0500 ± 0.0140 | GMP better |",
                // one iteration each: JMH has no error to give
                "| Skynet.tree (leaves=1000000) | time/op | ms/op | 800 ± n/a | 1,600 ± n/a | 0.500 ± n/a | no error bars |"),
                rows);
    }

    @Test
    void chartIsAPngOfTheExpectedSizeWithABarPerVerdict() throws Exception {
        Report.write(fixture(), out, MACHINE);
        BufferedImage chart = ImageIO.read(out.resolve(Report.CHART).toFile());
        assertEquals(RatioChart.WIDTH, chart.getWidth());
        assertEquals(RatioChart.HEIGHT, chart.getHeight());
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < chart.getHeight(); y++) {
            for (int x = 0; x < chart.getWidth(); x++) {
                colours.add(chart.getRGB(x, y) & 0xFFFFFF);
            }
        }
        assertTrue(colours.size() > 20, "a drawn chart, not a blank image: " + colours.size() + " colours");
        // The fixture's six comparisons: three GMP better (cost 1/2, 1/2 and 1/20), one FJP better
        // (cost 2), two undecided (0.94 within error, 1/2 without error bars). A bar of one
        // doubling is about 60 px high here, and at least 20 px wide.
        int better = pixels(chart, RatioChart.BETTER);
        int worse = pixels(chart, RatioChart.WORSE);
        int undecided = pixels(chart, RatioChart.UNDECIDED);
        assertTrue(worse > 20 * 40, "the FJP-better bar: " + worse + " px");
        assertTrue(better > 3 * worse, "three GMP-better bars, one of them 4.3 doublings long: " + better + " px");
        assertTrue(undecided > worse / 2, "the undecided bars: " + undecided + " px");
    }

    private static int pixels(BufferedImage image, java.awt.Color colour) {
        int count = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                count += (image.getRGB(x, y) & 0xFFFFFF) == (colour.getRGB() & 0xFFFFFF) ? 1 : 0;
            }
        }
        return count;
    }

    @Test
    void ratioTicksAreLabelledWithTheRatio() {
        assertEquals("×1", RatioChart.ratioLabel(0));
        assertEquals("×4", RatioChart.ratioLabel(2));
        assertEquals("×1/8", RatioChart.ratioLabel(-3));
        assertEquals("×1.41", RatioChart.ratioLabel(0.5));
    }

    @Test
    void readmeSectionHasTheMachineTheTableAndTheChartLink() throws Exception {
        String section = Report.readmeSection(fixture(), "benchmarks/results/chart.png", MACHINE);
        assertTrue(section.startsWith("Measured on " + MACHINE + ".\n\n| benchmark |"), section);
        assertTrue(section.contains("| PingPong.parkUnpark | time/op |"), section);
        assertTrue(section.contains("(benchmarks/results/chart.png)\n\n### Hand-offs as multiples of the floor\n"),
                "the chart after the table, then the floor and CPU tables: " + section);
    }

    @Test
    void costRatioReadsTheSameWayForTimesAndThroughput() throws IOException, URISyntaxException {
        List<Comparison> comparisons = JmhJson.read(fixture());
        Comparison time = comparisons.get(0);
        Comparison throughput = comparisons.get(1);
        assertEquals(0.5, time.costRatio(), 1e-9);
        assertEquals(2.0, throughput.costRatio(), 1e-9, "half the throughput costs twice as much");
        assertEquals(2.0 * Math.hypot(0.05, 0.05), throughput.costRatioError(), 1e-9);
    }
}
