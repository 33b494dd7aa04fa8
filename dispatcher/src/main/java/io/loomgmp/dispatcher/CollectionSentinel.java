package io.loomgmp.dispatcher;

import java.lang.ref.WeakReference;

/**
 * Tells whether the garbage collector has run since the last look, without
 * {@code java.lang.management}: loading that costs about 25 ms the first time, which would land
 * in the middle of sysmon's first hand-off decision (or, loaded ahead, in every start-up).
 *
 * <p>It holds a weak reference to an object nothing else references. Any collection that
 * processes the young generation, or the whole heap, clears it: every collector of JDK 25 but
 * Epsilon, which never collects. {@link #collections()} counts each clearing it sees and puts a
 * fresh object in place, so two calls return different counts exactly when a collection ran
 * between them (several collections in between count as one, which is all sysmon asks).
 * Used by sysmon's thread only; not thread-safe.
 */
final class CollectionSentinel {
    private WeakReference<Object> sentinel = new WeakReference<>(new Object());
    private long seen;

    /** Collections seen so far: changes between two calls if the collector ran in between. */
    long collections() {
        if (sentinel.refersTo(null)) {
            seen++;
            sentinel = new WeakReference<>(new Object());
        }
        return seen;
    }
}
