package io.loomgmp.bridge.agent;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading {@code -XX:[+-]DoJVMTIVirtualThreadTransitions} as HotSpot does: the last one decides. */
class JvmtiTransitionsTest {
    private static boolean off(String... arguments) {
        return JvmtiTransitions.off(arguments);
    }

    @Test
    void onUnlessTurnedOff() {
        assertFalse(off());
        assertFalse(off("-Xmx1g", "-XX:+UnlockExperimentalVMOptions"));
        assertTrue(off("-XX:+UnlockExperimentalVMOptions", "-XX:-DoJVMTIVirtualThreadTransitions"));
        assertTrue(off("-XX:DoJVMTIVirtualThreadTransitions=false"));
        assertFalse(off("-XX:DoJVMTIVirtualThreadTransitions=true"));
    }

    @Test
    void theLastOneDecides() {
        assertFalse(off("-XX:-DoJVMTIVirtualThreadTransitions", "-XX:+DoJVMTIVirtualThreadTransitions"));
        assertTrue(off("-XX:+DoJVMTIVirtualThreadTransitions", "-XX:DoJVMTIVirtualThreadTransitions=false"));
        // Another flag that merely starts with the name is not it.
        assertFalse(off("-XX:-DoJVMTIVirtualThreadTransitionsX"));
    }
}
