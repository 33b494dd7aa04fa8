package io.loomgmp.soak;

import example.soak.InitGate;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Pins virtual threads in a class initialiser, every 100 ms to 1.5 s: 1 to 3 virtual threads pass
 * a fresh {@link InitGate}; the first runs its class's initialiser, which sleeps (a timed block)
 * or waits for a release that comes later from a timer, a platform thread or another virtual
 * thread (an untimed one), and the others wait for the initialiser in the JVM. Their carriers
 * are blocked throughout, so sysmon must hand their Ps to other carriers, and the release, when
 * it is a timer on one of those Ps, must fire from another carrier.
 */
final class PinEpisodes extends Driver {
    private final Work work;

    PinEpisodes(Work work, SplittableRandom random) {
        super("pins", work.ledger, random);
        this.work = work;
    }

    @Override
    void step() {
        pauseMillis(100, 1_500);
        if (stopping()) {
            return;
        }
        boolean sleeps = random.nextBoolean();
        long hold = random.nextLong(Duration.ofMillis(20).toNanos(), Duration.ofMillis(400).toNanos());
        InitGate gate = new InitGate(sleeps ? hold : 0, () -> work.releaseLate("a class initialiser run by "
                + Thread.currentThread() + " has waited " + InitGate.HOLD_BOUND_SECONDS + " s for its release"));
        boolean any = false;
        for (int i = random.nextInt(1, 4); i > 0; i--) {
            any |= work.startVirtual(new VirtualWork.Pinned(work, gate), random);
        }
        if (any) {
            ledger.pinEpisodes.increment();
            if (!sleeps) {
                work.later(gate::release, hold, random);
            }
        }
    }
}
