package io.loomgmp.benchmarks.saturation;

import io.loomgmp.benchmarks.saturation.Cell.LoadClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SaturationRunnerTest {
    private static final Cell CPU = new Cell(Shape.CPU, "vthread", "gmp", List.of(new LoadClass("/cpu?us=1000", 64)), 0, false);
    private static final SaturationReport.RunInfo INFO = new SaturationReport.RunInfo("a CPU", "full run", "abc", "`a.jar`",
            "wrk", "2026-11-27", "0.5", "./loomgmp bench --saturation --publish", "12 min", 611);

    @TempDir
    Path tmp;

    private static List<CellResult> results() {
        LoadResult load = new LoadResult(1_000, 1_000_000, 0, 0, 0, 0, 0, 1_000, 2_000, 3_000, 4_000, -1, 1_500);
        return List.of(new CellResult(CPU, List.of(load), List.of(611_000_000L), 1_000_000_000L, 1_000_000_000L, 1_000, 0, 5, 611, 0.5),
                new CellResult(CPU.on("fjp"), List.of(load), List.of(611_000_000L), 1_200_000_000L, 1_000_000_000L, 1_000, 0, 5, 611, 0.5));
    }

    /** What --publish does at the end of a run, on a copy of the checkout's layout. */
    @Test
    void publishingWritesTheResultsAndTheDocsSectionWithLinksBetweenThem() throws Exception {
        Path doc = Files.createDirectories(tmp.resolve("docs")).resolve("performance.md");
        Files.copy(Path.of("..", "docs", "performance.md"), doc);
        Path out = tmp.resolve("benchmarks/results/saturation.md");
        Path csv = tmp.resolve("benchmarks/results/saturation.csv");
        assertTrue(SaturationRunner.write(results(), INFO, out, csv, Optional.of(doc), new PrintStream(PrintStream.nullOutputStream())));
        assertTrue(Files.readString(out).contains("| vthread | 64 conns | `/cpu?us=1000` |"));
        assertEquals(3, Files.readAllLines(csv).size(), "the header and two cells");
        String page = Files.readString(doc);
        assertTrue(page.contains(SaturationReport.BEGIN + "\nMeasured on a CPU;"), "the section was rewritten");
        assertTrue(page.contains("[../benchmarks/results/saturation.md](../benchmarks/results/saturation.md)"), page);
        assertTrue(page.contains("[../benchmarks/results/saturation.csv](../benchmarks/results/saturation.csv)"), page);
        assertFalse(page.contains("No published run yet"), "the placeholder replaced");
    }

    @Test
    void aPageWithoutTheSectionIsLeftAsItWasButTheReportIsWritten() throws Exception {
        Path doc = Files.writeString(tmp.resolve("other.md"), "# no section here\n");
        Path out = tmp.resolve("r.md");
        assertFalse(SaturationRunner.write(results(), INFO, out, tmp.resolve("r.csv"), Optional.of(doc),
                new PrintStream(PrintStream.nullOutputStream())));
        assertEquals("# no section here\n", Files.readString(doc));
        assertTrue(Files.exists(out) && Files.exists(tmp.resolve("r.csv")));
    }

    @Test
    void progressLinesNameTheCellItsFiguresTheTimeAndTheLoad() {
        String line = SaturationRunner.progressLine(3, 18, results().get(0), Duration.ofSeconds(75), 2.314);
        assertEquals("[ 3/18] cpu vthread 64 conns gmp: 1,000 req/s, p99 2.00 ms, to/err 0/0; CPU 1,000 µs/req (1.00 cores)"
                + "   (1:15, load 2.31)", line);
        CellResult mixed = new CellResult(new Cell(Shape.MIXED, "jetty", "fjp",
                List.of(new LoadClass("/cpu?us=10000", 26), new LoadClass("/cpu?us=100", 230)), 0, false),
                List.of(new LoadResult(0, 1_000_000, 0, 0, 0, 0, 3, 0, 0, 0, 0, -1, 0), results().get(0).classes().get(0)),
                List.of(611_000_000L, 611_000_000L), 2_000_000_000L, 1_000_000_000L, 1_000, 0, 5, 611, 0.5);
        assertTrue(SaturationRunner.progressLine(4, 18, mixed, Duration.ofSeconds(5), 1).contains(
                "/cpu?us=10000 0 req/s, p99 none, to/err 3/0, work 1.00 cores (50 %); /cpu?us=100 1,000 req/s"), "per class");
    }
}
