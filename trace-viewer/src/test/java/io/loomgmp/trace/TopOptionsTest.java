package io.loomgmp.trace;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code loomgmp top}'s arguments: what each means, and one clear line for each mistake. */
class TopOptionsTest {
    @Test
    void aPidAloneRunsUntilQuitEverySecondAndTracesFiveSecondsOnT() {
        TopOptions o = TopOptions.parse("4242");
        assertEquals(4242, o.pid());
        assertTrue(o.interactive());
        assertEquals(Duration.ofSeconds(1), o.interval());
        assertNull(o.traceNow());
        assertEquals(Duration.ofSeconds(5), o.traceFor());
    }

    @Test
    void theOptionsInAnyOrder() {
        TopOptions o = TopOptions.parse("--frames", "3", "--interval", "500ms", "17", "--trace", "2s");
        assertEquals(17, o.pid());
        assertEquals(3, o.frames());
        assertFalse(o.interactive());
        assertEquals(Duration.ofMillis(500), o.interval());
        assertEquals(Duration.ofSeconds(2), o.traceNow());
        assertEquals(Duration.ofSeconds(2), o.traceFor());
        assertEquals(1, TopOptions.parse("17", "--once").frames());
        assertEquals(Duration.ofMinutes(1), TopOptions.parse("17", "--trace", "1m").traceNow());
        assertEquals(Duration.ofSeconds(3), TopOptions.parse("17", "--interval", "3").interval(), "a bare number is seconds");
        assertTrue(TopOptions.parse("--help").help());
    }

    @Test
    void eachMistakeIsOneLineSayingWhatIsWrong() {
        assertMistake("top needs the pid of a JVM running loom-gmp (jps lists the JVMs)");
        assertMistake("bad pid 'abc': a process id is a positive whole number (jps lists the JVMs)", "abc");
        assertMistake("bad pid '0': a process id is a positive whole number (jps lists the JVMs)", "0");
        assertMistake("bad pid '+12': a process id is a positive whole number (jps lists the JVMs)", "+12");
        assertMistake("unexpected argument '13' (top watches one JVM, pid 12)", "12", "13");
        assertMistake("unknown option '--fast'", "12", "--fast");
        assertMistake("--trace needs a duration, e.g. --trace 5s", "12", "--trace");
        assertMistake("bad duration '5x' for --trace: write e.g. 5s, 500ms or 1m", "12", "--trace", "5x");
        assertMistake("bad duration '-1s' for --interval: write e.g. 5s, 500ms or 1m", "12", "--interval", "-1s");
        assertMistake("--trace 2m is out of range: from 100ms to 60s (tracing costs the JVM a few events per task run)",
                "12", "--trace", "2m");
        assertMistake("--interval 50ms is too short: at least 100ms", "12", "--interval", "50ms");
        assertMistake("bad number of frames '0': a whole number, at least 1", "12", "--frames", "0");
        assertMistake("--frames needs a number of frames, e.g. --frames 5", "12", "--frames", "--once");
        assertMistake("--once and --frames exclude each other (--once is --frames 1)", "12", "--once", "--frames", "2");
        assertMistake("--interval given twice", "12", "--interval", "1s", "--interval", "2s");
    }

    @Test
    void theCommandPrintsTheMistakeAndItsUsageAndExitsWithTwo() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Top.run(new String[] {"12", "--trace", "soon"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        String[] lines = err.toString(StandardCharsets.UTF_8).split("\\R");
        assertEquals("loomgmp top: bad duration 'soon' for --trace: write e.g. 5s, 500ms or 1m", lines[0]);
        assertEquals(Top.USAGE.lines().findFirst().orElseThrow(), lines[1]);
    }

    @Test
    void aPidWithNoProcessIsOneLineAndStatusOne() {
        long unused = ProcessHandle.current().pid();
        do {
            unused += 7919; // a prime stride well past any pid this JVM started
        } while (ProcessHandle.of(unused).isPresent());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Top.run(new String[] {String.valueOf(unused), "--once"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(1, status);
        assertEquals("loomgmp top: no process with pid " + unused + System.lineSeparator(),
                err.toString(StandardCharsets.UTF_8));
        ByteArrayOutputStream self = new ByteArrayOutputStream();
        assertEquals(1, Top.run(new String[] {String.valueOf(ProcessHandle.current().pid())},
                new ByteArrayInputStream(new byte[0]), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(self, true, StandardCharsets.UTF_8)));
        assertEquals("loomgmp top: pid " + ProcessHandle.current().pid() + " is this console itself"
                + System.lineSeparator(), self.toString(StandardCharsets.UTF_8));
    }

    private static void assertMistake(String message, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TopOptions.parse(args));
        assertEquals(message, e.getMessage());
    }
}
