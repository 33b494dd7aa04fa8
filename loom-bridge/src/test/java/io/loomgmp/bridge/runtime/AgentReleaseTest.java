package io.loomgmp.bridge.runtime;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentReleaseTest {
    @Test
    void theBuildFillsInTheVersionAndTheSupportedJdksFromThePom() {
        AgentRelease release = AgentRelease.current();
        assertEquals(System.getProperty("loomgmp.version"), release.version());
        assertEquals(System.getProperty("loomgmp.supported.jdk"),
                String.join(",", release.supportedJdks().stream().map(String::valueOf).toList()));
        assertTrue(release.supports(Runtime.version().feature()), "the tests run on a supported JDK");
    }

    @Test
    void supportedJdksAreAListOfFeatureReleases() {
        AgentRelease one = AgentRelease.parse("1.2.3", "25");
        assertEquals(List.of(25), one.supportedJdks());
        assertTrue(one.supports(25));
        assertFalse(one.supports(26));
        assertFalse(one.supports(17));
        assertEquals("JDK 25", one.supportedJdksText());
        AgentRelease three = AgentRelease.parse("1.2.3", "25, 26,27");
        assertEquals(List.of(25, 26, 27), three.supportedJdks());
        assertTrue(three.supports(26));
        assertEquals("JDK 25, 26 or 27", three.supportedJdksText());
        assertEquals("JDK 25 or 26", AgentRelease.parse("1", "25,26").supportedJdksText());
    }

    @Test
    void anUnfilledOrBadResourceIsAnError() {
        assertEquals("loom-gmp: release.properties has no version (\"${project.version}\")",
                assertThrows(IllegalStateException.class, () -> AgentRelease.parse("${project.version}", "25"))
                        .getMessage());
        assertEquals("loom-gmp: release.properties has a bad supported.jdks \"${loomgmp.supported.jdk}\": expected"
                        + " JDK feature releases separated by commas, e.g. 25",
                assertThrows(IllegalStateException.class, () -> AgentRelease.parse("1", "${loomgmp.supported.jdk}"))
                        .getMessage());
        assertThrows(IllegalStateException.class, () -> AgentRelease.parse("1", "25-26"));
        assertThrows(IllegalStateException.class, () -> AgentRelease.parse("1", null));
    }
}
