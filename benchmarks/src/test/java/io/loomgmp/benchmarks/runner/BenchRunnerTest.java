package io.loomgmp.benchmarks.runner;

import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BenchRunnerTest {
    private static final String SKYNET = "io.loomgmp.benchmarks.SkynetBenchmark.tree";

    @Test
    void theHttpBenchmarksWarmUpLongerExceptInASmokeRun() {
        String http = "io.loomgmp.benchmarks.HttpBenchmark.requests";
        String jetty = "io.loomgmp.benchmarks.JettyBenchmark.requests";
        String tomcat = "io.loomgmp.benchmarks.TomcatBenchmark.requests";
        assertEquals(8, BenchRunner.warmupIterations(http, Profile.FULL));
        assertEquals(8, BenchRunner.warmupIterations(jetty, Profile.QUICK));
        assertEquals(8, BenchRunner.warmupIterations(tomcat, Profile.FULL));
        assertEquals(Profile.FULL.warmupIterations, BenchRunner.warmupIterations(SKYNET, Profile.FULL));
        assertEquals(Profile.SMOKE.warmupIterations, BenchRunner.warmupIterations(http, Profile.SMOKE));
    }

    @Test
    void bothSchedulersForksGetTheNumberOfPsAsAJvmArgument() {
        Path agent = Path.of("agent.jar");
        String parallelism = "-Djdk.virtualThreadScheduler.parallelism=32";
        assertEquals(List.of("-javaagent:" + agent.toAbsolutePath(), "--enable-native-access=ALL-UNNAMED", parallelism),
                BenchRunner.jvmArgsPrepend("gmp", 32, agent));
        assertEquals(List.of("--enable-native-access=ALL-UNNAMED", parallelism), BenchRunner.jvmArgsPrepend("fjp", 32, agent));
        assertEquals(List.of("--enable-native-access=ALL-UNNAMED"), BenchRunner.jvmArgsPrepend("fjp", 0, agent),
                "0 is the default: no argument");
        assertEquals(List.of("--enable-native-access=ALL-UNNAMED"), BenchRunner.jvmArgsPrepend("fjp", null, agent));
    }

    @Test
    void onlyTheBenchmarksWithAProcsParameterRunOncePerNumberOfPs() throws Exception {
        Set<String> withProcs = BenchRunner.withProcsParameter();
        assertEquals(Set.of(SKYNET, "io.loomgmp.benchmarks.FanOutBenchmark.fanOutFanIn",
                "io.loomgmp.benchmarks.PingPongBenchmark.synchronousQueue", "io.loomgmp.benchmarks.PingPongBenchmark.parkUnpark",
                "io.loomgmp.benchmarks.YieldStormBenchmark.yieldStorm",
                // a PingPongBenchmark with recordings: the same shape, so the same parameter
                "io.loomgmp.benchmarks.JfrCostPingPongBenchmark.synchronousQueue",
                "io.loomgmp.benchmarks.JfrCostPingPongBenchmark.parkUnpark"), withProcs);
        String jetty = "io.loomgmp.benchmarks.JettyBenchmark.requests";
        BenchRunner runner = new BenchRunner(RunnerOptions.parse(List.of("--agent", "a", "--out", "o", "--procs", "2,32"))
                .orElseThrow(), new PrintStream(PrintStream.nullOutputStream()));
        assertEquals(List.of(new BenchRunner.Run(SKYNET, 2), new BenchRunner.Run(SKYNET, 32), new BenchRunner.Run(jetty, null)),
                runner.runs(List.of(SKYNET, jetty), withProcs));
        BenchRunner plain = new BenchRunner(RunnerOptions.parse(List.of("--agent", "a", "--out", "o")).orElseThrow(),
                new PrintStream(PrintStream.nullOutputStream()));
        assertEquals(List.of(new BenchRunner.Run(SKYNET, null)), plain.runs(List.of(SKYNET), withProcs));
    }
}
