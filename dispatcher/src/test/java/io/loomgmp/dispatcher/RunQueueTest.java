package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunQueueTest {
    /** {@code n} distinct tasks that do nothing, named task0, task1, ... */
    static Runnable[] tasks(int n) {
        Runnable[] tasks = new Runnable[n];
        for (int i = 0; i < n; i++) {
            int id = i;
            tasks[i] = new Runnable() {
                @Override
                public void run() {
                }

                @Override
                public String toString() {
                    return "task" + id;
                }
            };
        }
        return tasks;
    }

    /** Owner-side: every task left in {@code q}'s ring, oldest first. */
    static List<Runnable> drainRing(RunQueue q) {
        List<Runnable> out = new ArrayList<>();
        for (Runnable t; (t = q.poll()) != null; ) {
            out.add(t);
        }
        return out;
    }

    @Test
    void pushAndPollAreFifo() {
        RunQueue q = new RunQueue();
        Runnable[] t = tasks(10);
        for (Runnable task : t) {
            assertNull(q.pushOrOverflow(task));
        }
        assertEquals(10, q.size());
        assertArrayEquals(t, drainRing(q).toArray());
        assertTrue(q.isEmpty());
        assertNull(q.poll());
    }

    @Test
    void wrapsAroundManyTimes() {
        RunQueue q = new RunQueue();
        Runnable[] t = tasks(3);
        for (int round = 0; round < 10 * RunQueue.CAPACITY; round++) {
            q.pushOrOverflow(t[0]);
            q.pushOrOverflow(t[1]);
            assertSame(t[0], q.poll());
            q.pushOrOverflow(t[2]);
            assertSame(t[1], q.poll());
            assertSame(t[2], q.poll());
        }
        assertTrue(q.isEmpty());
    }

    @Test
    void fullRingOverflowsHalfPlusTheNewTaskOldestFirst() {
        RunQueue q = new RunQueue();
        Runnable[] t = tasks(RunQueue.CAPACITY + 1);
        for (int i = 0; i < RunQueue.CAPACITY; i++) {
            assertNull(q.pushOrOverflow(t[i]), "slot " + i + " should fit");
        }
        Object[] batch = q.pushOrOverflow(t[RunQueue.CAPACITY]);
        assertEquals(RunQueue.CAPACITY / 2 + 1, batch.length);
        for (int i = 0; i < RunQueue.CAPACITY / 2; i++) {
            assertSame(t[i], batch[i], "batch keeps the oldest half in order");
        }
        assertSame(t[RunQueue.CAPACITY], batch[RunQueue.CAPACITY / 2], "the new task ends the batch");
        List<Runnable> left = drainRing(q);
        assertEquals(RunQueue.CAPACITY / 2, left.size());
        assertSame(t[RunQueue.CAPACITY / 2], left.getFirst());
        assertSame(t[RunQueue.CAPACITY - 1], left.getLast());
    }

    @Test
    void runnextDisplacesItsOccupant() {
        RunQueue q = new RunQueue();
        Runnable[] t = tasks(2);
        assertNull(q.pushNext(t[0]));
        assertSame(t[0], q.pushNext(t[1]), "the old occupant comes back to be queued at the tail");
        assertTrue(q.hasNext());
        assertFalse(q.isEmpty());
        assertEquals(0, q.size(), "runnext is not part of the ring");
        assertSame(t[1], q.pollNext());
        assertNull(q.pollNext());
        assertTrue(q.isEmpty());
    }

    @Test
    void stealTakesHalfRoundedUpFromTheHead() {
        RunQueue victim = new RunQueue();
        RunQueue thief = new RunQueue();
        Runnable[] t = tasks(5);
        for (Runnable task : t) {
            victim.pushOrOverflow(task);
        }
        Runnable taken = thief.stealHalfFrom(victim, false, 0);
        // 3 of 5 stolen: t0, t1 queued at the thief, t2 returned to run now.
        assertSame(t[2], taken);
        assertEquals(List.of(t[0], t[1]), drainRing(thief));
        assertEquals(List.of(t[3], t[4]), drainRing(victim));
    }

    @Test
    void stealOfOneTaskReturnsItAndQueuesNothing() {
        RunQueue victim = new RunQueue();
        RunQueue thief = new RunQueue();
        Runnable[] t = tasks(1);
        victim.pushOrOverflow(t[0]);
        assertSame(t[0], thief.stealHalfFrom(victim, false, 0));
        assertTrue(thief.isEmpty());
        assertTrue(victim.isEmpty());
    }

    @Test
    void runnextIsStolenOnlyWhenAskedAndTheRingIsEmpty() {
        RunQueue victim = new RunQueue();
        RunQueue thief = new RunQueue();
        Runnable[] t = tasks(2);
        victim.pushNext(t[0]);
        assertNull(thief.stealHalfFrom(victim, false, 0), "runnext is left alone before the last pass");
        victim.pushOrOverflow(t[1]);
        assertSame(t[1], thief.stealHalfFrom(victim, true, 0), "the ring goes first");
        assertSame(t[0], thief.stealHalfFrom(victim, true, 1_000), "then runnext, after the grace");
        assertTrue(victim.isEmpty());
    }

    @Test
    void stealFromEmptyQueueTakesNothing() {
        assertNull(new RunQueue().stealHalfFrom(new RunQueue(), true, 0));
    }
}
