package io.loomgmp.bridge;

import io.loomgmp.bridge.agent.ForkedJvm;
import io.loomgmp.bridge.probe.BuilderWithoutFlags;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The per-builder API in a JVM started without the flags it needs. */
class GmpVirtualThreadsIT {
    @Test
    void withoutTheFlagsTheErrorNamesThem() {
        Forked jvm = ForkedJvm.withoutAgent(List.of(), BuilderWithoutFlags.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("loom-gmp needs access to JDK internals to run virtual threads on its scheduler:"
                        + " start the JVM with --add-opens java.base/java.lang=ALL-UNNAMED"
                        + " --add-exports java.base/jdk.internal.access=ALL-UNNAMED"
                        + " (or use the agent: -javaagent:loom-gmp-agent.jar, which needs neither)",
                jvm.value("error"));
    }
}
