package io.loomgmp.soak;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoakOptionsTest {
    @Test
    void defaults() throws Exception {
        SoakOptions options = SoakOptions.parse();
        assertEquals(Duration.ofMinutes(10), options.duration());
        assertEquals(4, options.maxProcs());
        assertEquals(Duration.ofSeconds(5), options.progress());
        assertFalse(options.help());
        assertTrue(SoakOptions.parse().seed() != SoakOptions.parse().seed(), "a new seed each run");
    }

    @Test
    void eachOptionTakesItsValueAfterASpaceOrAnEqualsSign() throws Exception {
        SoakOptions options = SoakOptions.parse("--duration", "30m", "--seed=-42", "--max-procs", "8", "--progress=2s");
        assertEquals(Duration.ofMinutes(30), options.duration());
        assertEquals(-42, options.seed());
        assertEquals(8, options.maxProcs());
        assertEquals(Duration.ofSeconds(2), options.progress());
        assertEquals(Duration.ofHours(2), SoakOptions.parse("--duration=2h").duration());
        assertEquals(Duration.ofDays(7), SoakOptions.parse("--duration", "7d").duration());
        assertEquals(Duration.ofSeconds(10), SoakOptions.parse("--duration", "10000ms").duration());
    }

    @Test
    void helpWinsOverEverythingElse() throws Exception {
        assertTrue(SoakOptions.parse("--duration", "30m", "--help").help());
        assertTrue(SoakOptions.parse("-h").help());
    }

    @Test
    void badArgumentsNameTheOptionTheValueAndWhatIsAccepted() {
        assertBad("--duration takes a number and a unit (ms, s, m, h or d), like 90s or 30m, was '30'", "--duration", "30");
        assertBad("--duration takes a number and a unit (ms, s, m, h or d), like 90s or 30m, was '1.5h'", "--duration=1.5h");
        assertBad("--duration must be from 10s to 7d, was '9s'", "--duration", "9s");
        assertBad("--duration must be from 10s to 7d, was '8d'", "--duration", "8d");
        assertBad("--duration needs a value", "--duration");
        assertBad("--progress must be from 1s to 7d, was '500ms'", "--progress", "500ms");
        assertBad("--seed takes a whole number (a long), was 'abc'", "--seed", "abc");
        assertBad("--max-procs takes a number from 1 to 32, was '0'", "--max-procs", "0");
        assertBad("--max-procs takes a number from 1 to 32, was '33'", "--max-procs=33");
        assertBad("--max-procs takes a number from 1 to 32, was 'four'", "--max-procs", "four");
        assertBad("unknown option '--procs'", "--procs", "4");
        assertBad("unknown option '--duration30m'", "--duration30m");
        assertBad("unexpected argument '30m': each value follows its option, as in --duration 30m", "30m");
    }

    @Test
    void durationsAreWrittenAsTheOptionsTakeThem() {
        assertEquals("10s", SoakOptions.text(Duration.ofSeconds(10)));
        assertEquals("90s", SoakOptions.text(Duration.ofSeconds(90)));
        assertEquals("30m", SoakOptions.text(Duration.ofMinutes(30)));
        assertEquals("2h", SoakOptions.text(Duration.ofHours(2)));
        assertEquals("7d", SoakOptions.text(Duration.ofDays(7)));
        assertEquals("1500ms", SoakOptions.text(Duration.ofMillis(1500)));
    }

    private static void assertBad(String message, String... args) {
        SoakOptions.BadArgument e = assertThrows(SoakOptions.BadArgument.class, () -> SoakOptions.parse(args));
        assertEquals(message, e.getMessage());
    }
}
