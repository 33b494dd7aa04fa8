package io.loomgmp.bridge.agent;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one list of settings: unique names, and docs/configuration.md's table says of each one what
 * the code says (the texts {@code java -jar loom-gmp-agent.jar} prints), with no row the code lacks.
 */
class AgentSettingTest {
    /** Tests run in the module's directory; docs/ is the repository's. */
    private static final Path CONFIGURATION = Path.of("..", "docs", "configuration.md");

    @Test
    void argumentsAndPropertiesAreUnique() {
        Set<String> names = new HashSet<>();
        for (AgentSetting setting : AgentSetting.values()) {
            assertTrue(names.add(setting.argument), setting.argument);
            assertTrue(names.add(setting.property), setting.property);
        }
    }

    @Test
    void theConfigurationTableSaysOfEverySettingWhatTheCodeSays() throws IOException {
        // | `argument=FORM` | `property` | accepted | default | changes at run time |
        List<String> rows;
        try (Stream<String> lines = Files.lines(CONFIGURATION)) {
            rows = lines.filter(line -> line.matches("\\| `[A-Za-z.]+=[^`]*` \\| `[A-Za-z.]+` \\|.*")).toList();
        }
        Map<String, String> documented = new TreeMap<>();
        for (String row : rows) {
            List<String> cells = cells(row);
            assertEquals(5, cells.size(), "five columns: " + row);
            documented.put(cells.get(0), String.join(" | ", cells));
        }
        Map<String, String> inCode = Stream.of(AgentSetting.values()).collect(Collectors.toMap(
                AgentSetting::argumentForm,
                s -> String.join(" | ", s.argumentForm(), s.property, s.accepted, s.defaultValue,
                        s.changesAtRunTime() ? "yes" : "no"),
                (a, b) -> a, TreeMap::new));
        assertEquals(inCode, documented, "docs/configuration.md's settings table against AgentSetting");
    }

    /** A markdown row's cells, without the code spans' backticks and with {@code \|} as {@code |}. */
    private static List<String> cells(String row) {
        String inner = row.substring(1, row.length() - 1).replace("\\|", "\u0000");
        return Stream.of(inner.split("\\|"))
                .map(cell -> cell.strip().replace("`", "").replace('\u0000', '|'))
                .toList();
    }
}
