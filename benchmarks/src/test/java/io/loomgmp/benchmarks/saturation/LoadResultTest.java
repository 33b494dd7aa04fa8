package io.loomgmp.benchmarks.saturation;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoadResultTest {
    /** What wrk printed in a smoke run: its own summary, then report.lua's line. */
    private static final String WRK_OUTPUT = """
            Running 3s test @ http://127.0.0.1:41234/cpu?us=1000
              1 threads and 64 connections
              Thread Stats   Avg      Stdev     Max   +/- Stdev
                Latency    38.21ms   12.02ms 112.40ms   71.32%
                Req/Sec     1.66k   120.11     1.80k    66.67%
              4984 requests in 3.00s, 423.49KB read
            Requests/sec:   1659.75
            Transfer/sec:    141.02KB
            SATURATION requests=4984 duration_us=3002861 connect_errors=0 read_errors=2 write_errors=1 status_errors=3 \
            timeouts=4 p50_us=37119 p99_us=80511 p999_us=104447 max_us=112401 mean_us=38210
            """;

    @Test
    void readsWrksLineAmongItsSummary() {
        LoadResult result = LoadResult.parseOutput(WRK_OUTPUT);
        assertEquals(4984, result.requests());
        assertEquals(3_002_861, result.durationMicros());
        assertEquals(2, result.readErrors());
        assertEquals(1, result.writeErrors());
        assertEquals(3, result.statusErrors());
        assertEquals(4, result.timeouts());
        assertEquals(0 + 2 + 1 + 3, result.errors(), "every error but the timeouts");
        assertEquals(37_119, result.p50Micros());
        assertEquals(80_511, result.p99Micros());
        assertEquals(104_447, result.p999Micros());
        assertEquals(112_401, result.maxMicros());
        assertEquals(38_210, result.meanMicros());
        assertEquals(-1, result.scheduled(), "wrk has no schedule");
        assertEquals(4984 / 3.002861, result.requestsPerSecond(), 1e-6);
    }

    @Test
    void takesTheLastLineAndNumbersLuaPrintsAsDecimals() {
        String twice = "SATURATION requests=1 duration_us=1 connect_errors=0 read_errors=0 write_errors=0 status_errors=0"
                + " timeouts=0 p50_us=1 p99_us=1 p999_us=1 max_us=1\n"
                + "SATURATION requests=7.0 duration_us=1000000 connect_errors=0 read_errors=0 write_errors=0"
                + " status_errors=0 timeouts=0 p50_us=10.4 p99_us=20.6 p999_us=30 max_us=40\n";
        LoadResult result = LoadResult.parseOutput(twice);
        assertEquals(7, result.requests());
        assertEquals(10, result.p50Micros());
        assertEquals(21, result.p99Micros());
        assertEquals(-1, result.meanMicros(), "no mean_us: none given");
    }

    @Test
    void refusesWhatIsNotALine() {
        String good = "SATURATION requests=1 duration_us=1 connect_errors=0 read_errors=0 write_errors=0 status_errors=0"
                + " timeouts=0 p50_us=1 p99_us=1 p999_us=1 max_us=1";
        assertEquals(1, LoadResult.parse(good).requests());
        assertThrows(IllegalArgumentException.class, () -> LoadResult.parseOutput("unable to connect to 127.0.0.1:1"));
        assertThrows(IllegalArgumentException.class, () -> LoadResult.parse(good.replace(" max_us=1", "")), "a key missing");
        assertThrows(IllegalArgumentException.class, () -> LoadResult.parse(good.replace("requests=1", "requests=x")));
        assertThrows(IllegalArgumentException.class, () -> LoadResult.parse(good.replace("requests=1", "requests=-1.5")));
        assertThrows(IllegalArgumentException.class, () -> LoadResult.parse(good.replace("requests=1", "requests")));
        assertThrows(IllegalArgumentException.class, () -> LoadResult.parse(good.replace("SATURATION", "OTHER")));
    }

    @Test
    void itsLineReadsBackAsItself() {
        LoadResult result = new LoadResult(100, 2_000_000, 1, 2, 3, 4, 5, 600, 700, 800, 900, 120, 650);
        assertEquals(result, LoadResult.parse(result.line()));
        LoadResult wrkLike = new LoadResult(100, 2_000_000, 0, 0, 0, 0, 0, 600, 700, 800, 900, -1, -1);
        assertEquals(wrkLike, LoadResult.parse(wrkLike.line()));
        assertTrue(!wrkLike.line().contains("scheduled") && !wrkLike.line().contains("mean_us"), wrkLike.line());
    }

    @Test
    void percentilesOfRecordedLatencies() {
        Histogram latencies = new Histogram(3);
        for (int micros = 1; micros <= 10_000; micros++) {
            latencies.recordValue(micros);
        }
        LoadResult result = LoadResult.of(latencies, 1_000_000, 0, 0, 0, 0, 2, 10_005);
        assertEquals(10_000, result.requests());
        assertEquals(5_000, result.p50Micros(), 5, "HdrHistogram's 3 significant digits");
        assertEquals(9_900, result.p99Micros(), 10);
        assertEquals(9_990, result.p999Micros(), 10);
        assertEquals(10_000, result.maxMicros(), 10);
        assertTrue(result.p50Micros() <= result.p99Micros() && result.p99Micros() <= result.p999Micros()
                && result.p999Micros() <= result.maxMicros());
        assertEquals(5_000, result.meanMicros(), 5);
        assertEquals(10_005, result.scheduled());
        assertEquals(2, result.timeouts());

        LoadResult none = LoadResult.of(new Histogram(3), 1_000_000, 0, 0, 0, 0, 7, 7);
        assertEquals(new LoadResult(0, 1_000_000, 0, 0, 0, 0, 7, 0, 0, 0, 0, 7, 0), none, "no answer: zeros, not garbage");
        assertEquals(0, none.requestsPerSecond());
    }

    @Test
    void littlesLawGivesAClosedLoopsMean() {
        // 64 connections, each always waiting, 10 s, 16,000 answers: each took 40 ms on average.
        LoadResult result = new LoadResult(16_000, 10_000_000, 0, 0, 0, 0, 0, 1, 1, 1, 1, -1, 52_000);
        assertEquals(40_000, result.littlesLawMeanMicros(64), 1e-9);
        assertTrue(Double.isNaN(new LoadResult(0, 10_000_000, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0).littlesLawMeanMicros(64)));
    }
}
