package io.loomgmp.soak;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The carrier failures the soak injects, through the dispatcher's seams and its carrier factory,
 * and how many of each it injected: the scheduler must report each one once
 * ({@code SchedulerSnapshot.failures()}), lose no task and run none twice.
 * <ul>
 *   <li><b>Loop faults</b>: while a window is open ({@link FaultWindows}), about one task in
 *       {@value #LOOP_FAULT_ONE_IN} meets an {@link Error} in its carrier's loop just before it
 *       runs: the carrier puts the task back, gives its P up and ends.</li>
 *   <li><b>Refused carrier starts</b>: while a window is open, the factory refuses about one
 *       carrier in {@value #REFUSE_ONE_IN} as a JVM out of native threads does.</li>
 *   <li><b>Timer-move faults</b>: once {@link #armTimerMoveFault armed} (by the {@link Resizer}
 *       before a shrink), the next timer a shrinking {@code setProcs} moves fails; the rest stay
 *       in the retired P's heap and must still fire.</li>
 * </ul>
 * The factory also keeps the carrier threads that have not ended, so that the soak can check,
 * after {@code close()}, that every one has.
 *
 * <p>Any thread. The counters are incremented just before each throw, so they count exactly what
 * was thrown.
 */
final class Faults {
    static final int LOOP_FAULT_ONE_IN = 5_000;
    static final int REFUSE_ONE_IN = 3;

    private volatile boolean window;
    private final AtomicBoolean timerMoveFaultArmed = new AtomicBoolean();
    final AtomicLong loopFaults = new AtomicLong();
    final AtomicLong refusedStarts = new AtomicLong();
    final AtomicLong timerMoveFaults = new AtomicLong();
    final AtomicLong carriersMade = new AtomicLong();
    private final Set<Thread> carrierThreads = ConcurrentHashMap.newKeySet();

    void window(boolean open) {
        window = open;
    }

    boolean windowOpen() {
        return window;
    }

    /** The next timer a shrinking {@code setProcs} moves fails (once). */
    void armTimerMoveFault() {
        timerMoveFaultArmed.set(true);
    }

    /** Withdraws an armed timer-move fault that no shrink has used. */
    void disarmTimerMoveFault() {
        timerMoveFaultArmed.set(false);
    }

    /** Every failure injected so far: what the scheduler must have reported. */
    long injected() {
        return loopFaults.get() + refusedStarts.get() + timerMoveFaults.get();
    }

    /** For {@code injectLoopFault}: runs on a carrier before each task. */
    Runnable loopFault() {
        return () -> {
            if (window && ThreadLocalRandom.current().nextInt(LOOP_FAULT_ONE_IN) == 0) {
                loopFaults.incrementAndGet();
                throw new InjectedFailure.CarrierFailure("carrier failure in the scheduling loop");
            }
        };
    }

    /** For {@code injectTimerMoveFault}: runs before each timer a shrinking {@code setProcs} moves. */
    Runnable timerMoveFault() {
        return () -> {
            if (timerMoveFaultArmed.getAndSet(false)) {
                timerMoveFaults.incrementAndGet();
                throw new InjectedFailure.CarrierFailure("failure moving a retired P's timer");
            }
        };
    }

    /** Makes daemon carriers named {@code soak-M<n>}, refusing some while a window is open. */
    ThreadFactory carrierFactory() {
        return carrier -> {
            if (window && ThreadLocalRandom.current().nextInt(REFUSE_ONE_IN) == 0) {
                refusedStarts.incrementAndGet();
                throw new OutOfMemoryError("unable to create native thread: refused on purpose (soak)");
            }
            Thread thread = Thread.ofPlatform().daemon().name("soak-M" + carriersMade.getAndIncrement()).unstarted(() -> {
                try {
                    carrier.run();
                } finally {
                    carrierThreads.remove(Thread.currentThread());
                }
            });
            carrierThreads.add(thread);
            return thread;
        };
    }

    /** Carrier threads started and not ended; ended ones leave the set here (a thread not started yet stays in it, uncounted). */
    List<Thread> carrierThreadsAlive() {
        carrierThreads.removeIf(thread -> !thread.isAlive() && thread.getState() != Thread.State.NEW);
        return carrierThreads.stream().filter(Thread::isAlive).toList();
    }
}
