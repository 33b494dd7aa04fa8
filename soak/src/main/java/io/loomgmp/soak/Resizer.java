package io.loomgmp.soak;

import io.loomgmp.dispatcher.GmpScheduler;

import java.util.SplittableRandom;

/**
 * Resizes the scheduler ({@code setProcs}) under load, to a random count from 1 to the soak's
 * most, every 20 ms to 1 s, and now and then in a burst of 5 to 20 resizes less than a
 * millisecond apart. Before half the shrinks it arms a timer-move fault ({@link Faults}), so the
 * move of a retired P's timers fails part-way; it withdraws the fault after the call, so that
 * each fires within the shrink it was armed for, if that shrink moved a timer.
 */
final class Resizer extends Driver {
    private final GmpScheduler scheduler;
    private final Faults faults;
    private final int maxProcs;

    Resizer(GmpScheduler scheduler, Faults faults, int maxProcs, Ledger ledger, SplittableRandom random) {
        super("resizer", ledger, random);
        this.scheduler = scheduler;
        this.faults = faults;
        this.maxProcs = maxProcs;
    }

    @Override
    void step() {
        pauseMillis(20, 1_000);
        int resizes = random.nextInt(8) == 0 ? random.nextInt(5, 21) : 1;
        for (int i = 0; i < resizes && !stopping(); i++) {
            int procs = random.nextInt(1, maxProcs + 1);
            int old = scheduler.procs();
            if (procs < old && random.nextBoolean()) {
                faults.armTimerMoveFault();
            }
            try {
                scheduler.setProcs(procs);
            } catch (Throwable e) {
                ledger.violation(Ledger.Violation.OPERATION_FAILED, "setProcs(" + procs + ") from " + old + ": " + e);
            } finally {
                faults.disarmTimerMoveFault();
            }
            ledger.resizes.incrementAndGet();
            if (procs > old) {
                ledger.grows.increment();
            } else if (procs < old) {
                ledger.shrinks.increment();
            }
            if (resizes > 1) {
                pause(random.nextLong(1_000_000));
            }
        }
    }
}
