package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One bit per P (Go's {@code pMask}: {@code idlepMask}, {@code timerpMask}), so that whoever
 * looks for something in the Ps (work in their queues, due timers) walks the Ps whose bit is set,
 * in O(set bits + Ps / 64), instead of reading every P. Bit {@code i & 63} of word
 * {@code i >>> 6} stands for P {@code i}; there is room for every P there can be
 * ({@code maxCarriers}).
 *
 * <p>Memory ordering: {@link #set} and {@link #clear} are volatile read-modify-writes (a
 * {@code lock}-prefixed instruction on x86), so writers of different bits of a word, under
 * different locks, lose none of each other's changes, and each change takes part in the
 * synchronization order with the volatile accesses around it; {@link #word} is a volatile read
 * (a plain load on x86). What a set bit promises, and when a reader may skip a clear one, is the
 * owner's to say: {@link Idle} (the busy Ps) and {@link TimerHeap} (the Ps with timers).
 */
final class ProcMask {
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;

    ProcMask(int maxProcs) {
        this.words = new long[(maxProcs + 63) >>> 6];
    }

    /** Sets P {@code id}'s bit: a volatile RMW. */
    void set(int id) {
        WORDS.getAndBitwiseOr(words, id >>> 6, 1L << (id & 63));
    }

    /** Clears P {@code id}'s bit: a volatile RMW. */
    void clear(int id) {
        WORDS.getAndBitwiseAnd(words, id >>> 6, ~(1L << (id & 63)));
    }

    /** Word {@code w}: Ps {@code 64 * w} to {@code 64 * w + 63}. A volatile read. */
    long word(int w) {
        return (long) WORDS.getVolatile(words, w);
    }

    /** Whether P {@code id}'s bit is set. A volatile read. */
    boolean contains(int id) {
        return (word(id >>> 6) & (1L << (id & 63))) != 0;
    }

    /**
     * The least P id in {@code [from, n)} whose bit is set, or -1. A walk over the set bits of the
     * Ps made, {@code n} read once, is
     * {@code for (int i = mask.next(0, n); i >= 0; i = mask.next(i + 1, n))}: O(set bits + n / 64).
     * Each call reads the word it starts in afresh (volatile), so a walk is a racy look, as any
     * look at the bits is: what a stale bit costs is the owner's to say.
     */
    int next(int from, int n) {
        if (from >= n) {
            return -1;
        }
        int w = from >>> 6;
        long bits = word(w) & (-1L << (from & 63));
        for (int words = words(n); ; bits = word(w)) {
            if (bits != 0) {
                int i = (w << 6) + Long.numberOfTrailingZeros(bits);
                return i < n ? i : -1;
            }
            if (++w >= words) {
                return -1;
            }
        }
    }

    /** The words that cover Ps {@code [0, n)}: walk them as {@code for (w = 0; w < words(n); w++)}. */
    static int words(int n) {
        return (n + 63) >>> 6;
    }
}
