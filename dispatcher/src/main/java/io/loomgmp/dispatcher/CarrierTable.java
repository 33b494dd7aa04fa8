package io.loomgmp.dispatcher;

import java.util.HashMap;
import java.util.Map;

/**
 * The JVM-wide table from a thread to the carrier it is, of any scheduler: a carrier's thread is
 * whatever the application's thread factory made, so a submission finds out whether it runs on a
 * carrier (and on which P) by looking its thread up here. Every submission does, and so does every
 * preemption poll while a request is open ({@code Preemption.askedAtPoll}), inlined into the
 * application's loops: so the look-up takes no lock and has no loop. The table is a perfect hash,
 * rebuilt under the class lock whenever a carrier starts or ends (rarely): a multiplier and a
 * size are chosen so that no two carriers' threads share a slot, and a look-up is one multiply,
 * one shift and one compare. A loop in the look-up, inlined into a polled loop, made the JIT
 * compile that loop worse (a nested loop and its live values), at every turn while a request was
 * open. The table is published by a volatile write of an immutable {@link Table}; a reader sees it
 * as of some moment: a carrier registered before its thread starts ({@code Carriers.start}) is
 * found by its own thread, and one unregistered after its thread's last task is no longer looked
 * up by it.
 */
final class CarrierTable {
    /** Slots per carrier to start the search for a perfect hash with: few collisions to avoid. */
    private static final int MIN_SLOTS_PER_CARRIER = 4;
    /** Multipliers tried at each size before the size doubles. */
    private static final int TRIES_PER_SIZE = 64;
    /** 2^26 slots: never reached (a million carriers would fit at 2^22 with few tries). */
    private static final int MAX_BITS = 26;

    private CarrierTable() {
    }

    /** Keys and values side by side, at slot {@code (threadId * multiplier) >>> shift}; immutable once published. */
    private record Table(Thread[] threads, Carrier[] carriers, long multiplier, int shift) {
    }

    private static final Map<Thread, Carrier> ALL = new HashMap<>(); // guarded by the class lock
    private static volatile Table table = new Table(new Thread[1], new Carrier[1], 0, 63);

    /** Any thread: the carrier whose thread is {@code thread}, of any scheduler, or null. */
    static Carrier of(Thread thread) {
        if (thread == null) {
            return null; // a carrier locator that could not tell
        }
        Table t = table;
        int i = (int) ((thread.threadId() * t.multiplier) >>> t.shift);
        return t.threads[i] == thread ? t.carriers[i] : null;
    }

    /**
     * Adds {@code m}, before its thread starts. What this throws (an {@code OutOfMemoryError}, or
     * the rebuild's {@code IllegalStateException}) leaves the old table published but {@code m} in
     * {@link #ALL}: the caller's failure path, {@code Carriers.startFailed}, unregisters it.
     */
    static synchronized void register(Carrier m) {
        ALL.put(m.thread, m);
        rebuild();
    }

    static synchronized void unregister(Carrier m) {
        if (ALL.remove(m.thread) != null) {
            rebuild();
        }
    }

    /**
     * Must hold the class lock. Finds a multiplier and a size with no two threads in one slot:
     * from {@link #MIN_SLOTS_PER_CARRIER} slots per carrier, {@link #TRIES_PER_SIZE} multipliers
     * at each size, then twice the size. At {@code s} slots for {@code n} threads a random
     * multiplier has no collision with probability about {@code exp(-n^2 / 2s)}, so a size of
     * {@code n^2} slots or less is found within a few tries. Throws an {@code IllegalStateException}
     * (never in practice) if none is found up to {@link #MAX_BITS}, leaving the old table.
     */
    private static void rebuild() {
        assert Thread.holdsLock(CarrierTable.class);
        int n = ALL.size();
        Thread[] keys = ALL.keySet().toArray(new Thread[0]);
        int bits = Math.max(1, 64 - Long.numberOfLeadingZeros(Math.max(1, (long) n * MIN_SLOTS_PER_CARRIER) - 1));
        long seed = 0x9E3779B97F4A7C15L;
        for (; bits <= MAX_BITS; bits++) {
            for (int attempt = 0; attempt < TRIES_PER_SIZE; attempt++) {
                seed += 0x9E3779B97F4A7C15L; // splitmix64's sequence: well-spread odd multipliers
                long multiplier = mix(seed) | 1;
                Table t = tryBuild(keys, multiplier, bits);
                if (t != null) {
                    table = t; // volatile write: publishes the arrays
                    return;
                }
            }
        }
        throw new IllegalStateException("no collision-free carrier table for " + n + " carriers up to 2^" + MAX_BITS + " slots");
    }

    private static Table tryBuild(Thread[] keys, long multiplier, int bits) {
        int shift = 64 - bits;
        Thread[] threads = new Thread[1 << bits];
        Carrier[] carriers = new Carrier[1 << bits];
        for (Thread key : keys) {
            int i = (int) ((key.threadId() * multiplier) >>> shift);
            if (threads[i] != null) {
                return null;
            }
            threads[i] = key;
            carriers[i] = ALL.get(key);
        }
        return new Table(threads, carriers, multiplier, shift);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
