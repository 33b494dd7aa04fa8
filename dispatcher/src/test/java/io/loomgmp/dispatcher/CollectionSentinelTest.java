package io.loomgmp.dispatcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        CollectionSentinel sentinel = new CollectionSentinel();
        long first = sentinel.collections();
        // Nothing allocates between the two looks, so no collection can run in between.
        assertEquals(first, sentinel.collections());
    }
}
