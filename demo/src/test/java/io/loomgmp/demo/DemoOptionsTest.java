package io.loomgmp.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoOptionsTest {
    @TempDir
    Path dir;

    @Test
    void theAgentAndSmall() throws Exception {
        Path agent = Files.createFile(dir.resolve("agent.jar"));
        assertEquals(new DemoOptions(agent, true, false), DemoOptions.parse("--agent", agent.toString(), "--small"));
        assertEquals(new DemoOptions(agent, false, false), DemoOptions.parse("--agent", agent.toString()));
        assertTrue(DemoOptions.parse("--small", "--help").help());
    }

    @Test
    void badArgumentsSayWhatIsWrong() {
        assertEquals("unknown argument '--fast'",
                assertThrows(DemoOptions.UsageError.class, () -> DemoOptions.parse("--fast")).getMessage());
        assertEquals("--agent needs the path of loom-gmp-agent.jar",
                assertThrows(DemoOptions.UsageError.class, () -> DemoOptions.parse("--agent")).getMessage());
        assertTrue(assertThrows(DemoOptions.UsageError.class, () -> DemoOptions.parse("--small")).getMessage()
                .startsWith("--agent is required"));
        assertTrue(assertThrows(DemoOptions.UsageError.class,
                () -> DemoOptions.parse("--agent", dir.resolve("missing.jar").toString())).getMessage()
                .startsWith("no agent jar at"));
    }
}
