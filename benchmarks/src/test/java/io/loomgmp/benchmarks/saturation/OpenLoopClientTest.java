package io.loomgmp.benchmarks.saturation;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class OpenLoopClientTest {
    @Test
    void readsItsCommandLineAndWritesItBack() {
        OpenLoopClient.Settings settings = OpenLoopClient.Settings.parse(List.of("--port", "8080", "--path", "/cpu?us=1000",
                "--rate", "812.5", "--connections", "64", "--warmup", "2", "--duration", "0.5"));
        assertEquals(new OpenLoopClient.Settings(8080, "/cpu?us=1000", 812.5, 64, 2, 0.5, 30), settings);
        assertEquals(settings, OpenLoopClient.Settings.parse(settings.arguments()), "what the runner passes is read back");
    }

    @Test
    void refusesWhatItCannotRun() {
        List<List<String>> bad = List.of(
                List.of("--port", "8080"),
                List.of("--port", "0", "--path", "/", "--rate", "1", "--connections", "1", "--warmup", "0", "--duration", "1"),
                List.of("--port", "80", "--path", "x", "--rate", "1", "--connections", "1", "--warmup", "0", "--duration", "1"),
                List.of("--port", "80", "--path", "/", "--rate", "0", "--connections", "1", "--warmup", "0", "--duration", "1"),
                List.of("--port", "80", "--path", "/", "--rate", "1", "--connections", "0", "--warmup", "0", "--duration", "1"),
                List.of("--port", "80", "--path", "/", "--rate", "1", "--connections", "1", "--warmup", "-1", "--duration", "1"),
                List.of("--port", "80", "--path", "/", "--rate", "x", "--connections", "1", "--warmup", "0", "--duration", "1"),
                List.of("--port", "80", "--path", "/", "--rate", "1", "--connections", "1", "--warmup", "0", "--duration"),
                List.of("--port", "80", "--path", "/", "--rate", "1", "--connections", "1", "--warmup", "0", "--duration", "1",
                        "--bogus", "1"));
        for (List<String> args : bad) {
            assertThrows(IllegalArgumentException.class, () -> OpenLoopClient.Settings.parse(args), args.toString());
        }
    }
}
