package io.loomgmp.demo;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SchedulerTest {
    private static final Path AGENT = Path.of("agent.jar");

    @Test
    void eachColumnStartsItsJvmItsOwnWay() {
        assertEquals(List.of("-javaagent:agent.jar"), Scheduler.GMP.jvmArgs(AGENT));
        assertEquals(List.of(), Scheduler.FJP.jvmArgs(AGENT));
    }

    @Test
    void aJvmThatRanOnAnotherSchedulerThanItsColumnFailsTheDemo() {
        assertDoesNotThrow(() -> Scheduler.GMP.checkCarriers("server", "gmp-M*"));
        assertDoesNotThrow(() -> Scheduler.FJP.checkCarriers("server", "ForkJoinPool-1-worker-*"));
        DemoFailure steppedAside = assertThrows(DemoFailure.class,
                () -> Scheduler.GMP.checkCarriers("server", "ForkJoinPool-1-worker-*"));
        assertTrue(steppedAside.getMessage().contains("server on GMP: its virtual threads ran on ForkJoinPool"),
                steppedAside.getMessage());
        assertThrows(DemoFailure.class, () -> Scheduler.GMP.checkCarriers("server", "gmp-M*,ForkJoinPool-1-worker-*"));
        assertThrows(DemoFailure.class, () -> Scheduler.FJP.checkCarriers("server", ""));
    }
}
