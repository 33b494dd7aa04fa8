package io.loomgmp.soak;

import java.util.SplittableRandom;

/**
 * Opens a window of carrier failures ({@link Faults}: loop faults and refused carrier starts)
 * for 0.3 to 2 s, every 2 to 8 s (the first within a second): long enough for carriers to die
 * and fail to start in numbers, short enough that the scheduler spends most of its time
 * recovering and running rather than failing.
 */
final class FaultWindows extends Driver {
    private final Faults faults;
    private boolean first = true;

    FaultWindows(Faults faults, Ledger ledger, SplittableRandom random) {
        super("faults", ledger, random);
        this.faults = faults;
    }

    @Override
    void step() {
        pauseMillis(first ? 200 : 2_000, first ? 1_000 : 8_000);
        first = false;
        if (stopping()) {
            return;
        }
        faults.window(true);
        pauseMillis(300, 2_000);
        faults.window(false);
    }

    @Override
    void stopped() {
        faults.window(false);
    }
}
