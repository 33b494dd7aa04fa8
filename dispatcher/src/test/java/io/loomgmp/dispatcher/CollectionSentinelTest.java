package io.loomgmp.dispatcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class CollectionSentinelTest {
    @Test
    void aCollectionBetweenTwoLooksChangesTheCount() {
        CollectionSentinel sentinel = new CollectionSentinel();
        long before = sentinel.collections();
        System.gc(); // a full collection under every collector the tests run with
        long after = sentinel.collections();
        assertTrue(after > before, "count " + before + " then " + after + " across System.gc()");
        System.gc();
        assertTrue(sentinel.collections() > after, "a fresh sentinel is in place after each one seen");
    }

    @Test
    void noCollectionLeavesTheCountAlone() {
        // Another thread's allocation may start a collection between the two looks; the JVM's
        // own count tells such a round apart, and it is tried again.
        for (int attempt = 0; attempt < 100; attempt++) {
            CollectionSentinel sentinel = new CollectionSentinel();
            long jvmBefore = jvmCollections();
            long first = sentinel.collections();
            long second = sentinel.collections();
            if (jvmCollections() == jvmBefore) {
                assertEquals(first, second, "no collection ran, yet the count moved");
                return;
            }
        }
        fail("a collection ran in each of 100 rounds");
    }

    private static long jvmCollections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }
}
