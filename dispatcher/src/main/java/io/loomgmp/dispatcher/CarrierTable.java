package io.loomgmp.dispatcher;

import java.util.HashMap;
import java.util.Map;

/**
 * The JVM-wide table from a thread to the carrier it is, of any scheduler: a carrier's thread is
 * whatever the application's thread factory made, so a submission finds out whether it runs on a
 * carrier (and on which P) by looking its thread up here. Every submission does, so the look-up
 * takes no lock: an open-addressing table, copied on write under the class lock (carriers start
 * and end rarely) and published by a volatile write of an immutable {@link Table}; a reader finds
 * a thread in one or two probes, and a miss ends at a null soon, as the table is at most half full.
 * A reader sees the table as of some moment: a carrier registered before its thread starts
 * ({@code Carriers.start}) is found by its own thread, and one unregistered after its thread's
 * last task is no longer looked up by it.
 */
final class CarrierTable {
    private CarrierTable() {
    }

    /** Keys and values side by side; immutable once published. */
    private record Table(Thread[] threads, Carrier[] carriers, int mask) {
    }

    private static final Map<Thread, Carrier> ALL = new HashMap<>(); // guarded by the class lock
    private static volatile Table table = new Table(new Thread[16], new Carrier[16], 15);

    /** Any thread: the carrier whose thread is {@code thread}, of any scheduler, or null. */
    static Carrier of(Thread thread) {
        if (thread == null) {
            return null; // a carrier locator that could not tell
        }
        Table t = table;
        int i = slot(thread, t.mask);
        for (Thread k; (k = t.threads[i]) != null; i = (i + 1) & t.mask) {
            if (k == thread) {
                return t.carriers[i];
            }
        }
        return null;
    }

    private static int slot(Thread thread, int mask) {
        long h = thread.threadId() * 0x9E3779B97F4A7C15L; // ids are sequential: spread them
        return (int) (h ^ (h >>> 32)) & mask;
    }

    static synchronized void register(Carrier m) {
        ALL.put(m.thread, m);
        rebuild();
    }

    static synchronized void unregister(Carrier m) {
        if (ALL.remove(m.thread) != null) {
            rebuild();
        }
    }

    /** Must hold the class lock. A table at most half full, so that a miss ends at a null soon. */
    private static void rebuild() {
        int size = Math.max(16, Integer.highestOneBit(Math.max(1, ALL.size())) << 2);
        Thread[] threads = new Thread[size];
        Carrier[] carriers = new Carrier[size];
        int mask = size - 1;
        for (Map.Entry<Thread, Carrier> e : ALL.entrySet()) {
            int i = slot(e.getKey(), mask);
            while (threads[i] != null) {
                i = (i + 1) & mask;
            }
            threads[i] = e.getKey();
            carriers[i] = e.getValue();
        }
        table = new Table(threads, carriers, mask); // volatile write: publishes the arrays
    }
}
