package io.loomgmp.bridge.agent;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one list of settings: unique names, and docs/usage.md's table documents every one of them. */
class AgentSettingTest {
    /** Tests run in the module's directory; docs/ is the repository's. */
    private static final Path USAGE = Path.of("..", "docs", "usage.md");

    @Test
    void argumentsAndPropertiesAreUnique() {
        Set<String> names = new HashSet<>();
        for (AgentSetting setting : AgentSetting.values()) {
            assertTrue(names.add(setting.argument), setting.argument);
            assertTrue(names.add(setting.property), setting.property);
        }
    }

    @Test
    void theUsageTableHasARowForEverySettingAndNoOther() throws IOException {
        // Rows of the table in "Using it in an application": | `argument=X` | `property` | ... |
        List<String> rows;
        try (Stream<String> lines = Files.lines(USAGE)) {
            rows = lines.filter(line -> line.matches("\\| `[A-Za-z.]+=[^`]*` \\| `[A-Za-z.]+` \\|.*")).toList();
        }
        Set<String> documented = rows.stream()
                .map(row -> row.substring(3, row.indexOf('=')) + " " + row.split("`")[3])
                .collect(Collectors.toSet());
        Set<String> settings = Stream.of(AgentSetting.values())
                .map(setting -> setting.argument + " " + setting.property)
                .collect(Collectors.toSet());
        assertEquals(settings, documented, "docs/usage.md's settings table against AgentSetting\n" + String.join("\n", rows));
    }
}
