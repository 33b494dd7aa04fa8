package io.loomgmp.benchmarks.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JmhJsonTest {
    private static String run(String benchmark, String scheduler, double score) {
        return """
                {"benchmark": "io.loomgmp.benchmarks.%s", "mode": "avgt", "params": {"scheduler": "%s"},
                 "primaryMetric": {"score": %s, "scoreError": "NaN", "scoreUnit": "ns/op"}}"""
                .formatted(benchmark, scheduler, score);
    }

    @Test
    void pairsTheRunsOfTheTwoSchedulers() {
        List<Comparison> comparisons = JmhJson.parse("[" + run("A.x", "fjp", 2) + "," + run("B.y", "gmp", 3) + ","
                + run("A.x", "gmp", 1) + "]");
        assertEquals(2, comparisons.size());
        Comparison a = comparisons.get(0);
        assertEquals("A.x", a.label());
        assertEquals(1, a.gmp().orElseThrow().value());
        assertEquals(2, a.fjp().orElseThrow().value());
        assertTrue(Double.isNaN(a.fjp().orElseThrow().error()));
        Comparison b = comparisons.get(1);
        assertFalse(b.complete(), "B.y ran only on GMP");
        assertTrue(MarkdownTable.render(comparisons).contains("| B.y | time/op | ns/op | 3.00 ± n/a | — | — | one scheduler only |"));
    }

    private static String runWithProcs(String scheduler, String procs, double score) {
        return """
                {"benchmark": "io.loomgmp.benchmarks.SkynetBenchmark.tree", "mode": "avgt",
                 "params": {"scheduler": "%s", "leaves": "1000000", "procs": "%s"},
                 "primaryMetric": {"score": %s, "scoreError": "NaN", "scoreUnit": "ms/op"}}"""
                .formatted(scheduler, procs, score);
    }

    @Test
    void runsWithMorePsThanCoresAreToldApartAndTheDefaultKeepsItsName() {
        List<Comparison> comparisons = JmhJson.parse("[" + runWithProcs("gmp", "0", 1) + "," + runWithProcs("fjp", "0", 2)
                + "," + runWithProcs("gmp", "32", 3) + "," + runWithProcs("fjp", "32", 4) + "]");
        assertEquals(List.of("Skynet.tree (leaves=1000000)", "Skynet.tree (leaves=1000000, procs=32)"),
                comparisons.stream().map(Comparison::label).toList());
        assertEquals(3, comparisons.get(1).gmp().orElseThrow().value());
        assertEquals(4, comparisons.get(1).fjp().orElseThrow().value());
    }

    @Test
    void theDefaultJvmtiTransitionsGoUnnamedAndTheRunsWithoutThemApart() {
        String json = "[" + String.join(",",
                run("P.x", "gmp", 1).replace("{\"scheduler\": \"gmp\"}", "{\"scheduler\": \"gmp\", \"jvmtiTransitions\": \"on\"}"),
                run("P.x", "fjp", 2).replace("{\"scheduler\": \"fjp\"}", "{\"scheduler\": \"fjp\", \"jvmtiTransitions\": \"on\"}"),
                run("P.x", "gmp", 3).replace("{\"scheduler\": \"gmp\"}", "{\"scheduler\": \"gmp\", \"jvmtiTransitions\": \"off\"}"),
                run("P.x", "fjp", 4).replace("{\"scheduler\": \"fjp\"}", "{\"scheduler\": \"fjp\", \"jvmtiTransitions\": \"off\"}")) + "]";
        List<Comparison> comparisons = JmhJson.parse(json);
        assertEquals(List.of("P.x", "P.x (jvmtiTransitions=off)"), comparisons.stream().map(Comparison::label).toList());
        assertEquals(3, comparisons.get(1).gmp().orElseThrow().value());
        assertEquals(4, comparisons.get(1).fjp().orElseThrow().value());
    }

    @Test
    void refusesRunsWithoutASchedulerOrTwiceTheSame() {
        String noScheduler = """
                [{"benchmark": "x.A.x", "mode": "avgt", "params": {},
                  "primaryMetric": {"score": 1, "scoreError": 0, "scoreUnit": "ns/op"}}]""";
        assertThrows(IllegalArgumentException.class, () -> JmhJson.parse(noScheduler));
        assertThrows(IllegalArgumentException.class, () -> JmhJson.parse("[" + run("A.x", "gmp", 1) + ","
                + run("A.x", "gmp", 2) + "]"));
    }
}
