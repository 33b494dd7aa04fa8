package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.AgentRelease;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the agent's Java 8 entry point says to a JDK it does not support. */
class AgentEntryTest {

    @Test
    void anUnsupportedFeatureReleaseIsExplainedByTheJdksSupported() {
        assertEquals("the loom-gmp 9.9.9 agent supports JDK 31 or 32",
                AgentEntry.unsupported(AgentRelease.parse("9.9.9", "31,32")));
    }
}
