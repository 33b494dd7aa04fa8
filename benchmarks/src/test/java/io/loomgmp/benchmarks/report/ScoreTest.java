package io.loomgmp.benchmarks.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScoreTest {
    @Test
    void timesPerOpAreConvertedAndThroughputsInverted() {
        Score micros = new Score(2.5, 0.5, "us/op", List.of(new Score(2.0, Double.NaN, "us/op")));
        Score nanos = micros.perOp("ns/op");
        assertEquals(2_500, nanos.value(), 1e-9);
        assertEquals(500, nanos.error(), 1e-9);
        assertEquals("ns/op", nanos.unit());
        assertEquals(2_000, nanos.forks().get(0).value(), 1e-9);

        Score perSecond = new Score(4_000, 400, "ops/s");
        Score perOp = perSecond.perOp("us/op");
        assertEquals(250, perOp.value(), 1e-9); // 1 s / 4,000
        assertEquals(25, perOp.error(), 1e-9); // the same 10 %
        assertEquals(0.25, new Score(4, Double.NaN, "ops/ms").perOp("ms/op").value(), 1e-12);
        assertTrue(Double.isNaN(new Score(4, Double.NaN, "ops/ms").perOp("ms/op").error()));

        assertThrows(IllegalArgumentException.class, () -> new Score(1, 0, "ms").perOp("ns/op"), "a latency");
        assertThrows(IllegalArgumentException.class, () -> micros.perOp("ns"));
        assertThrows(IllegalArgumentException.class, () -> new Score(1, 0, "parsecs/op").perOp("ns/op"));
    }

    @Test
    void forksDisagreeWhenTheirMeansSpreadOverTenPerCentOfTheScore() {
        Score low = new Score(1_000, Double.NaN, "ns/op");
        Score high = new Score(3_000, Double.NaN, "ns/op");
        Score near = new Score(1_080, Double.NaN, "ns/op");
        assertTrue(new Score(2_000, 1_500, "ns/op", List.of(low, high)).forksDisagree());
        assertFalse(new Score(1_040, 60, "ns/op", List.of(low, near)).forksDisagree(), "80 is 7.7 % of 1,040");
        assertTrue(new Score(1_040, 60, "ns/op", List.of(low, new Score(1_110, Double.NaN, "ns/op"))).forksDisagree(),
                "110 is 10.6 % of 1,040");
        assertFalse(new Score(1_000, 50, "ns/op", List.of(low)).forksDisagree(), "one fork");
        assertEquals("1,040 ± 60", new Score(1_040, 60, "ns/op", List.of(low, near)).textWithForks());
        assertEquals("2.00 ± 0.10 (forks 1.00 / 2.50 / 2.50)", new Score(2, 0.1, "us/op", List.of(
                new Score(1, Double.NaN, "us/op"), new Score(2.5, Double.NaN, "us/op"),
                new Score(2.5, Double.NaN, "us/op"))).textWithForks());
    }
}
