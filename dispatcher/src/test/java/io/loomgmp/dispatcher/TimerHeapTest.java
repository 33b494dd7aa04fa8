package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TimerHeap} alone (no scheduler): the 4-ary heap gives due timers in deadline order,
 * across the wrap of {@code System.nanoTime()} too; cancelled timers never come out and are
 * dropped so that the heap stays near its live size; a closed heap takes no timer; and moving a
 * retired P's timers loses, duplicates and revives none.
 */
class TimerHeapTest {
    /** Takes every timer due at {@code now}, a few at a time as the run loop does. */
    private static List<Timer> takeAllDue(TimerHeap heap, long now) {
        List<Timer> taken = new ArrayList<>();
        Timer[] into = new Timer[7];
        int n;
        while ((n = heap.takeDue(now, into, into.length)) > 0) {
            for (int i = 0; i < n; i++) {
                taken.add(into[i]);
            }
        }
        return taken;
    }

    private static void assertInDeadlineOrder(List<Timer> timers) {
        for (int i = 1; i < timers.size(); i++) {
            assertTrue(timers.get(i).when - timers.get(i - 1).when >= 0,
                    "timer " + i + " (" + timers.get(i).when + ") before timer " + (i - 1) + " (" + timers.get(i - 1).when + ")");
        }
    }

    @Test
    void dueTimersComeOutInDeadlineOrderAcrossTheWrapOfNanoTime() {
        // Deadlines on both sides of Long.MAX_VALUE: nanoTime's values may wrap, and the heap
        // compares by difference, as nanoTime's contract asks.
        long base = Long.MAX_VALUE - 5_000;
        Random random = new Random(42);
        TimerHeap heap = new TimerHeap();
        Set<Timer> added = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            added.add(heap.add(() -> { }, base + random.nextInt(10_000)));
        }
        assertEquals(10_000, heap.size());
        assertEquals(10_000, heap.pending());
        assertFalse(heap.hasDue(base - 1), "nothing is due before the earliest deadline");
        List<Timer> taken = takeAllDue(heap, base + 10_000);
        assertEquals(added, new HashSet<>(taken), "every timer once");
        assertEquals(10_000, taken.size());
        assertInDeadlineOrder(taken);
        assertTrue(heap.isEmpty());
        assertEquals(10_000, heap.fired());
    }

    @Test
    void onlyDueTimersAreTakenAndTheEarliestIsTracked() {
        TimerHeap heap = new TimerHeap();
        Timer late = heap.add(() -> { }, 300);
        assertTrue(heap.isEarliest(late));
        Timer early = heap.add(() -> { }, 100);
        assertTrue(heap.isEarliest(early));
        assertFalse(heap.isEarliest(late));
        heap.add(() -> { }, 200);
        assertEquals(100, heap.nextWhen());
        assertTrue(heap.hasDue(100));
        assertFalse(heap.hasDue(99));
        Timer[] into = new Timer[8];
        assertEquals(2, heap.takeDue(250, into, into.length), "the two due by 250");
        assertEquals(List.of(100L, 200L), List.of(into[0].when, into[1].when));
        assertEquals(300, heap.nextWhen());
        assertEquals(0, heap.takeDue(250, into, into.length), "the third is not due");
        assertEquals(1, heap.takeDue(300, into, 1));
        assertTrue(heap.isEmpty());
    }

    @Test
    void takeDueTakesNoMoreThanAsked() {
        TimerHeap heap = new TimerHeap();
        for (int i = 0; i < 10; i++) {
            heap.add(() -> { }, i);
        }
        Timer[] into = new Timer[10];
        assertEquals(3, heap.takeDue(100, into, 3));
        assertEquals(7, heap.size());
        assertEquals(3, heap.nextWhen());
    }

    @Test
    void cancelledTimersNeverComeOutAndAreDroppedOnceAQuarterOfTheHeap() {
        TimerHeap heap = new TimerHeap();
        List<Timer> timers = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            timers.add(heap.add(() -> { }, i));
        }
        Set<Timer> live = new HashSet<>();
        for (int i = 0; i < timers.size(); i++) {
            if (i % 10 == 0) {
                live.add(timers.get(i));
            } else {
                assertTrue(timers.get(i).cancel(false));
            }
        }
        assertEquals(100, heap.pending());
        heap.add(() -> { }, 5_000).cancel(false); // an add looks at the share of cancelled timers
        assertTrue(heap.size() <= 101, "compacted to the live timers: " + heap.size());
        List<Timer> taken = takeAllDue(heap, 10_000);
        assertEquals(live, new HashSet<>(taken), "the live timers only");
        assertInDeadlineOrder(taken);
    }

    @Test
    void aTimerCancelledAfterItWasTakenDoesNotRun() {
        TimerHeap heap = new TimerHeap();
        AtomicInteger runs = new AtomicInteger();
        heap.add(runs::incrementAndGet, 0);
        Timer[] into = new Timer[1];
        assertEquals(1, heap.takeDue(0, into, 1));
        assertTrue(into[0].cancel(false), "still cancellable: it has not run");
        into[0].run();
        assertEquals(0, runs.get(), "a taken timer that was cancelled before it ran does nothing");
        assertEquals(0, heap.pending());
    }

    @Test
    void aClosedHeapTakesNoTimerUntilOpenedAgain() {
        TimerHeap heap = new TimerHeap();
        heap.setClosed(true);
        assertNull(heap.add(() -> { }, 0));
        assertTrue(heap.isEmpty());
        heap.setClosed(false);
        assertNotNull(heap.add(() -> { }, 0));
    }

    @Test
    void movingTimersToAnotherHeapLosesDuplicatesAndRevivesNone() {
        TimerHeap retired = new TimerHeap();
        TimerHeap remaining = new TimerHeap();
        List<Timer> timers = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            timers.add(retired.add(() -> { }, i));
        }
        Set<Timer> live = new HashSet<>(timers);
        for (int i = 0; i < 500; i += 7) {
            timers.get(i).cancel(false);
            live.remove(timers.get(i));
        }
        retired.setClosed(true);
        int moved = 0;
        for (Timer timer; (timer = retired.takeForMove()) != null; ) {
            if (moved == 0) {
                // One that could not go elsewhere goes back, and is taken again next.
                retired.putBack(timer);
                timer = retired.takeForMove();
            }
            assertTrue(remaining.addMoved(timer));
            moved++;
        }
        assertTrue(retired.isEmpty());
        assertEquals(live.size(), moved, "the cancelled ones were dropped on the way");
        // A cancel after the move reaches the timer where it is now.
        Timer someLive = live.iterator().next();
        assertTrue(someLive.cancel(false));
        live.remove(someLive);
        assertEquals(live.size(), remaining.pending());
        List<Timer> taken = takeAllDue(remaining, 1_000);
        assertEquals(live, new HashSet<>(taken));
        assertInDeadlineOrder(taken);
    }

    @Test
    void aClosedHeapRefusesMovedTimersToo() {
        TimerHeap source = new TimerHeap();
        source.add(() -> { }, 1);
        source.setClosed(true);
        TimerHeap closed = new TimerHeap();
        closed.setClosed(true);
        Timer timer = source.takeForMove();
        assertFalse(closed.addMoved(timer));
        assertTrue(closed.isEmpty());
        source.putBack(timer);
        assertEquals(1, source.size());
    }
}
