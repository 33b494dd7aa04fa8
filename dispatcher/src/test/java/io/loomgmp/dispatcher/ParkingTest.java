package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Parking} alone, on an inert scheduler: each step of a carrier without a P (give the P
 * up, the spinner's re-check, park, the hand-over, retirement, the timer sleeper's role), with
 * the test thread as the waker and each parking carrier on a thread of its own ({@link Hand}).
 */
class ParkingTest {
    private static final Runnable NOTHING = () -> { };

    @Test
    void aCarrierThatSeesGlobalWorkAsItParksTakesAPBackInstead() {
        Scheduling s = new Scheduling(SchedulerConfig.inert("park-recheck", 1, 2));
        Carrier m = Hand.holding(s, "m");
        Processor p0 = s.allp[0];
        s.global.putReady(NOTHING); // came after m found nothing: m's re-check must see it
        assertSame(p0, s.parking.stop(m, false), "m took its P back");
        assertSame(m.inLoop, p0.holder());
        assertEquals(0, s.idle.idleProcs());
        assertEquals(0, s.parking.idleCarriers(), "m never went on the idle list");
        assertEquals(0, s.parking.parks.sum());
    }

    @Test
    void aSpinnerThatFindsWorkInAnotherRingTakesAnIdlePAndSpinsAgain() {
        Scheduling s = new Scheduling(SchedulerConfig.inert("park-spinner", 2, 4));
        Carrier spinner = Hand.holding(s, "spinner");
        Carrier busy = Hand.holding(s, "busy");
        s.idle.startSpinning(spinner, spinner.p);
        Processor mine = spinner.p;
        busy.p.runQueue.pushOrOverflow(NOTHING); // the busy P's work, which the spinner missed
        Processor found = s.parking.stop(spinner, false);
        assertSame(mine, found, "the P it gave up is the idle one it takes again");
        assertTrue(spinner.spinning, "it searches again, so finding work wakes the next one");
        assertEquals(1, s.idle.spinning());
        assertEquals(0, s.parking.parks.sum());
    }

    @Test
    void aSpinnerThatFindsNothingParksNotSpinningAndWaitsForTheHandedP() {
        Scheduling s = new Scheduling(SchedulerConfig.inert("park-handed", 1, 2));
        Carrier m = Hand.holding(s, "m");
        s.idle.startSpinning(m, m.p);
        CompletableFuture<Processor> took = Hand.onItsOwnThread(m, () -> s.parking.stop(m, false));
        Hand.awaitTrue(() -> s.parking.idleCarriers() == 1, "m parked");
        assertEquals(0, s.idle.spinning(), "a parked carrier is not counted as spinning");
        assertFalse(took.isDone(), "m waits for a P");
        assertSame(m, Hand.wakeOne(s));
        Processor p = Hand.result(took, "stop");
        assertSame(s.allp[0], p);
        assertSame(m.inLoop, p.holder());
        assertNull(m.nextP, "the hand-over is taken");
        assertEquals(1, s.parking.parks.sum());
        assertEquals(0, s.parking.idleCarriers());
    }

    @Test
    void aSpareCarrierRetiresAfterItsKeepAlive() {
        Scheduling s = new Scheduling(SchedulerConfig.inert("park-retire", 1, 2).withKeepAlive(Duration.ofMillis(20)));
        Carrier busy = Hand.holding(s, "busy"); // holds the only P
        Carrier spare = new Carrier(s, "spare");
        s.lock.lock();
        try { // two carriers counted, as if both had been started: one more than procs
            s.parking.reserveCarrier();
            s.parking.reserveCarrier();
        } finally {
            s.lock.unlock();
        }
        assertFalse(Hand.result(Hand.onItsOwnThread(spare, () -> s.parking.park(spare)), "park"),
                "the spare ends instead of taking a P");
        assertTrue(spare.retired);
        assertEquals(1, s.parking.carriers(), "counted out");
        assertEquals(0, s.parking.idleCarriers(), "off the idle list, so no waker can hand it a P");
        assertSame(busy.inLoop, s.allp[0].holder());
    }

    @Test
    void theTimerSleeperPassesItsRoleToAnotherParkedCarrierWhenHandedAP() {
        Scheduling s = new Scheduling(SchedulerConfig.inert("park-sleeper", 1, 3));
        Carrier first = Hand.holding(s, "first");
        Hand.giveUp(s, first);
        CompletableFuture<Boolean> firstParked = Hand.onItsOwnThread(first, () -> s.parking.park(first));
        Hand.awaitTrue(() -> s.parking.idleCarriers() == 1, "the first carrier parked");
        assertNull(s.parking.sleeper(), "no timer yet: nobody sleeps for the timers");
        assertFalse(s.parking.wakeSleeperFor(System.nanoTime()), "no sleeper to wake: the adder must wake a carrier");

        // A timer far out, added to the heap directly (Timers.schedule would wake a carrier for it).
        Timer timer = s.allp[0].timers.add(NOTHING, System.nanoTime() + Duration.ofHours(1).toNanos());
        Carrier second = new Carrier(s, "second");
        CompletableFuture<Boolean> secondParked = Hand.onItsOwnThread(second, () -> s.parking.park(second));
        Hand.awaitTrue(() -> s.parking.sleeper() == second && s.parking.idleCarriers() == 2,
                "the second carrier parked as the timer sleeper");
        assertTrue(s.parking.wakeSleeperFor(System.nanoTime()), "a sleeper is there for an earlier timer");

        assertSame(second, Hand.wakeOne(s), "the most recently parked is handed the P");
        assertTrue(Hand.result(secondParked, "the sleeper's park"));
        Hand.awaitTrue(() -> s.parking.sleeper() == first, "the role passed to the other parked carrier");
        assertFalse(firstParked.isDone());

        // Clean up: the P back, and handed to the first carrier, whose thread then ends.
        timer.cancel(false);
        Hand.giveUp(s, second);
        assertSame(first, Hand.wakeOne(s));
        assertTrue(Hand.result(firstParked, "the first carrier's park"));
        assertNull(s.parking.sleeper(), "a carrier that holds a P sleeps for nobody");
    }
}
