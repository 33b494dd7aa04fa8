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
    /** A task that took this long was descheduled by the OS (50 times its work). */
    private static final long SLOW_NANOS = 1_000_000;
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
            LongAdder slow = new LongAdder();
            Runnable task = () -> {
                long start = System.nanoTime();
                Probe.spin(Duration.ofNanos(TASK_NANOS));
                if (System.nanoTime() - start > SLOW_NANOS) {
                    slow.increment(); // the OS took the carrier away mid-task: a busy machine
                }
                ran.increment();
                slots.release();
            };
            long warmUpEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            long end = warmUpEnd + TimeUnit.SECONDS.toNanos(1);
            long roundsAtStart = -1;
            long actedAtStart = 0;
            long lookAgainAtStart = 0;
            long ranAtStart = 0;
            long slowAtStart = 0;
            long deadline = System.nanoTime() + Probe.BOUND.toNanos();
            while (System.nanoTime() - end < 0) {
                if (roundsAtStart < 0 && System.nanoTime() - warmUpEnd >= 0) {
                    roundsAtStart = s.scheduling.sysmon.rounds;
                    actedAtStart = s.scheduling.sysmon.actedRounds;
                    lookAgainAtStart = s.scheduling.sysmon.lookAgainRounds;
                    ranAtStart = ran.sum();
                    slowAtStart = slow.sum();
                }
                assertTrue(slots.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS),
                        "no task ended within " + Probe.BOUND + "\n" + s.snapshot());
                s.execute(task); // from this platform thread: the global ready lane
            }
            long rounds = s.scheduling.sysmon.rounds - roundsAtStart;
            long acted = s.scheduling.sysmon.actedRounds - actedAtStart;
            long lookAgains = s.scheduling.sysmon.lookAgainRounds - lookAgainAtStart;
            long slowTasks = slow.sum() - slowAtStart;
            long tasks = ran.sum() - ranAtStart;
            long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - warmUpEnd));
            assertTrue(tasks >= 1_000, "the load was not steady: " + tasks + " tasks ran in the measured second\n" + s.snapshot());
            // On a busy machine the OS deschedules carriers mid-task, a 20 µs task then looks long,
            // and sysmon rightly looks again at it (Retake's second look). Those rounds are
            // allowed only then: on a quiet machine every round counts, second looks included.
            long allowedLookAgains = slowTasks > 0 ? lookAgains : 0;
            assertTrue(rounds <= MAX_ROUNDS_PER_SECOND * seconds + ROUNDS_PER_ACTION * acted + allowedLookAgains,
                    "sysmon looked at the Ps " + rounds + " times in " + seconds + " s of " + tasks + " short tasks,"
                    + " acting at " + acted + " of them; " + lookAgains + " were second looks, " + slowTasks
                    + " tasks were descheduled mid-task\n" + s.snapshot());
        }
    }
}
