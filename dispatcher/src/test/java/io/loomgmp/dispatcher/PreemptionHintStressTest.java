package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.PendingPreemptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The poll's hint ({@link PendingPreemptions#asked}) under racing requests and takes: two
 * requesters (two schedulers' sysmons, or sysmon and a resize) ask Ps at random while each P's
 * carrier takes its requests at random, for a bounded time. The hint may be wrong for a moment,
 * never for good:
 * while running, a carrier told "not asked" while its P has a request only delays its yield, and
 * one told "asked" while it is not only visits the slow path, which checks its own P; but once
 * everything stops and each open request is asked again (as sysmon does after every time slice),
 * every asked carrier's poll is told so, and no other carrier's is.
 * Real {@code Processor}s, {@code Carrier}s registered in the carrier table, and
 * {@code Preemption}; the count and the hint are the JVM's own, so nothing else may ask for
 * preemption while this runs (no scheduler runs in the test JVM meanwhile: tests run one class at
 * a time and close their schedulers).
 */
class PreemptionHintStressTest {
    private static final int PROCS = 4;
    private static final long RUN_NANOS = 1_000_000_000;

    @Test
    void aStaleHintLastsOnlyUntilTheNextAsk() throws Exception {
        Processor[] ps = new Processor[PROCS];
        Carrier[] ms = new Carrier[PROCS];
        for (int i = 0; i < PROCS; i++) {
            ps[i] = new Processor(i);
            ms[i] = new Carrier(null, "hint-m" + i);
            ms[i].thread = Thread.ofPlatform().name("hint-m" + i).unstarted(() -> { });
            ps[i].acquire(ms[i]);
            ps[i].enterTask(ms[i]); // each carrier runs a task on its own P
            CarrierTable.register(ms[i]);
        }
        int countBefore = PendingPreemptions.count;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong polls = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int r = 0; r < 2; r++) {
                long seed = r;
                threads.add(Thread.ofPlatform().name("hint-requester-" + r).start(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    while (!stop.get()) {
                        Processor p = ps[random.nextInt(PROCS)];
                        Preemption.request(p, p.holder());
                    }
                }));
            }
            for (int i = 0; i < PROCS; i++) {
                Processor p = ps[i];
                Thread self = ms[i].thread;
                long seed = 100 + i;
                threads.add(Thread.ofPlatform().name("hint-carrier-" + i).start(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    while (!stop.get()) {
                        // A poll, as Gmp.checkpoint makes it: the count's read, then the check;
                        // asked, the slow path takes the P's request.
                        if (PendingPreemptions.count != 0 && Preemption.askedAtPoll(self)) {
                            polls.incrementAndGet();
                            Preemption.take(p);
                        } else if (random.nextInt(4) == 0) {
                            Preemption.take(p);
                        }
                    }
                }));
            }
            Thread.sleep(RUN_NANOS / 1_000_000);
        } finally {
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
        }
        try {
            assertTrue(polls.get() > 0, "no poll was ever told it was asked: the race did not run");
            // Quiescent: sysmon asks each asked P again after its slice, which heals the hint.
            for (Processor p : ps) {
                if (p.preemptRequested) {
                    assertFalse(Preemption.request(p, p.holder()), "a P asked twice");
                }
            }
            int open = 0;
            for (int i = 0; i < PROCS; i++) {
                boolean requested = ps[i].preemptRequested;
                open += requested ? 1 : 0;
                assertEquals(requested, Preemption.askedAtPoll(ms[i].thread),
                        "P" + i + (requested ? " is asked but its carrier's poll is not told"
                                : " is not asked but its carrier's poll is told") + " (hint " + hintName(ms) + ")");
            }
            assertEquals(countBefore + open, PendingPreemptions.count, "the count is not the number of open requests");
        } finally {
            for (int i = 0; i < PROCS; i++) {
                Preemption.take(ps[i]);
                CarrierTable.unregister(ms[i]);
            }
        }
        assertTrue(PendingPreemptions.count == countBefore, "requests left open by the test");
    }

    private static String hintName(Carrier[] ms) {
        Object hint = PendingPreemptions.asked;
        if (hint == PendingPreemptions.LOOK_UP) {
            return "look up";
        }
        for (Carrier m : ms) {
            if (hint == m.thread) {
                return m.thread.getName();
            }
        }
        return String.valueOf(hint);
    }
}
