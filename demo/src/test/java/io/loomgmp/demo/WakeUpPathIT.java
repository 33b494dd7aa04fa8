package io.loomgmp.demo;

import example.probes.TimersProbe;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 10's acceptance tests of the wake-up path: timed waits of virtual threads under the agent
 * ({@link TimersProbe}, each run in a JVM of its own), with the same probe on the JDK's ForkJoinPool
 * as a control that the probe itself is right. The bounds are generous (a loaded 2-core CI machine).
 */
class WakeUpPathIT {
    /** Cancelled timeouts may leave at most this much more heap in use than before (after full GCs). */
    private static final long HEAP_MARGIN_BYTES = 32L << 20;
    /** The cancelled loop's bound; well under the parks' timeout, so none of them can have expired. */
    private static final long CANCELLED_LOOP_BOUND_MILLIS = 30_000;

    @Test
    void aHundredThousandRandomTimedWaitsOnGmpAllCompleteAndNoneReturnsEarly() throws Exception {
        assertRandomTimedWaits(ProbeJvm.gmp(List.of(), TimersProbe.class, "random"));
    }

    @Test
    void controlAHundredThousandRandomTimedWaitsOnForkJoinPoolAllCompleteAndNoneReturnsEarly() throws Exception {
        assertRandomTimedWaits(ProbeJvm.forkJoinPool(List.of(), TimersProbe.class, "random"));
    }

    @Test
    void aHundredThousandRandomTimedWaitsAllAtOnceOnGmpAllCompleteAndNoneReturnsEarly() throws Exception {
        assertRandomTimedWaits(ProbeJvm.gmp(List.of(), TimersProbe.class, "random", "100000", "100000"));
    }

    @Test
    void controlAHundredThousandRandomTimedWaitsAllAtOnceOnForkJoinPoolAllCompleteAndNoneReturnsEarly()
            throws Exception {
        assertRandomTimedWaits(ProbeJvm.forkJoinPool(List.of(), TimersProbe.class, "random", "100000", "100000"));
    }

    /**
     * 100,000 sleeps, parkNanos loops and latch awaits of 0 to 50 ms (1,000 at a time, where an early
     * return shows; or all at once, the most pending timeouts): all done within 30 s, none early.
     */
    private static void assertRandomTimedWaits(Forked run) {
        assertEquals("true", run.value("finishedWithinBound"), "all finished within 30 s\n" + run);
        assertEquals("100000", run.value("completed"), run.toString());
        assertEquals("0", run.value("early"), "no sleep or await returned before its duration\n" + run);
        assertEquals("0", run.value("errors"), run.toString());
    }

    @Test
    void aMillionTimeoutsCancelledByAnUnparkOnGmpLeaveNothingOnTheHeap() throws Exception {
        assertCancelledTimeoutsLeaveNothing(ProbeJvm.gmp(List.of(), TimersProbe.class, "cancelled"));
    }

    @Test
    void controlAMillionTimeoutsCancelledByAnUnparkOnForkJoinPoolLeaveNothingOnTheHeap() throws Exception {
        assertCancelledTimeoutsLeaveNothing(ProbeJvm.forkJoinPool(List.of(), TimersProbe.class, "cancelled"));
    }

    /**
     * 1,000,000 hand-offs, each cutting a 60 s {@code parkNanos} short: done within 30 s, and the heap
     * used after full GCs at most 32 MiB above the baseline (a cancelled timeout kept until it
     * expires holds a few dozen bytes at least; 88 bytes kept per park show as 88 MB).
     */
    private static void assertCancelledTimeoutsLeaveNothing(Forked run) {
        assertEquals("1000000", run.value("handoffs"), run.toString());
        assertTrue(run.longValue("loopMillis") < CANCELLED_LOOP_BOUND_MILLIS,
                "a million hand-offs within " + CANCELLED_LOOP_BOUND_MILLIS + " ms\n" + run);
        assertEquals("true", run.value("measuredBeforeTimeouts"), run.toString());
        assertTrue(run.longValue("unparkedWhileTimedWaiting") >= 500_000,
                "most unparks found the other thread in its timed park (the loop really cancelled timeouts)\n" + run);
        assertTrue(run.longValue("afterHeapBytes") <= run.longValue("baselineHeapBytes") + HEAP_MARGIN_BYTES,
                "heap used after the loop within 32 MiB of the baseline\n" + run);
    }
}
