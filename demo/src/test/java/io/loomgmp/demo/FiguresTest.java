package io.loomgmp.demo;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FiguresTest {
    @Test
    void figuresKeepThreeSignificantDigitsAndNeverRoundToZero() {
        assertEquals("12,345", Figures.of(12_345.4));
        assertEquals("677", Figures.of(676.6));
        assertEquals("71.2", Figures.of(71.24));
        assertEquals("1.06", Figures.of(1.056));
        assertEquals("0.997", Figures.of(0.9971));
        assertEquals("0.001", Figures.of(0.0012));
    }

    @Test
    void ratiosAreOnlyOfTwoFigures() {
        assertEquals("0.40", Figures.ratio(677, 1_696));
        assertEquals("18.6", Figures.ratio(21_846, 1_176));
        assertEquals("1,880", Figures.ratio(52_634, 28));
        assertEquals("-", Figures.ratio(-1, 5), "none or starved has no ratio");
        assertEquals("-", Figures.ratio(5, 0), "nor has a figure over 0");
        assertEquals("0.00", Figures.ratio(0, 26));
    }

    @Test
    void millisCountsAndDurations() {
        assertEquals("none", Figures.millis(-1));
        assertEquals("2,321", Figures.millis(2_321_000));
        assertEquals("52,634", Figures.count(52_634));
        assertEquals("0.1", Figures.plainMillis(100));
        assertEquals("100", Figures.plainMillis(100_000));
        assertEquals("3 s", Figures.seconds(Duration.ofSeconds(3)));
        assertEquals("1.5 s", Figures.seconds(Duration.ofMillis(1_500)));
    }
}
