package io.loomgmp.benchmarks.runner;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunnerOptionsTest {
    private static RunnerOptions parse(String... args) throws RunnerOptions.UsageException {
        return RunnerOptions.parse(List.of(args)).orElseThrow();
    }

    @Test
    void defaultsToTheFullRunOfEveryBenchmark() throws Exception {
        RunnerOptions options = parse("--agent", "a.jar", "--out", "results");
        assertEquals(Profile.FULL, options.profile());
        assertEquals(Path.of("a.jar"), options.agent());
        assertEquals(Path.of("results", "jmh.log"), options.log());
        assertEquals(Optional.empty(), options.include());
        assertEquals(Optional.empty(), options.readme());
    }

    @Test
    void readsTheProfileTheFilesAndTheRegex() throws Exception {
        RunnerOptions options = parse("--quick", "--agent", "a.jar", "--out", "r", "--readme", "README.md",
                "--log", "x.log", "Skynet|PingPong");
        assertEquals(Profile.QUICK, options.profile());
        assertEquals(Optional.of(Path.of("README.md")), options.readme());
        assertEquals(Path.of("x.log"), options.log());
        assertEquals(Optional.of("Skynet|PingPong"), options.include());
        assertEquals(Profile.SMOKE, parse("--smoke", "--agent", "a", "--out", "o").profile());
        assertEquals(Profile.FIRST_SECONDS, parse("--first-seconds", "--agent", "a", "--out", "o").profile());
        assertEquals(0, Profile.FIRST_SECONDS.warmupIterations, "a fresh JVM's first second: no warm-up");
    }

    @Test
    void readsTheNumbersOfPs() throws Exception {
        assertEquals(List.of(), parse("--agent", "a", "--out", "o").procs());
        assertEquals(List.of(2, 8, 32), parse("--agent", "a", "--out", "o", "--procs", "2,8,32").procs());
        assertEquals(List.of(0, 64), parse("--agent", "a", "--out", "o", "--procs", "0, 64", "Skynet").procs());
    }

    @Test
    void helpIsNotAnError() throws Exception {
        assertTrue(RunnerOptions.parse(List.of("--help")).isEmpty());
    }

    @Test
    void refusesWhatItCannotRun() {
        for (List<String> args : List.of(
                List.of("--agent", "a", "--out", "o", "--fast"),          // unknown option
                List.of("--out", "o"),                                   // no agent
                List.of("--agent", "a", "--out"),                        // no value
                List.of("--agent", "--out", "o"),                        // an option for a value
                List.of("--quick", "--smoke", "--agent", "a", "--out", "o"),
                List.of("--first-seconds", "--quick", "--agent", "a", "--out", "o"),
                List.of("--agent", "a", "--out", "o", "Skynet", "PingPong"),
                List.of("--agent", "a", "--out", "o", "Sky(net"),      // not a regex
                List.of("--agent", "a", "--out", "o", "--procs", "2,x"),
                List.of("--agent", "a", "--out", "o", "--procs", "-1"),
                List.of("--agent", "a", "--out", "o", "--procs", "40000"),
                List.of("--agent", "a", "--out", "o", "--procs", "8,8"),
                List.of("--agent", "a", "--out", "o", "--procs", "2,"),
                List.of("--agent", "a", "--out", "o", "--procs"))) {
            assertThrows(RunnerOptions.UsageException.class, () -> RunnerOptions.parse(args), args.toString());
        }
    }
}
