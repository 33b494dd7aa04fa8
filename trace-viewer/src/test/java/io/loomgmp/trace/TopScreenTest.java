package io.loomgmp.trace;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the console's screen shows for fixed figures: whole frames, line by line. */
class TopScreenTest {
    private static final LocalTime CLOCK = LocalTime.of(14, 3, 7);
    private static final SchedulerReading.Latency LATENCY =
            new SchedulerReading.Latency(64, 1_234, 12_000, 3_100_000, 9_800_000, 40_400.0);

    /** Two Ps: P0 runs cpu-0 for 4.2 ms with a task queued and one in runnext, P1 between tasks. */
    static SchedulerReading reading(long readAtNanos, long tasksRun, long p0Tasks, long p1Tasks,
                                    SchedulerReading.Latency latency) {
        return new SchedulerReading(readAtNanos, 192_013, "gmp", 2, 0, 256, false, 3, 2, 0, 1, 0, 0, 6,
                tasksRun, 1_234, 100, 20, 5_678, 0, 40, 9, 0,
                "SCHED 192013ms: gomaxprocs=2 idleprocs=0 threads=3 spinningthreads=0 idlethreads=1 runqueue=0 [2 0]",
                List.of(new SchedulerReading.ProcessorRow(0, "running", 1, true, p0Tasks, 3, "VT 41 cpu-0", 4_200_000),
                        new SchedulerReading.ProcessorRow(1, "scheduling", 0, false, p1Tasks, 3, null, -1)),
                latency);
    }

    private static TopScreen.View view(SchedulerReading reading, Rates rates, LiveTrace.Status trace, String keys,
                                       int width, int height) {
        return new TopScreen.View(41234, Duration.ofSeconds(1), CLOCK, reading, rates, trace, Map.of(41L, "cpu-0"),
                null, keys, width, height);
    }

    @Test
    void aFrameShowsTheFiguresThePsTheRatesAndTheLatency() {
        SchedulerReading before = reading(1_000_000_000L, 10_000, 6_000, 4_000, LATENCY);
        SchedulerReading after = reading(3_000_000_000L, 14_020, 8_010, 6_010, LATENCY);
        List<String> frame = TopScreen.render(view(after, Rates.between(before, after), null, "q quit  t trace 5s", 100, 40));
        assertEquals(List.of(
                "loomgmp top  pid 41234  scheduler gmp  up 3m12s  every 1s                                   14:03:07",
                "SCHED 192013ms: gomaxprocs=2 idleprocs=0 threads=3 spinningthreads=0 idlethreads=1 runqueue=0 [2 0]",
                "Ps        2: 2 busy, 0 idle   queued: 0 global, 2 local   timers: 6 waiting",
                "Carriers  3 of 256: 2 running, 0 spinning, 1 idle, 0 blocked",
                "Rates/s   tasks 2,010  steals 0  global 0  preempts 0  hand-offs 0  parks 0",
                "Latency   p50 12us  p99 3.1ms  max 9.8ms  mean 40us  (1,234 since start, about 1 task in 64 timed)",
                "Totals    tasks 14,020  steals 1,234  preempts 5,678  hand-offs 0  timers fired 9  failures 0",
                "",
                "  P  STATE        QUEUE  NEXT  TIMERS   TASKS/S       FOR  RUNNING",
                "  0  running          1  yes        3     1,005     4.2ms  VT 41 cpu-0",
                "  1  scheduling       0  -          3     1,005",
                "",
                "q quit  t trace 5s"), trimmed(frame));
    }

    @Test
    void theFirstFrameHasNoRatesYet() {
        List<String> frame = TopScreen.render(view(reading(0, 5, 3, 2, LATENCY), null, null, null, 0, 0));
        assertEquals("Rates/s   (from the next refresh on)", frame.get(4));
        assertEquals("  0  running          1  yes        3         -     4.2ms  VT 41 cpu-0", frame.get(9));
        assertEquals("loomgmp top  pid 41234  scheduler gmp  up 3m12s  every 1s  14:03:07", frame.getFirst(),
                "no width: the clock follows the title");
        assertEquals(11, frame.size(), "no keys line when the console takes no keys: " + frame);
    }

    @Test
    void theLatencyRowSaysWhyItHasNoFigures() {
        assertEquals("Latency   n/a (this scheduler's MXBean has no latency figures)",
                TopScreen.render(view(reading(0, 5, 3, 2, null), null, null, null, 0, 0)).get(5));
        assertEquals("Latency   not sampled (sampling is off in this scheduler)", TopScreen.render(view(
                reading(0, 5, 3, 2, new SchedulerReading.Latency(0, 0, 0, 0, 0, 0)), null, null, null, 0, 0)).get(5));
        assertEquals("Latency   no task sampled yet (every task timed)", TopScreen.render(view(
                reading(0, 5, 3, 2, new SchedulerReading.Latency(1, 0, 0, 0, 0, 0)), null, null, null, 0, 0)).get(5));
    }

    @Test
    void aTaskSysmonHasNotSeenIsNewAndOneWithoutSysmonIsUnknown() {
        SchedulerReading r = reading(0, 5, 3, 2, null);
        List<SchedulerReading.ProcessorRow> rows = List.of(
                new SchedulerReading.ProcessorRow(0, "running", 0, false, 3, 0, "task com.example.Job", 0),
                new SchedulerReading.ProcessorRow(1, "running", 0, false, 2, 0, "VT 7", -1));
        List<String> frame = TopScreen.render(view(withRows(r, rows), null, null, null, 0, 0));
        assertEquals("  0  running          0  -          0         -       new  task com.example.Job", frame.get(9));
        assertEquals("  1  running          0  -          0         -         ?  VT 7", frame.get(10));
    }

    @Test
    void aShortTerminalCutsThePTableAndANarrowOneCutsTheLines() {
        List<SchedulerReading.ProcessorRow> rows = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            rows.add(new SchedulerReading.ProcessorRow(i, "idle", 0, false, 0, 0, null, -1));
        }
        SchedulerReading many = withRows(reading(0, 5, 3, 2, null), rows);
        List<String> frame = TopScreen.render(view(many, null, null, "q quit  t trace 5s", 60, 16));
        assertEquals(16, frame.size(), String.join("\n", frame));
        assertEquals("  ... 12 more Ps (a taller terminal shows them)", frame.get(13).stripTrailing());
        assertEquals("q quit  t trace 5s", frame.getLast());
        for (String line : frame) {
            assertTrue(line.length() <= 60, line);
        }
        assertEquals(many.schedtraceLine().substring(0, 60), frame.get(1));
    }

    @Test
    void aTraceShowsItsTimeLeftThenTheThreadsThatRanAndWaitedLongest() {
        SchedulerReading r = reading(0, 5, 3, 2, null);
        List<String> running = TopScreen.render(view(r, null,
                new LiveTrace.Running(Duration.ofSeconds(5), 2_300_000_000L), null, 0, 0));
        assertEquals("Trace     streaming loom-gmp's tracing events for 5s: 3s left", running.getLast());

        LiveTrace.Result result = new LiveTrace.Result(5_000_000_000L, 10_752, 10, 3, 0,
                List.of(new LiveTrace.Row(41, null, 4_730_000_000L, 1_971, 113_000_000, 222_000_000, 1_970),
                        new LiveTrace.Row(30, "sleeper-3", 28_000_000, 1_045, 120_000_000, 144_000_000, 1_044)),
                List.of(new LiveTrace.Row(27, null, 20_000_000, 839, 144_000_000, 249_000_000, 839)));
        List<String> done = TopScreen.render(view(r, null, new LiveTrace.Done(result, LocalTime.of(14, 2, 59)),
                null, 0, 0));
        assertEquals(List.of(
                "Trace     5.00s ended 14:02:59: 10,752 runs of 10 virtual threads, 3 runs of other tasks",
                "  RAN LONGEST                RUNNING     RUNS",
                "  VT 41 cpu-0                  4.73s    1,971",
                "  VT 30 sleeper-3               28ms    1,045",
                "  WAITED LONGEST             LONGEST   WAITING    WAITS",
                "  VT 27                        144ms     249ms      839"),
                done.subList(done.size() - 6, done.size()), "names from the events, else from the P rows");

        List<String> failed = TopScreen.render(view(r, null, new LiveTrace.Failed("no trace: the JVM has no JFR"),
                null, 0, 0));
        assertEquals("Trace     no trace: the JVM has no JFR", failed.getLast());
    }

    @Test
    void durationsTakeTwoOrThreeFigures() {
        assertEquals("850ns", TopScreen.duration(850));
        assertEquals("4.2us", TopScreen.duration(4_200));
        assertEquals("37us", TopScreen.duration(37_400));
        assertEquals("3.1ms", TopScreen.duration(3_100_000));
        assertEquals("12ms", TopScreen.duration(12_400_000));
        assertEquals("2.50s", TopScreen.duration(2_500_000_000L));
        assertEquals("12.3s", TopScreen.duration(12_340_000_000L));
        assertEquals("3m05s", TopScreen.duration(185_000_000_000L));
        assertEquals("2h10m", TopScreen.duration(7_800_000_000_000L));
        assertEquals("42s", TopScreen.uptime(42_900));
        assertEquals("5h07m", TopScreen.uptime(18_420_000));
        assertEquals("2d03h", TopScreen.uptime(183_600_000));
        assertEquals("500ms", TopScreen.interval(Duration.ofMillis(500)));
        assertEquals("0.5", TopScreen.rate(0.5));
        assertEquals("0", TopScreen.rate(0));
        assertEquals("12,346", TopScreen.rate(12_345.6));
    }

    private static SchedulerReading withRows(SchedulerReading r, List<SchedulerReading.ProcessorRow> rows) {
        return new SchedulerReading(r.readAtNanos(), r.uptimeMillis(), r.name(), rows.size(), r.idleProcs(),
                r.maxCarriers(), r.closed(), r.carriers(), r.runningCarriers(), r.spinningCarriers(), r.idleCarriers(),
                r.blockedCarriers(), r.globalQueueLength(), r.pendingTimers(), r.tasksRun(), r.steals(),
                r.globalGrabs(), r.fairnessTickGrabs(), r.preemptRequests(), r.handoffs(), r.parks(), r.timersFired(),
                r.failures(), r.schedtraceLine(), rows, r.latency());
    }

    /** The lines without the padding after their last figure (the P rows pad an empty RUNNING column). */
    private static List<String> trimmed(List<String> frame) {
        return frame.stream().map(String::stripTrailing).toList();
    }
}
