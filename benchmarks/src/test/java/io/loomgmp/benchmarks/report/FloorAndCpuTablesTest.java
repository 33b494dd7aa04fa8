package io.loomgmp.benchmarks.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The report's floor and CPU tables, and the forks' means where they disagree, from a small JMH
 * JSON file: both floors, a ping-pong whose FJP forks disagree (1,000 and 3,000 ns), a ring of
 * 1,000 threads, a throughput benchmark with CPU time on GMP only, and timed parks with a count
 * of back-offs.
 */
class FloorAndCpuTablesTest {
    private static final String MACHINE = "Test CPU, 2 cores, JDK 25; 2026-01-01, full run";

    @TempDir
    Path out;

    private static Path fixture() throws URISyntaxException {
        return Path.of(FloorAndCpuTablesTest.class.getResource("/jmh-handoff-fixture.json").toURI());
    }

    private static List<String> rows(String markdown, String header) {
        String table = markdown.substring(markdown.indexOf(header));
        return table.lines().skip(2).takeWhile(line -> line.startsWith("| ")).toList();
    }

    @Test
    void theMainTableShowsTheForksWhereTheyDisagreeAndNoCpuRows() throws Exception {
        Report.write(fixture(), out, MACHINE);
        String markdown = Files.readString(out.resolve(Report.MARKDOWN));
        assertEquals(List.of(
                "| Floor.continuationYield | time/op | ns/op | 100 ± 10 | 100 ± 10 | 1.00 ± 0.14 | within error |",
                "| Floor.platformParkUnpark | time/op | ns/op | 20,000 ± 1,000 | 20,000 ± 1,000 | 1.00 ± 0.07 | within error |",
                // GMP's two forks agree: its mean alone; FJP's do not: each fork's mean after it
                "| PingPong.parkUnpark | time/op | ns/op | 1,000 ± 50 | 2,000 ± 1,500 (forks 1,000 / 3,000)"
                        + " | 0.500 ± 0.376 | within error |",
                "| Ring.trip (depth=1, mode=longLived, threads=1000) | time/op | us/op | 2,000 ± 100 | 1,000 ± 50"
                        + " | 2.00 ± 0.14 | FJP better |",
                "| ProducerConsumer.transfer (pairs=4) | throughput | ops/s | 400,000 ± 20,000 | — | — | one scheduler only |",
                "| TimedPark.round (parkers=1000) | time/op | us/op | 20,000 ± 2,000 | 6,000 ± 600 | 3.33 ± 0.47 | FJP better |",
                // a count of 0 on both: no ratio
                "| TimedPark.round (parkers=1000) | backOffs | # | 0 ± n/a | 0 ± n/a | — | no error bars |"),
                rows(markdown, MarkdownTable.HEADER));
        assertTrue(Files.size(out.resolve(Report.CHART)) > 10_000, "the chart, drawn without the rows that have no ratio");
    }

    @Test
    void handOffsAreDividedByEachSchedulersFloorsPerHandOff() throws Exception {
        Report.write(fixture(), out, MACHINE);
        String markdown = Files.readString(out.resolve(Report.MARKDOWN));
        assertTrue(markdown.contains("## Hand-offs as multiples of the floor\n"), markdown);
        assertEquals(List.of(
                // the park/unpark floor per wake-up: 20,000 / 2 = 10,000 ns
                "| Floor.continuationYield | 1 (a yield and a continue) | 100 ± 10 | 1 (floor) | 0.0100 ± 0.0011"
                        + " | 100 ± 10 | 1 (floor) | 0.0100 ± 0.0011 |",
                "| Floor.platformParkUnpark | 2 (OS wake-ups) | 10,000 ± 500 | 100 ± 11 | 1 (floor)"
                        + " | 10,000 ± 500 | 100 ± 11 | 1 (floor) |",
                // a round trip is 2 hand-offs: 1,000 ns / 2 = 500 ns = 5 × 100 ns = 0.05 × 10,000 ns;
                // 5 ± 5 × hypot(0.05, 0.1) = 5.00 ± 0.56
                "| PingPong.parkUnpark | 2 | 500 ± 25 | 5.00 ± 0.56 | 0.0500 ± 0.0035"
                        + " | 1,000 ± 750 | 10.0 ± 7.6 | 0.100 ± 0.075 |",
                // a trip is 1,000 hops: 2,000 µs / 1,000 = 2,000 ns
                "| Ring.trip (depth=1, mode=longLived, threads=1000) | 1,000 | 2,000 ± 100 | 20.0 ± 2.2 | 0.200 ± 0.014"
                        + " | 1,000 ± 50 | 10.0 ± 1.1 | 0.100 ± 0.007 |",
                // a round is 1,000 timed parks: 20,000 µs / 1,000 = 20,000 ns = 200 × 100 ns = 2 × 10,000 ns
                "| TimedPark.round (parkers=1000) | 1,000 | 20,000 ± 2,000 | 200 ± 28 | 2.00 ± 0.22"
                        + " | 6,000 ± 600 | 60.0 ± 8.5 | 0.600 ± 0.067 |"),
                rows(markdown, "| benchmark | hand-offs/op |"));
        assertTrue(markdown.contains("- `PingPong.parkUnpark`: one round trip: 2 parks and 2 unparks"), markdown);
        assertTrue(markdown.contains("- `Ring.trip`: one trip around the ring"), markdown);
        assertTrue(markdown.contains("- `TimedPark.round`: one round"), markdown);
        assertFalse(markdown.contains("- `YieldStorm.yieldStorm`"), "only the hand-off benchmarks of the run: " + markdown);
    }

    @Test
    void cpuTimeStandsBesideWallTimeForBothSchedulers() throws Exception {
        Report.write(fixture(), out, MACHINE);
        String markdown = Files.readString(out.resolve(Report.MARKDOWN));
        assertEquals(List.of(
                "| Floor.continuationYield | ns/op | 100 ± 10 | 110 ± 11 | 1.10 ± 0.02 | 100 ± 10 | 110 ± 11 | 1.10 ± 0.02"
                        + " | 1.00 ± 0.14 | within error |",
                // GMP: half the wall time on 1.5 cores; FJP: bimodal wall time on 2 cores
                "| PingPong.parkUnpark | ns/op | 1,000 ± 50 | 1,500 ± 75 | 1.50 ± 0.05"
                        + " | 2,000 ± 1,500 (forks 1,000 / 3,000) | 4,000 ± 200 | 2.00 ± 0.01 | 0.375 ± 0.027 | GMP better |",
                // 400,000 ops/s is 2,500 ns/op
                "| ProducerConsumer.transfer (pairs=4) | ns/op | 2,500 ± 125 | 5,000 ± 250 | 2.00 ± 0.02 | — | — | —"
                        + " | — | one scheduler only |"),
                rows(markdown, "| benchmark | unit | GMP time/op | GMP CPU/op |"));
    }

    @Test
    void theReadmeSectionHasTheThreeTables() throws Exception {
        String section = Report.readmeSection(fixture(), "benchmarks/results/chart.png", MACHINE);
        assertTrue(section.contains("| PingPong.parkUnpark | time/op |"), section);
        assertTrue(section.contains("### Hand-offs as multiples of the floor\n\n| benchmark | hand-offs/op |"), section);
        assertTrue(section.contains("### CPU time per operation\n\n| benchmark | unit | GMP time/op |"), section);
    }

    @Test
    void resultsWithoutFloorOrCpuTimeSaySoAndShowNoEmptyTable() throws Exception {
        Path older = Path.of(FloorAndCpuTablesTest.class.getResource("/jmh-fixture.json").toURI());
        Report.write(older, out, MACHINE);
        String markdown = Files.readString(out.resolve(Report.MARKDOWN));
        assertTrue(markdown.contains("These results have no floor: run `FloorBenchmark`"), markdown);
        assertFalse(markdown.contains("| benchmark | hand-offs/op |"), markdown);
        assertFalse(markdown.contains("CPU time per operation"), markdown);
    }
}
