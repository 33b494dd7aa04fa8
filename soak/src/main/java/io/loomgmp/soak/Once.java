package io.loomgmp.soak;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A unit of work that must run exactly once: made on the books when constructed
 * ({@link Ledger#made}), settled when its run ends ({@link Ledger#settled}), and a second run is a
 * {@link Ledger.Violation#RAN_TWICE} that does nothing else. The scheduler runs the very object it
 * was given, so the object itself can tell whether it has run: no record per task is kept, and
 * the books stay flat however long the soak runs. A body that spawns work makes it before its own
 * run settles, so the books never show zero outstanding while work is still to come.
 *
 * <p>{@link #run} may be called by any thread, any number of times; {@code getAndAdd} on
 * {@link #runs} (a full fence) lets exactly one call through.
 */
abstract class Once implements Runnable {
    private static final VarHandle RUNS;

    static {
        try {
            RUNS = MethodHandles.lookup().findVarHandle(Once.class, "runs", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Ledger ledger;
    final Ledger.Kind kind;
    @SuppressWarnings("unused") // through RUNS
    private volatile int runs;

    Once(Ledger ledger, Ledger.Kind kind) {
        this.ledger = ledger;
        this.kind = kind;
        ledger.made(kind);
    }

    @Override
    public final void run() {
        int before = (int) RUNS.getAndAdd(this, 1);
        if (before != 0) {
            ledger.violation(Ledger.Violation.RAN_TWICE, this + " ran " + (before + 1) + " times");
            return;
        }
        if (!begin()) {
            return; // settled by whoever stopped it (a cancel)
        }
        try {
            body();
        } finally {
            ledger.settled(kind);
        }
    }

    /** Called once, first: false if this work must not run (it was cancelled), and was settled elsewhere. */
    boolean begin() {
        return true;
    }

    /** The work itself. What it throws reaches the caller of {@link #run} (the scheduler's handler, for a task). */
    abstract void body();

    /** The work was made but never queued (its submission threw): undoes what making it reserved. */
    void abandoned() {
        ledger.unmade(kind);
    }

    @Override
    public String toString() {
        return kind.label + " " + getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this));
    }
}
