package io.loomgmp.trace;

import io.loomgmp.jfr.Settings;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line: what it writes where, and the one-line errors for inputs it cannot convert. */
class MainTest {
    @TempDir
    Path dir;

    private record Result(int status, String out, String err) {
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aMissingFileIsOneClearLine() {
        Path missing = dir.resolve("nope.jfr");
        Result r = run(missing.toString());
        assertEquals(1, r.status());
        assertEquals("loomgmp trace: no such file: " + missing + System.lineSeparator(), r.err());
    }

    @Test
    void aFileThatIsNotAJfrRecordingIsOneClearLine() throws Exception {
        Path text = Files.writeString(dir.resolve("notes.jfr"), "this is not a recording\n");
        Result r = run(text.toString());
        assertEquals(1, r.status());
        assertEquals("loomgmp trace: not a JFR recording: " + text + System.lineSeparator(), r.err());
        Path empty = Files.createFile(dir.resolve("empty.jfr"));
        assertEquals("loomgmp trace: not a JFR recording: " + empty + System.lineSeparator(), run(empty.toString()).err());
    }

    @Name("test.NotLoomGmp")
    @Label("Not loom-gmp")
    static final class OtherEvent extends jdk.jfr.Event {
    }

    @Test
    void aRecordingWithoutLoomGmpEventsIsOneClearLine() throws Exception {
        Path file = dir.resolve("other.jfr");
        try (Recording recording = new Recording()) {
            recording.enable(OtherEvent.class);
            recording.start();
            for (int i = 0; i < 3; i++) {
                new OtherEvent().commit();
            }
            recording.stop();
            recording.dump(file);
        }
        Result r = run(file.toString());
        assertEquals(1, r.status());
        assertEquals("loomgmp trace: no loom-gmp events in " + file + " (3 other events): "
                + RecordingReader.HOW_TO_RECORD + System.lineSeparator(), r.err());
        assertTrue(!Files.exists(dir.resolve("trace.json")), "nothing written");
    }

    @Test
    void aTruncatedRecordingIsReportedAsDamaged() throws Exception {
        TraceFixture.ensure();
        byte[] whole = Files.readAllBytes(TraceFixture.RECORDING);
        Path cut = Files.write(dir.resolve("cut.jfr"), Arrays.copyOf(whole, whole.length / 2));
        Result r = run(cut.toString());
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().startsWith("loomgmp trace: " + cut + " is damaged or truncated"), r.err());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
    }

    @Test
    void outputGoesToTheGivenDirectoryWithProgressOnStandardError() throws Exception {
        TraceFixture.ensure();
        Path out = dir.resolve("out");
        System.setProperty("loomgmp.trace.progressEvery", "10");
        Result r;
        try {
            r = run(TraceFixture.RECORDING.toString(), "-o", out.toString());
        } finally {
            System.clearProperty("loomgmp.trace.progressEvery");
        }
        assertEquals(0, r.status(), r.err());
        assertEquals(out.resolve("trace.json") + System.lineSeparator() + out.resolve("trace.html")
                + System.lineSeparator(), r.out());
        assertTrue(r.err().contains("loomgmp trace: read 10 events (10 loom-gmp) in "), r.err());
        assertTrue(r.err().contains("loomgmp trace: read 20 events"), r.err());
        assertTrue(r.err().lines().anyMatch(l -> l.matches("loomgmp trace: \\d+ events \\(\\d+ loom-gmp: 46 runs on 2 Ps, "
                + "1 steals, 2 preemptions, 1 hand-offs\\) -> \\d+ trace events in .*")), r.err());
        assertTrue(Files.size(out.resolve("trace.json")) > 1000);
        assertTrue(Files.readString(out.resolve("trace.html")).contains("Proc 1"));
    }

    @Test
    void theSummaryGivesTheSchedulingLatencyOverallAndPerP() throws Exception {
        String err = TraceFixture.stderr();
        // The synthetic recording: the chain's 29 runs after the first and the outside-woken run
        // follow a wake-up, all on P0; 16 runs (the chain's first, the stolen, the blocked one and
        // those after the hand-off, which only yield) have none.
        assertTrue(err.lines().anyMatch(l -> l.matches("loomgmp trace: scheduling latency \\(runnable → running\\) of"
                + " 30 waits: p50 [^,]+, p90 [^,]+, p99 [^,]+, max [^,(]+ \\(VT \\d+ on P0\\); 16 runs with no wake-up"
                + " before them add no wait")), err);
        assertTrue(err.lines().anyMatch(l -> l.matches("loomgmp trace: scheduling latency per P: P0 p50 [^·]+ · P1 no waits")),
                err);
    }

    @Test
    void pastSixteenPsTheLatencyPerPIsLeftToThePage() {
        TraceModel m = new TraceModel("t");
        m.wakes.add(new TraceModel.Wake(1_000, 16, 31, 5, "local"));
        m.runs.add(new TraceModel.Run(16, 31, 5, 3_500, 10, "local", "parked"));
        m.sort();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main.printLatency(ThreadAnalysis.of(m, 17), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals("loomgmp trace: scheduling latency (runnable → running) of 1 wait: p50 2.5 µs, p90 2.5 µs,"
                + " p99 2.5 µs, max 2.5 µs (VT 5 on P16); 0 runs with no wake-up before them add no wait"
                + System.lineSeparator() + "loomgmp trace: scheduling latency per P: 17 Ps, in trace.html"
                + System.lineSeparator(), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void badArgumentsPrintTheUsageAndExitTwo() {
        Result none = run();
        assertEquals(2, none.status());
        assertTrue(none.err().startsWith("usage: java -jar loom-gmp-trace.jar RECORDING.jfr [-o OUTDIR]"), none.err());
        Result extra = run("a.jfr", "b.jfr");
        assertEquals(2, extra.status());
        assertTrue(extra.err().startsWith("loomgmp trace: unexpected argument 'b.jfr'"), extra.err());
        assertEquals(2, run("--frobnicate").status());
        assertEquals(0, run("--help").status());
    }

    @Test
    void theSettingsFilesCanBePrinted() {
        Result trace = run("--print-jfc", "trace");
        assertEquals(0, trace.status());
        assertEquals(Settings.text(Settings.TRACE), trace.out());
        assertEquals(Settings.text(Settings.ALWAYS_ON), run("--print-jfc", "always").out());
        Result bad = run("--print-jfc", "everything");
        assertEquals(2, bad.status());
        assertEquals("loomgmp trace: --print-jfc takes 'always' or 'trace', not 'everything'" + System.lineSeparator(),
                bad.err());
    }

    @Test
    void topIsTheLiveConsoleWithItsOwnUsageAndErrors() {
        Result help = run("top", "--help");
        assertEquals(0, help.status());
        assertEquals(Top.USAGE + System.lineSeparator(), help.out());
        Result noPid = run("top");
        assertEquals(2, noPid.status());
        assertTrue(noPid.err().startsWith("loomgmp top: top needs the pid of a JVM running loom-gmp"), noPid.err());
        assertTrue(run("--help").out().contains("java -jar loom-gmp-trace.jar top PID"), "the viewer's usage names it");
    }
}
