package io.loomgmp.soak;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verdict fails a check when its figures say so, and says why. */
class SummaryTest {
    private static final long MIB = 1 << 20;

    private final Ledger ledger = new Ledger();
    private final Faults faults = new Faults();
    private final SchedulerSnapshot rest;
    private final SchedulerSnapshot closed;

    SummaryTest() {
        GmpScheduler scheduler = GmpScheduler.builder().procs(2).name("summary-test").build();
        rest = scheduler.snapshot();
        scheduler.close();
        closed = scheduler.snapshot();
    }

    private Summary summary(Soak.Resting baseline, Soak.Resting end, boolean drained, Duration longestStall) throws Exception {
        return new Summary(SoakOptions.parse("--duration", "60s", "--seed", "7"), 2, ledger, faults,
                EnumSet.noneOf(io.loomgmp.dispatcher.SchedulerFailure.Site.class), rest, baseline, end, drained,
                new Soak.Closing(true, true, closed, List.of(), 2), Duration.ofSeconds(70), longestStall, "soak");
    }

    private Soak.Resting resting(long heap) {
        return new Soak.Resting(rest, 0, 0, heap, true, Duration.ofMillis(50));
    }

    private Summary.Check check(Summary summary, String prefix) {
        return summary.checks().stream().filter(c -> c.name().startsWith(prefix)).findFirst().orElseThrow();
    }

    @Test
    void aLostTaskFailsTheExactlyOnceCheck() throws Exception {
        new Once(ledger, Ledger.Kind.TASK) {
            @Override
            void body() {
            }
        }; // made, never run
        Summary summary = summary(resting(10 * MIB), resting(10 * MIB), false, Duration.ofSeconds(1));
        Summary.Check tasks = check(summary, "every task ran exactly once");
        assertFalse(tasks.ok());
        assertTrue(tasks.figures().contains("1 lost"), tasks.figures());
        assertFalse(summary.passed());
    }

    @Test
    void aFailureInjectedButNotReportedFailsItsCheck() throws Exception {
        Summary summary = summary(resting(10 * MIB), resting(10 * MIB), true, Duration.ofSeconds(1));
        assertTrue(check(summary, "every injected carrier failure").ok());
        faults.loopFaults.incrementAndGet(); // as if one was thrown, and the scheduler reported none
        summary = summary(resting(10 * MIB), resting(10 * MIB), true, Duration.ofSeconds(1));
        assertFalse(check(summary, "every injected carrier failure").ok());
    }

    @Test
    void theHeapMayGrowBy32MiBOrAQuarterOfItsBaseline() throws Exception {
        assertEquals(10 * MIB + 32 * MIB, Summary.heapAllowed(10 * MIB));
        assertEquals(400 * MIB + 100 * MIB, Summary.heapAllowed(400 * MIB));
        assertTrue(check(summary(resting(10 * MIB), resting(42 * MIB), true, Duration.ZERO), "heap").ok());
        Summary.Check grown = check(summary(resting(10 * MIB), resting(42 * MIB + 1), true, Duration.ZERO), "heap");
        assertFalse(grown.ok());
        assertTrue(grown.figures().startsWith("baseline 10.0 MiB, at the end 42.0 MiB"), grown.figures());
    }

    @Test
    void checksThatCouldNotBeMadeFailAndSaySo() throws Exception {
        Summary summary = summary(null, null, false, Duration.ZERO);
        Summary.Check carriers = check(summary, "carriers back to the baseline");
        assertFalse(carriers.ok());
        assertEquals("not measured: the drain before it failed", carriers.figures());
        assertFalse(check(summary, "heap").ok());
    }

    @Test
    void aLongStallFailsTheLivenessCheck() throws Exception {
        assertTrue(check(summary(resting(0), resting(0), true, Duration.ofSeconds(10)), "work never stopped").ok());
        assertFalse(check(summary(resting(0), resting(0), true, Duration.ofSeconds(11)), "work never stopped").ok());
    }

    @Test
    void coverageNamesWhatNeverHappened() throws Exception {
        Summary.Check coverage = check(summary(resting(0), resting(0), true, Duration.ZERO), "the soak exercised");
        assertFalse(coverage.ok());
        assertTrue(coverage.figures().contains("RUNNEXT from virtual threads"), coverage.figures());
        assertTrue(coverage.figures().contains("a refused carrier start"), coverage.figures());
    }
}
