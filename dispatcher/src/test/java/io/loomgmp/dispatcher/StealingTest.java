package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Stealing} alone, on an inert scheduler (no sysmon, no carrier thread ever started): the
 * test thread plays every carrier, one at a time, so each outcome is exact. Which victims a thief
 * looks at, what it takes from them, and what it counts.
 */
class StealingTest {
    /** An inert scheduler of {@code procs} Ps, all idle. */
    private static Scheduling inert(int procs) {
        Scheduling s = new Scheduling(SchedulerConfig.inert("steal-test", procs, 2 * procs)); // never started
        return s;
    }

    /** A task told apart from every other (a lambda without captures is one object per call site). */
    private record Task(int id) implements Runnable {
        @Override
        public void run() {
        }
    }

    private static List<Runnable> tasks(int n) {
        List<Runnable> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tasks.add(new Task(i));
        }
        return tasks;
    }

    /** Everything left in {@code p}'s queue, runnext first, as its owner takes it. */
    private static List<Runnable> drain(Processor p) {
        List<Runnable> left = new ArrayList<>();
        Runnable next = p.runQueue.pollNext();
        if (next != null) {
            left.add(next);
        }
        for (Runnable task; (task = p.runQueue.poll()) != null; ) {
            left.add(task);
        }
        return left;
    }

    @Test
    void aThiefTakesHalfOfABusyVictimsRingAndCountsIt() {
        Scheduling s = inert(4);
        Carrier thief = Hand.holding(s, 0, "thief");
        Carrier victim = Hand.holding(s, 2, "victim");
        List<Runnable> queued = tasks(10);
        for (Runnable task : queued) {
            assertNull(victim.p.runQueue.pushOrOverflow(task));
        }
        Runnable first = new Stealing(s).stealWork(thief, thief.p);
        assertNotNull(first, "P2's ring has ten tasks");
        // The oldest half: its last task to run now (as Go's runqsteal), the rest queued in order.
        assertEquals(queued.get(4), first);
        assertEquals(queued.subList(0, 4), drain(thief.p));
        assertEquals(queued.subList(5, 10), drain(victim.p), "the victim keeps the newer half");
        assertEquals(1, thief.p.counted(Counter.STEALS));
        assertEquals(5, thief.p.counted(Counter.STOLEN_TASKS));
    }

    @Test
    void everyBusyVictimIsFoundWhateverTheRandomOrder() {
        // Coprime strides from a random start visit every P once per pass: a single non-empty
        // victim is found in every steal, wherever it sits among the Ps.
        Scheduling s = inert(6);
        Carrier thief = Hand.holding(s, 0, "thief");
        List<Carrier> others = new ArrayList<>();
        for (int id = 1; id < 6; id++) {
            others.add(Hand.holding(s, id, "m" + id));
        }
        Stealing stealing = new Stealing(s);
        for (int round = 0; round < 500; round++) {
            Carrier victim = others.get(round % others.size());
            Runnable task = new Task(round);
            assertNull(victim.p.runQueue.pushOrOverflow(task));
            assertEquals(task, stealing.stealWork(thief, thief.p), "round " + round + ": P" + victim.p.id);
            assertTrue(victim.p.runQueue.isEmpty());
        }
        assertEquals(500, thief.p.counted(Counter.STEALS));
    }

    @Test
    void idlePsAreNotVictims() {
        Scheduling s = inert(3);
        Carrier thief = Hand.holding(s, 0, "thief");
        // P1 and P2 stay idle (holder null). Tasks put in P1's ring here (an idle P's queue is
        // empty in a running scheduler) show that the thief does not even look.
        Runnable stranded = new Task(0);
        assertNull(s.allp[1].runQueue.pushOrOverflow(stranded));
        assertNull(new Stealing(s).stealWork(thief, thief.p));
        assertEquals(List.of(stranded), drain(s.allp[1]), "left where it was");
        assertEquals(0, thief.p.counted(Counter.STEALS));
    }

    @Test
    void aRunningVictimsRunnextIsTakenOnlyWhenItsRingIsEmptyOnTheLastPass() {
        Scheduling s = inert(2);
        Carrier thief = Hand.holding(s, 0, "thief");
        Carrier victim = Hand.holding(s, 1, "victim");
        Runnable next = new Task(1);
        Runnable inRing = new Task(2);
        assertNull(victim.p.runQueue.pushNext(next));
        assertNull(victim.p.runQueue.pushOrOverflow(inRing));
        Stealing stealing = new Stealing(s);
        assertEquals(inRing, stealing.stealWork(thief, thief.p), "the ring first");
        assertEquals(next, stealing.stealWork(thief, thief.p), "then runnext, after the passes over the ring");
        assertTrue(victim.p.runQueue.isEmpty());
        assertEquals(2, thief.p.counted(Counter.STEALS));
    }

    @Test
    void aLoneProcessorHasNoVictim() {
        Scheduling s = inert(1);
        Carrier alone = Hand.holding(s, 0, "alone");
        assertNull(new Stealing(s).stealWork(alone, alone.p));
    }

    @Test
    void aStealNeitherLosesNorDuplicatesATask() {
        // Repeated steals between two busy Ps, each time from the other's ring: every task
        // pushed ends up in exactly one place.
        Scheduling s = inert(2);
        Carrier a = Hand.holding(s, 0, "a");
        Carrier b = Hand.holding(s, 1, "b");
        Stealing stealing = new Stealing(s);
        List<Runnable> pushed = tasks(200);
        Set<Runnable> seen = new HashSet<>();
        for (int i = 0; i < pushed.size(); i += 20) {
            for (Runnable task : pushed.subList(i, i + 20)) {
                assertNull(b.p.runQueue.pushOrOverflow(task));
            }
            Runnable first = stealing.stealWork(a, a.p);
            assertTrue(seen.add(first));
            for (Runnable task : drain(a.p)) {
                assertTrue(seen.add(task), "a task stolen twice");
            }
            for (Runnable task : drain(b.p)) {
                assertTrue(seen.add(task), "a task both stolen and kept");
            }
        }
        assertEquals(new HashSet<>(pushed), seen, "every task once");
    }
}
