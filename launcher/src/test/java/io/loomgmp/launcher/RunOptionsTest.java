package io.loomgmp.launcher;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code ./loomgmp run}'s own options, read before java's: every mistake is a usage error naming it. */
class RunOptionsTest {
    private static RunCommand.Options parse(String... args) {
        return RunCommand.parse(List.of(args));
    }

    private static String error(String... args) {
        UsageError e = assertThrows(UsageError.class, () -> parse(args));
        assertEquals("run", e.command);
        return e.getMessage();
    }

    @Test
    void theFirstArgumentThatIsNotTheLaunchersStartsJavas() {
        assertEquals(new RunCommand.Options("parallelism=4,verbose=true", "app.aot", List.of("-jar", "app.jar", "--aot", "x")),
                parse("--agent-args", "parallelism=4", "--agent-args=verbose=true", "--aot=app.aot", "-jar", "app.jar", "--aot", "x"));
        assertEquals(new RunCommand.Options("", null, List.of("--help")), parse("--", "--help"));
        assertNull(parse("--help"));
    }

    @Test
    void aMissingOrMalformedValueIsAnError() {
        assertEquals("--agent-args needs a value, e.g. --agent-args parallelism=4,verbose=true", error("--agent-args"));
        assertEquals("--agent-args takes K=V settings separated by commas, e.g. parallelism=4,verbose=true, not '-jar'",
                error("--agent-args", "-jar", "app.jar"));
        assertEquals("--aot needs the AOT cache file, e.g. --aot app.aot (written by the first run, used by the next ones)",
                error("--aot", "-jar", "app.jar"));
        assertEquals("'run' needs java arguments, e.g. ./loomgmp run -jar app.jar", error("--agent-args", "a=b"));
    }
}
