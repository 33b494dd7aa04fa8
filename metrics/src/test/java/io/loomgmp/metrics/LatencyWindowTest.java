package io.loomgmp.metrics;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.LatencyTotals;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The 2-minute window of the percentile gauges, on a clock the test moves. */
class LatencyWindowTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void theWindowIsEverythingForTheFirstTwoMinutesThenTheLastEightyToOneHundredTwentySeconds() throws Exception {
        AtomicLong clock = new AtomicLong();
        LatencyWindow recent = new LatencyWindow(clock::get);
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("recent").latencySample(1).build()) {
            // One task timed at each of these seconds; the window at each read counts them.
            assertEquals(1, window(recent, s, clock, 0), "since the start");
            assertEquals(2, window(recent, s, clock, 40), "kept the first snapshot, still since the start");
            assertEquals(3, window(recent, s, clock, 80));
            assertEquals(2, window(recent, s, clock, 120), "three kept (at 40, 80, 120): from the one at 40 (80, 120)");
            assertEquals(3, window(recent, s, clock, 130), "tasks of 80, 120 and 130");
            assertEquals(3, window(recent, s, clock, 160), "kept at 160: from the one at 80 (120, 130, 160)");
        }
    }

    /** Runs one timed task, moves the clock to {@code second} and reads the window's sample count. */
    private static long window(LatencyWindow recent, GmpScheduler s, AtomicLong clock, long second)
            throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        s.execute(ran::countDown);
        assertTrue(ran.await(30, TimeUnit.SECONDS));
        LatencyTotals now = awaitCount(s, s.snapshot().tasksRun());
        clock.set(second * SECOND);
        return recent.of(now).all().count();
    }

    /** The snapshot's latency once it has timed {@code tasks} tasks (each is timed as it starts). */
    private static LatencyTotals awaitCount(GmpScheduler s, long tasks) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        LatencyTotals latency;
        while ((latency = s.snapshot().latency()).all().count() < tasks && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        return latency;
    }
}
