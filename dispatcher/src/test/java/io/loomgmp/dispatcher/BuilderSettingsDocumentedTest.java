package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/configuration.md's builder table has a row for every setting of {@link GmpScheduler.Builder}
 * (each public method but {@code build()}), named with its parameter type, and no other.
 */
class BuilderSettingsDocumentedTest {
    /** Tests run in the module's directory; docs/ is the repository's. */
    private static final Path CONFIGURATION = Path.of("..", "docs", "configuration.md");
    private static final Pattern ROW = Pattern.compile("^\\| `([a-zA-Z]+\\([A-Za-z]+\\))` \\|", Pattern.MULTILINE);

    @Test
    void everyBuilderSettingHasARow() throws IOException {
        Set<String> documented = new TreeSet<>();
        Matcher m = ROW.matcher(Files.readString(CONFIGURATION));
        while (m.find()) {
            documented.add(m.group(1));
        }
        Set<String> inCode = Stream.of(GmpScheduler.Builder.class.getDeclaredMethods())
                .filter(method -> Modifier.isPublic(method.getModifiers()) && !method.getName().equals("build"))
                .map(BuilderSettingsDocumentedTest::signature)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(inCode, documented, "docs/configuration.md's builder table against GmpScheduler.Builder");
    }

    private static String signature(Method method) {
        return method.getName() + Stream.of(method.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(",", "(", ")"));
    }
}
