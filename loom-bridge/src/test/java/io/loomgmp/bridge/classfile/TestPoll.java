package io.loomgmp.bridge.classfile;

/** A poll and its flag for classes that the tests poll and then run: counts the calls that got past the flag. */
public final class TestPoll {
    /** The guard's flag: the poll is called only while it is non-zero. */
    public static volatile int pending;
    public static volatile int calls;

    private TestPoll() {
    }

    public static void poll() {
        calls++; // one test thread at a time
    }
}
