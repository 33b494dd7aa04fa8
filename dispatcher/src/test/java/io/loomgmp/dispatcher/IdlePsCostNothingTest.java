package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a search, a re-check or a sysmon round costs does not grow with the idle Ps: they walk the
 * busy Ps ({@link Idle}'s busy mask) and the Ps with timers ({@link Timers#withTimers}), not every
 * P made. On inert schedulers (no sysmon, no carrier thread started by the scheduler): every
 * count here is exact, whatever the load of the machine.
 */
class IdlePsCostNothingTest {
    private static final Runnable NOTHING = () -> { };

    private static Scheduling inert(int procs) {
        return new Scheduling(SchedulerConfig.inert("idle-ps", procs, procs)); // never started
    }

    @Test
    void aStealPassLooksAtTheBusyPsOnly() {
        // 200 Ps in four words of the mask; five busy victims spread over them, with empty rings.
        Scheduling s = inert(200);
        Carrier thief = Hand.holding(s, 0, "thief");
        Set<Integer> busy = new TreeSet<>(List.of(5, 63, 64, 130, 199));
        for (int id : busy) {
            Hand.holding(s, id, "m" + id);
        }
        for (int round = 0; round < 200; round++) {
            List<Integer> seen = new ArrayList<>();
            assertNull(new Stealing(s, seen::add).stealWork(thief, thief.p));
            assertEquals(Stealing.STEAL_PASSES * busy.size(), seen.size(),
                    "at most " + Stealing.STEAL_PASSES + " passes over the " + busy.size() + " busy victims, looked at: "
                            + (seen.size() <= 40 ? seen : seen.subList(0, 40) + "..."));
            for (int pass = 0; pass < Stealing.STEAL_PASSES; pass++) {
                List<Integer> one = seen.subList(pass * busy.size(), (pass + 1) * busy.size());
                assertEquals(busy, new TreeSet<>(one), "each pass visits every busy victim once: " + one);
            }
        }
    }

    @Test
    void aVictimInAnyWordIsFoundFromAnyStart() {
        Scheduling s = inert(130);
        Carrier thief = Hand.holding(s, 64, "thief");
        List<Carrier> victims = new ArrayList<>();
        for (int id : new int[] {0, 63, 65, 127, 128, 129}) {
            victims.add(Hand.holding(s, id, "m" + id));
        }
        Stealing stealing = new Stealing(s);
        for (int round = 0; round < 600; round++) {
            Carrier victim = victims.get(round % victims.size());
            Runnable task = () -> { };
            assertNull(victim.p.runQueue.pushOrOverflow(task));
            assertSame(task, stealing.stealWork(thief, thief.p), "round " + round + ": P" + victim.p.id);
        }
    }

    @Test
    void theReCheckAndTheSearchWaitSeeWorkOnlyWhereABusyPCanHaveIt() {
        Scheduling s = inert(100);
        Carrier a = Hand.holding(s, 3, "a");
        Carrier b = Hand.holding(s, 97, "b");
        assertFalse(s.idle.anyBusyQueued(null, false));
        assertNull(b.p.runQueue.pushOrOverflow(NOTHING));
        assertTrue(s.idle.anyBusyQueued(null, false));
        assertTrue(s.idle.anyBusyQueued(a.p, true));
        assertFalse(s.idle.anyBusyQueued(b.p, false), "its own queue is not another's");
        b.p.release(); // in transit, as a hand-off leaves it: the re-check sees its work, the search wait does not
        assertTrue(s.idle.anyBusyQueued(a.p, false));
        assertFalse(s.idle.anyBusyQueued(a.p, true), "no steal can take it there");
        b.p.acquire(b);
        assertTrue(s.idle.isBusy(3) && s.idle.isBusy(97));
        assertEquals(2, java.util.stream.IntStream.range(0, 100).filter(s.idle::isBusy).count(), "idle Ps' bits are clear");
        b.p.runQueue.poll();
        Hand.giveUp(s, b);
        assertFalse(s.idle.isBusy(97), "a P given up is idle in the mask");
        assertEquals(99, s.idle.idleProcs());
    }

    @Test
    void aSysmonRoundLooksAtTheBusyPsAndForgetsAnIdleOneOnce() {
        Scheduling s = inert(64);
        Retake retake = s.sysmon.retake;
        Carrier a = Hand.holding(s, 1, "a");
        Hand.holding(s, 40, "b");
        Hand.holding(s, 63, "c");
        long before = retake.psLooked;
        retake.round(System.nanoTime());
        assertEquals(3, retake.psLooked - before, "3 busy Ps of 64");
        Hand.giveUp(s, a);
        before = retake.psLooked;
        retake.round(System.nanoTime());
        assertEquals(3, retake.psLooked - before, "2 busy, and the one watched last round, to forget");
        before = retake.psLooked;
        retake.round(System.nanoTime());
        assertEquals(2, retake.psLooked - before, "then the busy ones only");
    }

    @Test
    void theTimerMaskHoldsThePsWithTimers() throws Exception {
        Scheduling s = inert(150);
        Timers timers = s.timers;
        assertEquals(-1, timers.delay(System.nanoTime()));
        long far = System.nanoTime() + 3_600_000_000_000L;
        Timer t1 = s.allp[140].timers.add(NOTHING, far);
        assertTrue(timers.withTimers.contains(140));
        assertEquals(1, bits(timers.withTimers, 150), "only P140 has timers");
        long delay = timers.delay(System.nanoTime());
        assertTrue(delay > 3_000_000_000_000L, "the earliest timer of any P: " + delay);
        assertFalse(timers.anyDue(System.nanoTime()));
        Timer due = s.allp[7].timers.add(NOTHING, System.nanoTime() - 1);
        assertTrue(timers.anyDue(System.nanoTime()));
        assertEquals(0, timers.delay(System.nanoTime()));
        assertEquals(2, bits(timers.withTimers, 150));

        // Taking the due one empties P7's heap: its bit clears.
        Carrier m = Hand.holding(s, 7, "m");
        assertTrue(timers.runDue(m, s.allp[7].timers, System.nanoTime()));
        assertTrue(due.isDone());
        assertFalse(timers.withTimers.contains(7));
        // Cancelled timers stay until compaction or the top; the bit follows the heap, not the live count.
        t1.cancel(false);
        assertTrue(timers.withTimers.contains(140), "a cancelled timer is still in its heap");
        Timer again = s.allp[140].timers.add(NOTHING, far); // the add compacts: the cancelled one leaves
        assertTrue(timers.withTimers.contains(140));
        again.cancel(false);
        s.allp[140].timers.add(NOTHING, System.nanoTime() - 1).cancel(false);
        s.allp[140].timers.takeDue(System.nanoTime(), new Timer[4], 4); // drops what is cancelled
        assertEquals(s.allp[140].timers.size() > 0, timers.withTimers.contains(140),
                "set iff the heap holds any timer: " + s.allp[140].timers.size());
        // A move empties a retired P's heap timer by timer.
        Timer moving = s.allp[20].timers.add(NOTHING, far);
        assertTrue(timers.withTimers.contains(20));
        s.allp[20].timers.setClosed(true);
        Timer taken = s.allp[20].timers.takeForMove();
        assertSame(moving, taken);
        assertFalse(timers.withTimers.contains(20), "empty while its only timer moves");
        s.allp[20].timers.putBack(taken);
        assertTrue(timers.withTimers.contains(20));
        Future<?> ignored = moving;
        assertNotNull(ignored);
    }

    @Test
    void otherPsDueTimersAreRunFromTheMask() {
        Scheduling s = inert(100);
        Carrier m = Hand.holding(s, 0, "m");
        Map<Integer, Boolean> ran = new HashMap<>();
        for (int id : new int[] {1, 64, 99}) {
            s.allp[id].timers.add(() -> ran.put(id, true), System.nanoTime() - 1);
        }
        assertTrue(s.timers.runOthersDue(m, m.p));
        assertEquals(Map.of(1, true, 64, true, 99, true), ran);
        assertEquals(0, bits(s.timers.withTimers, 100));
    }

    private static int bits(ProcMask mask, int n) {
        int count = 0;
        for (int w = 0; w < ProcMask.words(n); w++) {
            count += Long.bitCount(mask.word(w));
        }
        return count;
    }
}
