package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The P mask's bits and its walk over the set ones. */
class ProcMaskTest {
    private static List<Integer> walk(ProcMask mask, int n) {
        List<Integer> seen = new ArrayList<>();
        for (int i = mask.next(0, n); i >= 0; i = mask.next(i + 1, n)) {
            seen.add(i);
        }
        return seen;
    }

    @Test
    void aWalkVisitsTheSetBitsBelowNInOrderAcrossWords() {
        ProcMask mask = new ProcMask(200);
        for (int id : new int[] {0, 5, 63, 64, 127, 128, 190, 199}) {
            mask.set(id);
        }
        assertEquals(List.of(0, 5, 63, 64, 127, 128, 190, 199), walk(mask, 200));
        assertEquals(List.of(0, 5, 63, 64, 127, 128), walk(mask, 190), "the Ps made so far only");
        assertEquals(List.of(0, 5, 63), walk(mask, 64));
        assertEquals(List.of(), walk(mask, 0));
        assertEquals(127, mask.next(65, 200), "from inside a word");
        assertEquals(190, mask.next(129, 200));
        assertEquals(-1, mask.next(200, 200));
    }

    @Test
    void clearedBitsAreSkippedAndAnEmptyMaskHasNone() {
        ProcMask mask = new ProcMask(130);
        assertEquals(List.of(), walk(mask, 130));
        mask.set(3);
        mask.set(129);
        assertTrue(mask.contains(129));
        mask.clear(3);
        assertFalse(mask.contains(3));
        assertEquals(List.of(129), walk(mask, 130));
        mask.clear(129);
        assertEquals(List.of(), walk(mask, 130));
    }
}
