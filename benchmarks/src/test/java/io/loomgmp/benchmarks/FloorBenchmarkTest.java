package io.loomgmp.benchmarks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The floor's parts outside JMH. The continuation itself runs in the smoke run's forks, which
 * have the export; this JVM has not, and says so.
 */
class FloorBenchmarkTest {
    @Test
    void withoutTheExportTheContinuationFloorNamesTheFlagItNeeds() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new FloorBenchmark.BareContinuation().create());
        assertTrue(e.getMessage().contains("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"), e.getMessage());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void thePlatformEchoAnswersEveryRoundTripAndEnds() throws Exception {
        FloorBenchmark.PlatformEcho echo = new FloorBenchmark.PlatformEcho();
        echo.start();
        echo.recordDriver();
        for (int i = 0; i < 1_000; i++) {
            echo.roundTrip(); // returns only once the echo thread handed the turn back
        }
        echo.stop();
        assertFalse(echo.echoThread().isAlive());
        assertFalse(echo.echoThread().isVirtual(), "the OS-level wake-up: a platform thread");
    }

    @Test
    void theFloorRefusesAVirtualBenchmarkThread() throws Exception {
        Throwable[] thrown = new Throwable[1];
        Thread.ofVirtual().start(() -> {
            try {
                new FloorBenchmark().requirePlatformBenchmarkThread();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        }).join();
        assertTrue(thrown[0] instanceof IllegalStateException, String.valueOf(thrown[0]));
    }
}
