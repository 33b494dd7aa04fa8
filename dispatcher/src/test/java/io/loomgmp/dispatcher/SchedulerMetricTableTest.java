package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/observability.md's table of the scheduler's figures is {@link SchedulerMetric} rendered:
 * the test fails, printing the table it expects, when they differ. Run it with
 * {@code -Dloomgmp.docs.update=true} to write that table into the page instead.
 */
class SchedulerMetricTableTest {
    /** Tests run in the module's directory; docs/ is the repository's. */
    private static final Path OBSERVABILITY = Path.of("..", "docs", "observability.md");
    static final String BEGIN = "<!-- generated from SchedulerMetric by SchedulerMetricTableTest: edit the enum, not this table -->\n";
    static final String END = "<!-- end of the generated table -->\n";

    /** The table, one row per figure in the enum's order. */
    static String render() {
        StringBuilder out = new StringBuilder()
                .append("| figure | kind | MXBean attribute | Micrometer meter | base unit | schedtrace | what |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (SchedulerMetric m : SchedulerMetric.values()) {
            String meter = m.meterName() == null ? "" : "`" + m.meterName() + "`"
                    + (m.meterTagKey() == null ? "" : " `" + m.meterTagKey() + "=" + m.meterTagValue() + "`");
            out.append("| `").append(m.figureName()).append("` | ")
                    .append(m.kind().name().toLowerCase(Locale.ROOT)).append(" | `")
                    .append(m.attributeName()).append("` | ")
                    .append(meter).append(" | ")
                    .append(m.baseUnit() == null ? "" : m.baseUnit()).append(" | ")
                    .append(m.schedtraceKey() == null ? "" : "`" + m.schedtraceKey() + "`").append(" | ")
                    .append(m.description()).append(" |\n");
        }
        return out.toString();
    }

    @Test
    void theDocsTableIsTheEnum() throws IOException {
        String page = Files.readString(OBSERVABILITY);
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        assertTrue(begin >= 0 && end > begin, "docs/observability.md has no generated table between\n" + BEGIN + END);
        String expected = render();
        String documented = page.substring(begin + BEGIN.length(), end);
        if (Boolean.getBoolean("loomgmp.docs.update") && !documented.equals(expected)) {
            Files.writeString(OBSERVABILITY, page.substring(0, begin + BEGIN.length()) + expected + page.substring(end));
            return;
        }
        assertEquals(expected, documented, "docs/observability.md's table of figures against SchedulerMetric;"
                + " write it with -Dloomgmp.docs.update=true, or paste:\n" + expected);
    }

    @Test
    void namesAreUniqueAndDescriptionsOneSentence() {
        Set<String> attributes = new HashSet<>();
        Set<String> meters = new HashSet<>();
        Set<String> keys = new HashSet<>();
        for (SchedulerMetric m : SchedulerMetric.values()) {
            assertTrue(attributes.add(m.attributeName()), m.attributeName());
            assertTrue(m.meterName() == null || meters.add(m.meterName() + " " + m.meterTagKey() + "=" + m.meterTagValue()),
                    m + ": meter name and tag taken");
            assertTrue(m.schedtraceKey() == null || keys.add(m.schedtraceKey()), m.schedtraceKey());
            assertEquals(m.meterTagKey() == null, m.meterTagValue() == null, m + ": a tag has a key and a value");
            assertTrue(!m.description().isBlank() && !m.description().contains("|") && !m.description().endsWith("."),
                    m + ": a table cell, as Micrometer's descriptions are written");
        }
        assertEquals("tasksRun", SchedulerMetric.TASKS_RUN.figureName());
        assertEquals("FairnessTickGrabs", SchedulerMetric.FAIRNESS_TICK_GRABS.attributeName());
    }
}
