package io.loomgmp.benchmarks.saturation;

import io.loomgmp.benchmarks.report.ReadmeSection;
import io.loomgmp.benchmarks.saturation.Cell.LoadClass;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SaturationReportTest {
    private static final long SECOND_US = 1_000_000;
    private static final Cell CPU = new Cell(Shape.CPU, "vthread", "gmp", List.of(new LoadClass("/cpu?us=1000", 64)), 0, false);
    private static final Cell MIXED = new Cell(Shape.MIXED, "jetty", "gmp",
            List.of(new LoadClass("/cpu?us=10000", 26), new LoadClass("/cpu?us=100", 230)), 0, false);
    private static final Cell OPEN = new Cell(Shape.OPEN, "vthread", "gmp", List.of(new LoadClass("/cpu?us=1000", 64)), 0.5, false);
    private static final Cell PROBE = new Cell(Shape.CPU, "jetty", "fjp", List.of(new LoadClass("/cpu?us=1000", 64)), 0, true);
    private static final SaturationReport.RunInfo INFO = new SaturationReport.RunInfo("a CPU, 2 cores, JDK 25", "quick run",
            "abc123", "`agent.jar` (SHA-256 0123456789ab)", "wrk debian/4.1.0", "2026-11-27", "0.50 at the start",
            "./loomgmp bench --saturation --quick", "2 min 30 s", 611.2);

    /** answers over a 1 s window with the given p99 (ms); p50 half of it, max twice. */
    private static LoadResult load(long answers, long p99Millis) {
        return new LoadResult(answers, SECOND_US, 0, 0, 0, 0, 0, p99Millis * 500, p99Millis * 1_000, p99Millis * 1_500,
                p99Millis * 2_000, -1, p99Millis * 600);
    }

    private static CellResult result(Cell cell, String scheduler, List<LoadResult> classes, long cpuMillis) {
        return new CellResult(cell.on(scheduler), classes, workOfTheAnswers(cell, classes), cpuMillis * 1_000_000, 1_000_000_000L, 0,
                cell.openLoop() ? 900 : 0, 12, 611.2, 0.5);
    }

    /** As if each class had done the work of its answers in the window, no more: {@code /cpu?us=N} is N µs of steps each. */
    private static List<Long> workOfTheAnswers(Cell cell, List<LoadResult> classes) {
        List<Long> steps = new java.util.ArrayList<>();
        for (int i = 0; i < classes.size(); i++) {
            long micros = Endpoints.micros(cell.classes().get(i).target().substring("/cpu?".length()), "us");
            steps.add(Math.round(classes.get(i).requests() * micros * 611.2));
        }
        return steps;
    }

    private static List<CellResult> results() {
        return List.of(
                result(CPU, "gmp", List.of(load(2_000, 40)), 2_000),
                result(CPU, "fjp", List.of(load(1_000, 80)), 1_500),
                result(PROBE, "fjp", List.of(load(1_800, 60)), 1_900),
                result(MIXED, "fjp", List.of(load(50, 900), load(0, 0)), 1_800),
                result(MIXED, "gmp", List.of(load(40, 300), load(5_000, 12)), 1_950),
                result(OPEN, "gmp", List.of(load(900, 5)), 1_000),
                result(OPEN, "fjp", List.of(load(900, 10)), 1_000));
    }

    @Test
    void cpuPerRequestIsTheServersCpuOverTheAnswersOfEveryClass() {
        CellResult cpu = results().get(0);
        assertEquals(1_000, cpu.cpuPerRequestMicros(), 1e-9, "2 s of CPU over 2,000 answers");
        assertEquals(2.0, cpu.cores(), 1e-9, "2 s of CPU in 1 s");
        CellResult mixed = results().get(4);
        assertEquals(5_040, mixed.requests());
        assertEquals(1_950_000.0 / 5_040, mixed.cpuPerRequestMicros(), 1e-9);
        assertEquals(5_040, mixed.requestsPerSecond(), 1e-9);
        CellResult none = result(CPU, "fjp", List.of(load(0, 0)), 1_000);
        assertTrue(Double.isNaN(none.cpuPerRequestMicros()), "no answer, no CPU per answer");
    }

    @Test
    void theWorkOfEachClassIsItsStepsAtTheCalibrationOverTheWindow() {
        CellResult mixed = results().get(4); // 40 answers of 10 ms and 5,000 of 0.1 ms in 1 s
        assertEquals(0.4, mixed.workCores(0), 1e-6);
        assertEquals(0.5, mixed.workCores(1), 1e-6);
        assertEquals(0.9, mixed.workCores(), 1e-6);
        assertEquals(0.4 / 0.9, mixed.workShare(0), 1e-6);
        // a hog that runs on through the window's end counts for what it did in it, not when it ends
        CellResult hogs = new CellResult(MIXED, List.of(load(0, 0), load(0, 0)), List.of(611_200_000L, 0L), 1_000_000_000L,
                1_000_000_000L, 0, 0, 12, 611.2, 0.5);
        assertEquals(1.0, hogs.workCores(0), 1e-9, "a second of steps in a 1 s window, with no answer");
        assertEquals(1.0, hogs.workShare(0), 1e-9);
        CellResult idle = new CellResult(CPU, List.of(load(0, 0)), List.of(0L), 0, 1_000_000_000L, 0, 0, 12, 611.2, 0.5);
        assertTrue(Double.isNaN(idle.workShare(0)), "no work done, no share of it");
        assertThrows(IllegalArgumentException.class, () -> new CellResult(MIXED, List.of(load(0, 0), load(0, 0)), List.of(1L),
                0, 1, 0, 0, 0, 611.2, 0.5), "a count of work per class");
        assertThrows(IllegalArgumentException.class, () -> new Cell(Shape.MIXED, "jetty", "gmp",
                List.of(new LoadClass("/cpu?us=100", 26), new LoadClass("/cpu?us=100", 230)), 0, false),
                "the server counts work by target: two classes of one target are refused");
    }

    @Test
    void aTablePerShapeWithBothSchedulersAndTheirRatios() {
        String md = SaturationReport.markdown(results(), INFO, "results.csv");
        assertTrue(md.startsWith("# Saturation: GMP against ForkJoinPool past capacity\n\nMeasured on a CPU, 2 cores, JDK 25;"), md);
        assertTrue(md.contains("Command: `./loomgmp bench --saturation --quick`"), md);
        assertTrue(md.contains("[results.csv](results.csv)"), md);
        int cpu = md.indexOf("## cpu: ");
        int mixed = md.indexOf("## mixed: ");
        int open = md.indexOf("## open: ");
        assertTrue(cpu > 0 && cpu < mixed && mixed < open, "in the order the shapes ran:\n" + md);
        assertFalse(md.contains("## handoff"), "no table for a shape that did not run");
        // cpu: GMP 2,000/s at 1,000 µs/req, FJP 1,000/s at 1,500 µs/req
        assertTrue(md.contains("| vthread | 64 conns | `/cpu?us=1000` | 2,000 (2,000) | 1,000 (1,000) | 2.00 | 1,000 (2.00)"
                + " | 1,500 (1.50) | 0.667 | 2.00 | 1.00 | 20.0 / 40.0 / 60.0 / 80.0 | 40.0 / 80.0 / 120 / 160 | 0.500 | 0 / 0 | 0 / 0 |"), md);
        // mixed: per class with its share of the work, then every class together with the cell's CPU and work
        assertTrue(md.contains("| jetty | 230 conns | `/cpu?us=100` | 5,000 (5,000) | 0 (0) | ∞ | (below) | (below) |  | "
                + "0.500 (56 %) | 0 (0 %) | 6.00 / 12.0 / 18.0 / 24.0 | none | — | 0 / 0 | 0 / 0 |"), md);
        assertTrue(md.contains("| jetty | 26 + 230 conns | all classes | 5,040 | 50.0 | 101 | 387 (1.95) | 36,000 (1.80) | 0.0107 |"
                + " 0.900 | 0.500 |"), md);
        // open: the rate in the load column
        assertTrue(md.contains("| vthread | 50 % = 900/s, 64 conns | `/cpu?us=1000` | 900 (900) | 900 (900) | 1.00 |"), md);
        assertFalse(md.contains("| jetty | 64 conns"), "the capacity probe is in the CSV only:\n" + md);
    }

    @Test
    void theDocSectionHasTheTablesAndLinksToTheFiles() {
        String section = SaturationReport.section(results(), INFO, "../benchmarks/results/saturation.md",
                "../benchmarks/results/saturation.csv");
        assertTrue(section.startsWith("Measured on a CPU"), section);
        assertTrue(section.contains("[../benchmarks/results/saturation.md](../benchmarks/results/saturation.md)"), section);
        assertTrue(section.contains("\n#### cpu: "), section);
        assertFalse(section.contains("# Saturation"), "no title of its own: the page has its headings");
    }

    @Test
    void aWindowThatBeganBeforeTheWarmUpsRequestsEndedIsNoted() {
        CellResult drained = results().get(0);
        CellResult late = new CellResult(CPU.on("fjp"), List.of(load(1_000, 80)), List.of(611_200_000L), 1_500_000_000L, 1_000_000_000L, 0, 0, -1,
                611.2, 0.5);
        String md = SaturationReport.tables(List.of(drained, late), "##");
        assertTrue(md.contains("Not drained: vthread 64 conns FJP: requests the warm-up left were still running when the"
                + " window began (60 s after it)."), md);
        assertFalse(SaturationReport.tables(List.of(drained), "##").contains("Not drained"));
    }

    /** bench --saturation --publish rewrites this section: the page must have it, once, and keep the rest. */
    @Test
    void thePerformancePageHasTheSectionThatPublishingRewrites() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "performance.md"));
        String section = SaturationReport.section(results(), INFO, "../benchmarks/results/saturation.md",
                "../benchmarks/results/saturation.csv");
        String published = ReadmeSection.replace(page, SaturationReport.BEGIN, SaturationReport.END, section);
        assertTrue(published.contains(SaturationReport.BEGIN + "\n" + section), "between the markers");
        assertEquals(page.substring(0, page.indexOf(SaturationReport.BEGIN)),
                published.substring(0, published.indexOf(SaturationReport.BEGIN)), "the page before the section as it was");
        assertTrue(published.contains(ReadmeSection.BEGIN) && published.contains(ReadmeSection.END), "the JMH section kept");
    }

    @Test
    void theCsvHasARowPerCellAndClassProbesIncluded() {
        String csv = SaturationReport.csv(results());
        List<String> lines = csv.lines().toList();
        assertEquals(String.join(",", SaturationReport.CSV_HEADER), lines.get(0));
        assertEquals(1 + 1 + 1 + 1 + 2 + 2 + 1 + 1, lines.size());
        assertTrue(lines.get(1).startsWith("cpu,vthread,gmp,64 conns,/cpu?us=1000,64,0.000,1.000,2000,2000.000,0,0,0,0,0,"
                + "20000,40000,60000,80000,24000,32000.000,-1,2000000.000,2.000,2.000,2000000000,1000000000,2000,1000.000,2.000,0,12,611.200,0.500"),
                lines.get(1));
        assertTrue(lines.get(3).startsWith("capacity,jetty,fjp,"), lines.get(3));
        assertTrue(lines.get(8).startsWith("open,vthread,gmp,\"50 % of capacity, 64 conns\",/cpu?us=1000,64,900.000,"), lines.get(8));
        for (String line : lines) {
            assertEquals(SaturationReport.CSV_HEADER.size(), fields(line), line);
        }
    }

    /** Fields of a CSV line whose quoted fields hold no quotes. */
    private static int fields(String line) {
        int fields = 1;
        boolean quoted = false;
        for (char c : line.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                fields++;
            }
        }
        return fields;
    }

    @Test
    void numbersHaveThreeSignificantDigits() {
        assertEquals("1,612", SaturationReport.number(1_612.4));
        assertEquals("100", SaturationReport.number(99.96));
        assertEquals("13.4", SaturationReport.number(13.43));
        assertEquals("0.512", SaturationReport.number(0.5124));
        assertEquals("0.00130", SaturationReport.number(0.0013));
        assertEquals("0", SaturationReport.number(0));
        assertEquals("—", SaturationReport.number(Double.NaN));
        assertEquals("2.00", SaturationReport.ratio(Optional.of(2.0), Optional.of(1.0)));
        assertEquals("—", SaturationReport.ratio(Optional.empty(), Optional.of(1.0)));
        assertEquals("∞", SaturationReport.ratio(Optional.of(3.0), Optional.of(0.0)));
        assertEquals("—", SaturationReport.ratio(Optional.of(0.0), Optional.of(0.0)));
        assertEquals("a", SaturationReport.field("a"));
        assertEquals("\"a, \"\"b\"\"\"", SaturationReport.field("a, \"b\""));
    }
}
