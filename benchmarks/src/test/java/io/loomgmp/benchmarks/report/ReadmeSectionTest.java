package io.loomgmp.benchmarks.report;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReadmeSectionTest {
    private static final String README = """
            # Title
            text before
            <!-- bench:begin -->
            old table
            <!-- bench:end -->
            text after
            """;

    @Test
    void replacesOnlyWhatIsBetweenTheMarkers() {
        String updated = ReadmeSection.replace(README, "new table");
        assertEquals("""
                # Title
                text before
                <!-- bench:begin -->
                new table
                <!-- bench:end -->
                text after
                """, updated);
        assertEquals(updated, ReadmeSection.replace(updated, "new table\n"), "replacing again changes nothing");
    }

    @Test
    void refusesAReadmeWithoutExactlyOnePairOfMarkersInOrder() {
        assertThrows(IllegalArgumentException.class, () -> ReadmeSection.replace("# no markers\n", "x"));
        assertThrows(IllegalArgumentException.class, () -> ReadmeSection.replace(
                "<!-- bench:end -->\n<!-- bench:begin -->\n", "x"));
        assertThrows(IllegalArgumentException.class, () -> ReadmeSection.replace(README + README, "x"));
    }
}
