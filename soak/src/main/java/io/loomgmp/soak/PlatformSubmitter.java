package io.loomgmp.soak;

import java.util.SplittableRandom;

/**
 * Submits work from outside the scheduler, in bursts: plain tasks with every placement (from a
 * thread that is not a carrier they all go to the global queue, whatever the placement), timers,
 * virtual threads of every kind, blocking tasks and CPU hogs. It holds back while more than
 * {@value #MAX_OUTSTANDING} units are outstanding, so a scheduler that falls behind meets a
 * steady load rather than an ever longer queue (and memory stays flat).
 */
final class PlatformSubmitter extends Driver {
    static final long MAX_OUTSTANDING = 20_000;

    private final Work work;

    PlatformSubmitter(String name, Work work, SplittableRandom random) {
        super(name, work.ledger, random);
        this.work = work;
    }

    @Override
    void step() {
        if (ledger.outstanding() > MAX_OUTSTANDING) {
            pause(1_000_000);
            return;
        }
        for (int i = random.nextInt(1, 33); i > 0; i--) {
            int action = random.nextInt(100);
            if (action < 55) {
                work.submitTask(random, Work.MAX_DEPTH);
            } else if (action < 70) {
                work.scheduleRandomTimer(random, Work.MAX_DEPTH - 1);
            } else if (action < 85) {
                work.startRandomVirtual(random, false);
            } else if (action < 89) {
                work.submitBlockingTask(random);
            } else if (action < 90) {
                if (random.nextInt(3) == 0) {
                    work.submitHogTask(random);
                } else {
                    work.startVirtualHog(random);
                }
            } // else a gap in the burst
        }
        pause(random.nextLong(20_000, 1_000_000));
    }
}
