package io.loomgmp.benchmarks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ring's protocol, outside JMH, on the JDK's scheduler: every trip passes every member, and the tear-down ends them. */
class RingBenchmarkTest {
    /** Runs {@code body} on a virtual thread, as JMH's virtual executor runs the benchmark, and rethrows what it threw. */
    private static void onVirtualThread(ThrowingRunnable body) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofVirtual().start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        thread.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private interface ThrowingRunnable {
        void run() throws Throwable;
    }

    private static RingBenchmark ring(int threads, int depth, String mode) {
        RingBenchmark ring = new RingBenchmark();
        ring.threads = threads;
        ring.depth = depth;
        ring.mode = mode;
        return ring;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyTripPassesEveryMemberAndTheTearDownEndsThem() throws Throwable {
        for (String mode : new String[] {RingBenchmark.LONG_LIVED, RingBenchmark.PER_TRIP}) {
            for (int depth : new int[] {1, 64}) {
                RingBenchmark ring = ring(50, depth, mode);
                Thread[][] members = new Thread[1][];
                onVirtualThread(() -> {
                    ring.buildRing();
                    for (int trip = 0; trip < 5; trip++) {
                        assertEquals(49, ring.trip(), mode + " depth " + depth + ": hops through members");
                    }
                    members[0] = ring.members();
                    ring.stopRing();
                });
                for (Thread member : members[0]) {
                    member.join(java.time.Duration.ofSeconds(10));
                    assertFalse(member.isAlive(), mode + ": " + member + " ended");
                }
            }
        }
    }

    @Test
    void aRingMustRunOnAVirtualThreadAndHaveSensibleParameters() throws Throwable {
        IllegalStateException platform = assertThrows(IllegalStateException.class, () -> ring(50, 1,
                RingBenchmark.LONG_LIVED).buildRing());
        assertTrue(platform.getMessage().contains("-Djmh.executor=VIRTUAL"), platform.getMessage());
        for (RingBenchmark bad : new RingBenchmark[] {ring(1, 1, RingBenchmark.LONG_LIVED),
                ring(50, 0, RingBenchmark.LONG_LIVED), ring(50, 1, "sometimes")}) {
            onVirtualThread(() -> assertThrows(IllegalArgumentException.class, bad::buildRing));
        }
    }
}
