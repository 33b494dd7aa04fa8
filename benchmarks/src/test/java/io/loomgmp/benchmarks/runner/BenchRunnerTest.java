package io.loomgmp.benchmarks.runner;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BenchRunnerTest {
    @Test
    void theHttpBenchmarksWarmUpLongerExceptInASmokeRun() {
        String http = "io.loomgmp.benchmarks.HttpBenchmark.requests";
        String jetty = "io.loomgmp.benchmarks.JettyBenchmark.requests";
        String tomcat = "io.loomgmp.benchmarks.TomcatBenchmark.requests";
        String skynet = "io.loomgmp.benchmarks.SkynetBenchmark.tree";
        assertEquals(8, BenchRunner.warmupIterations(http, Profile.FULL));
        assertEquals(8, BenchRunner.warmupIterations(jetty, Profile.QUICK));
        assertEquals(8, BenchRunner.warmupIterations(tomcat, Profile.FULL));
        assertEquals(Profile.FULL.warmupIterations, BenchRunner.warmupIterations(skynet, Profile.FULL));
        assertEquals(Profile.SMOKE.warmupIterations, BenchRunner.warmupIterations(http, Profile.SMOKE));
    }
}
