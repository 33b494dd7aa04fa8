package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The global queue's elements: single tasks, and a full ring's overflow as one batch. */
class GlobalQueueTest {
    private static final Runnable[] TASKS = RunQueueTest.tasks(RunQueue.CAPACITY + 2);

    /** A full ring's overflow, as {@code Scheduling.pushLocal} makes it. */
    private static Object[] overflowOf(RunQueue full, Runnable next) {
        Object[] overflow = full.pushOrOverflow(next);
        assertEquals(GlobalQueue.MAX_BATCH, overflow.length);
        return overflow;
    }

    private static RunQueue fullRing() {
        RunQueue ring = new RunQueue();
        for (int i = 0; i < RunQueue.CAPACITY; i++) {
            assertNull(ring.pushOrOverflow(TASKS[i]));
        }
        return ring;
    }

    @Test
    void anOverflowIsOneElementTakenWholeInItsOrderAndCountedByItsTasks() {
        GlobalQueue global = new GlobalQueue();
        Object[] overflow = overflowOf(fullRing(), TASKS[RunQueue.CAPACITY]);
        Object[] expected = overflow.clone();
        global.putOverflow(overflow, overflow.length);
        assertTrue(Arrays.stream(overflow).allMatch(t -> t == null), "the ring's buffer is cleared");
        assertEquals(GlobalQueue.MAX_BATCH, global.readySize());
        global.putReady(TASKS[RunQueue.CAPACITY + 1]);
        assertEquals(GlobalQueue.MAX_BATCH + 1, global.size());

        Object[] batch = assertInstanceOf(Object[].class, global.pollReady());
        assertArrayEquals(expected, batch, "oldest first, every slot set");
        assertEquals(1, global.readySize(), "the batch's tasks left the count together");
        assertSame(TASKS[RunQueue.CAPACITY + 1], global.pollReady());
        assertNull(global.pollReady());
        assertEquals(0, global.size());
        assertTrue(global.isEmpty());
    }

    @Test
    void aGrabIntoAnEmptyRingTakesSingleTasksThenABatchWholeAndFillsTheRingAtMost() {
        GlobalQueue global = new GlobalQueue();
        int singles = RunLoop.GLOBAL_BATCH_MAX - 1; // the most a grab takes before a batch
        for (int i = 0; i < singles; i++) {
            global.putReady(TASKS[i]);
        }
        Object[] overflow = overflowOf(fullRing(), TASKS[RunQueue.CAPACITY]);
        Object[] batch = overflow.clone();
        global.putOverflow(overflow, overflow.length);
        global.putReady(TASKS[RunQueue.CAPACITY + 1]); // behind the batch: not taken

        RunQueue ring = new RunQueue();
        Runnable first = RunLoop.grabReady(global, ring, 1); // one P: its share is everything
        assertSame(TASKS[0], first);
        List<Runnable> queued = RunQueueTest.drainRing(ring);
        assertEquals(singles - 1 + GlobalQueue.MAX_BATCH, queued.size(),
                "the singles and the whole batch, no overflow");
        assertTrue(queued.size() <= RunQueue.CAPACITY);
        assertEquals(Arrays.asList(TASKS).subList(1, singles), queued.subList(0, singles - 1));
        assertEquals(Arrays.asList(batch), queued.subList(singles - 1, queued.size()));
        assertEquals(1, global.readySize());
        assertSame(TASKS[RunQueue.CAPACITY + 1], global.pollReady());
    }

    @Test
    void aGrabTakesItsShareOfSingleTasks() {
        GlobalQueue global = new GlobalQueue();
        for (int i = 0; i < 10; i++) {
            global.putReady(TASKS[i]);
        }
        RunQueue ring = new RunQueue();
        assertSame(TASKS[0], RunLoop.grabReady(global, ring, 2));
        assertEquals(10 / 2 + 1 - 1, ring.size(), "Go's globrunqget: ready / procs + 1, the first in hand");
        assertEquals(4, global.readySize());
        assertNull(RunLoop.grabReady(new GlobalQueue(), new RunQueue(), 2));
    }

    @Test
    void anOverflowThatCannotBeAllocatedGoesToTheReserveTaskByTaskInItsOrder() {
        boolean[] outOfMemory = {false};
        GlobalQueue global = new GlobalQueue(() -> {
            if (outOfMemory[0]) {
                throw new OutOfMemoryError("no node (test)");
            }
        });
        global.putReady(TASKS[0]);
        outOfMemory[0] = true;
        global.putOverflow(new Runnable[] {TASKS[1], TASKS[2], TASKS[3]}, 3);
        assertEquals(4, global.readySize());
        // The reserve first (carriers empty it first), one task at a time, then the lane.
        for (int i : new int[] {1, 2, 3, 0}) {
            assertSame(TASKS[i], global.pollReady());
        }
        assertNull(global.pollReady());
        assertEquals(0, global.size());
    }
}
