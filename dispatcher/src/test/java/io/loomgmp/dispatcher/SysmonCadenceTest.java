package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sysmon's cost under a server's steady load: short tasks from outside keep every P busy and the
 * global ready lane never empty, but the Ps keep taking from it, so nothing is stuck and no
 * carrier blocks. Sysmon then backs off as Go's does instead of looking every millisecond (the
 * give-way look) or every 50 µs per P (the "too young to tell" look): those were over a thousand
 * wake-ups a second of a thread that found nothing to do.
 */
class SysmonCadenceTest {

    /** Short tasks in flight: more than the Ps, so that some always wait in the ready lane. */
    private static final int IN_FLIGHT = 6;
    private static final long TASK_NANOS = 20_000;
    /** Before the back-off: 420 to 560 rounds a second on two idle cores (1,500 under a Jetty server's load); after: about 200. */
    private static final long MAX_ROUNDS_PER_SECOND = 350;
    /**
     * Rounds that one action of sysmon's may bring: it then looks every 20 µs for
     * {@link Sysmon#IDLE_ROUNDS_BEFORE_BACKOFF} rounds and doubles its sleep up to 10 ms (nine
     * more). On a loaded machine a carrier descheduled for a millisecond leaves the outside work
     * waiting, and sysmon rightly asks a task to give way.
     */
    private static final long ROUNDS_PER_ACTION = Sysmon.IDLE_ROUNDS_BEFORE_BACKOFF + 10;

    @Test
    void underASteadyStreamOfShortOutsideTasksSysmonBacksOff() throws Exception {
        // A minute's time slice: no task is ever asked to yield for its slice, which would make
        // sysmon look at the shortest cadence for a while (as it should) and blur the count.
        try (GmpScheduler s = GmpScheduler.builder().procs(2).timeSlice(Duration.ofSeconds(60)).name("cadence").build()) {
            Semaphore slots = new Semaphore(IN_FLIGHT);
            LongAdder ran = new LongAdder();
            Runnable task = () -> {
                Probe.spin(Duration.ofNanos(TASK_NANOS));
                ran.increment();
                slots.release();
            };
            long warmUpEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            long end = warmUpEnd + TimeUnit.SECONDS.toNanos(1);
            long roundsAtStart = -1;
            long actedAtStart = 0;
            long ranAtStart = 0;
            long deadline = System.nanoTime() + Probe.BOUND.toNanos();
            while (System.nanoTime() - end < 0) {
                if (roundsAtStart < 0 && System.nanoTime() - warmUpEnd >= 0) {
                    roundsAtStart = s.scheduling.sysmon.rounds;
                    actedAtStart = s.scheduling.sysmon.actedRounds;
                    ranAtStart = ran.sum();
                }
                assertTrue(slots.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS),
                        "no task ended within " + Probe.BOUND + "\n" + s.snapshot());
                s.execute(task); // from this platform thread: the global ready lane
            }
            long rounds = s.scheduling.sysmon.rounds - roundsAtStart;
            long acted = s.scheduling.sysmon.actedRounds - actedAtStart;
            long tasks = ran.sum() - ranAtStart;
            long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - warmUpEnd));
            assertTrue(tasks >= 1_000, "the load was not steady: " + tasks + " tasks ran in the measured second\n" + s.snapshot());
            assertTrue(rounds <= MAX_ROUNDS_PER_SECOND * seconds + ROUNDS_PER_ACTION * acted, "sysmon looked at the Ps "
                    + rounds + " times in " + seconds + " s of " + tasks + " short tasks, acting at " + acted + " of them\n"
                    + s.snapshot());
        }
    }
}
