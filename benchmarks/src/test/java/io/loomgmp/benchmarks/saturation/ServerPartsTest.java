package io.loomgmp.benchmarks.saturation;

import benchapp.CalibratedBurn;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The servers' parts that need no socket: the scheduler check, the endpoints, the HTTP parsing. */
class ServerPartsTest {
    @Test
    void theNamedAgentsClassesComeBeforeTheBenchmarksJarsCopies() {
        // The benchmarks jar bundles loom-gmp's classes: with --agent OTHER.jar, OTHER's must run.
        java.util.List<String> gmp = ServerProcess.command(java.nio.file.Path.of("java"), "benchmarks.jar",
                java.util.Optional.of(java.nio.file.Path.of("/agents/other.jar")), "vthread", java.util.OptionalDouble.empty());
        assertEquals("-javaagent:/agents/other.jar", gmp.get(1));
        assertEquals("/agents/other.jar" + java.io.File.pathSeparator + "benchmarks.jar", gmp.get(gmp.indexOf("-cp") + 1));
        java.util.List<String> fjp = ServerProcess.command(java.nio.file.Path.of("java"), "benchmarks.jar",
                java.util.Optional.empty(), "vthread", java.util.OptionalDouble.empty());
        assertEquals("benchmarks.jar", fjp.get(fjp.indexOf("-cp") + 1));
        assertFalse(fjp.stream().anyMatch(arg -> arg.startsWith("-javaagent")));
    }

    @Test
    void aVirtualThreadsNameTellsItsScheduler() throws Exception {
        assertEquals("gmp", ServerStats.schedulerOf("VirtualThread[#42]/runnable@gmp-M0"));
        assertEquals("fjp", ServerStats.schedulerOf("VirtualThread[#42]/runnable@ForkJoinPool-1-worker-1"));
        assertEquals("other", ServerStats.schedulerOf("VirtualThread[#42]/runnable"));
        assertEquals("other", ServerStats.schedulerOf("Thread[#1,main,5,main]"));
        assertEquals("fjp", ServerStats.probeScheduler(), "this test JVM runs without the agent");
    }

    @Test
    void theStatsLineReadsBackAndTheCheckFailsOffTheNamedScheduler() {
        ServerStats.Snapshot gmp = new ServerStats.Snapshot(123, 45, 6, "gmp", 20, 0, 0, 611.5, null,
                new java.util.TreeMap<>(java.util.Map.of("/cpu?us=1000", 7L, "/hog?ms=100..200", 9L)));
        assertEquals(gmp, ServerStats.Snapshot.parse(gmp.line() + "\n"));
        assertTrue(gmp.line().contains(" work.%2Fhog%3Fms%3D100..200=9"), "a target is one word of the line: " + gmp.line());
        assertEquals(9, ServerStats.Snapshot.parse(gmp.line()).workSteps("/hog?ms=100..200"));
        assertEquals(0, gmp.workSteps("/sleep"), "no request of the class yet: no work");
        assertNull(gmp.wrongScheduler("gmp"));
        assertTrue(gmp.wrongScheduler("fjp").contains("run on gmp, not fjp"), gmp.wrongScheduler("fjp"));

        ServerStats.Snapshot leaked = new ServerStats.Snapshot(1, 2, 0, "gmp", 20, 3, 0, 611.5, "VirtualThread[#9]/runnable@x y",
                new java.util.TreeMap<>());
        ServerStats.Snapshot read = ServerStats.Snapshot.parse(leaked.line());
        assertEquals("VirtualThread[#9]/runnable@x_y", read.firstOther(), "one word on the line");
        assertEquals(3, read.onFjp());
        assertTrue(leaked.wrongScheduler("gmp").startsWith("3 sampled requests ran off gmp's carriers"), leaked.wrongScheduler("gmp"));
        assertEquals("no request was sampled: nothing shows which scheduler ran them",
                new ServerStats.Snapshot(1, 0, 0, "fjp", 0, 0, 0, 1, null, new java.util.TreeMap<>()).wrongScheduler("fjp"));
        assertThrows(IllegalArgumentException.class, () -> ServerStats.Snapshot.parse("cpu_ns=1 requests=2"));
        assertThrows(IllegalArgumentException.class, () -> ServerStats.Snapshot.parse(gmp.line().replace("cpu_ns=123", "cpu_ns=x")));
    }

    @Test
    void theEndpointsAnswerAndRefuseWhatTheyCannotDo() {
        ServerStats stats = new ServerStats("fjp", 600);
        Endpoints endpoints = new Endpoints(CalibratedBurn.of(600), stats);
        assertEquals(200, endpoints.answer("/cpu", "us=10").status());
        assertEquals(200, endpoints.answer("/handoff", "us=10").status());
        assertEquals(200, endpoints.answer("/sleep", null).status());
        Endpoints.Answer hog = endpoints.answer("/hog", "ms=1..2");
        assertEquals(200, hog.status());
        assertTrue(new String(hog.body(), StandardCharsets.US_ASCII).matches("[12] ms [0-9a-f]+\n"), new String(hog.body()));
        assertEquals(404, endpoints.answer("/nope", null).status());
        assertEquals(400, endpoints.answer("/cpu", null).status());
        assertEquals(400, endpoints.answer("/cpu", "us=-1").status());
        assertEquals(400, endpoints.answer("/cpu", "us=99999999").status());
        assertEquals(400, endpoints.answer("/hog", "ms=2..1").status());
        ServerStats.Snapshot after = ServerStats.Snapshot.parse(new String(endpoints.answer("/stats", null).body(), StandardCharsets.US_ASCII));
        assertEquals(9, after.requests(), "/stats is not counted");
        assertEquals(0, after.inflight());
        assertTrue(after.cpuNanos() > 0);
        // This test's thread is a platform thread: a server whose handlers ran here would fail the check.
        assertEquals(9, after.onOther());
        assertTrue(after.wrongScheduler("fjp").contains("ran off fjp's carriers"), after.wrongScheduler("fjp"));
        // each class's work, counted by its target, at 600 steps a µs; none for the sleeper or the refused
        assertEquals(10 * 600, after.workSteps("/cpu?us=10"));
        assertEquals(10 * 600, after.workSteps("/handoff?us=10"), "the worker's work counts for the handler's class");
        long hogSteps = after.workSteps("/hog?ms=1..2");
        assertTrue(hogSteps == 1_000 * 600 || hogSteps == 2_000 * 600, "1 or 2 ms: " + hogSteps);
        assertEquals(java.util.Set.of("/cpu?us=10", "/handoff?us=10", "/hog?ms=1..2"), after.workSteps().keySet());
    }

    @Test
    void queryParameters() {
        assertEquals("1000", Endpoints.param("us=1000", "us"));
        assertEquals("7", Endpoints.param("x=1&us=7", "us"));
        assertThrows(IllegalArgumentException.class, () -> Endpoints.param("ux=1", "us"));
        assertThrows(IllegalArgumentException.class, () -> Endpoints.param(null, "us"));
        assertEquals(1000, Endpoints.micros("us=1000", "us"));
        assertArrayEquals(new long[] {100, 200}, Endpoints.millisRange("100..200"));
        assertArrayEquals(new long[] {150, 150}, Endpoints.millisRange("150"));
        assertThrows(IllegalArgumentException.class, () -> Endpoints.millisRange("100.."));
        assertThrows(IllegalArgumentException.class, () -> Endpoints.millisRange("-1..2"));
    }

    @Test
    void requestHeadsAreParsedMinimally() {
        PlainServer.Request request = PlainServer.parse("GET /cpu?us=1000 HTTP/1.1\r\nHost: 127.0.0.1:8080");
        assertEquals(new PlainServer.Request("/cpu", "us=1000", true), request);
        assertEquals(new PlainServer.Request("/sleep", null, false), PlainServer.parse("GET /sleep HTTP/1.1\r\nConnection: close"));
        assertEquals(new PlainServer.Request("/x", null, false), PlainServer.parse("GET /x HTTP/1.0"));
        assertEquals(new PlainServer.Request("/x", null, true), PlainServer.parse("GET /x HTTP/1.0\r\nconnection: Keep-Alive"));
        assertNull(PlainServer.parse("GET /x"));
        assertNull(PlainServer.parse("GET x HTTP/1.1"));
        assertNull(PlainServer.parse("HELLO"));
        assertEquals(0, PlainServer.contentLength("GET / HTTP/1.1"));
        assertEquals(12, PlainServer.contentLength("POST / HTTP/1.1\r\nContent-Length:  12 "));
        assertEquals(-1, PlainServer.contentLength("POST / HTTP/1.1\r\nContent-Length: x"));
    }

    @Test
    void theHeadReaderReadsPipelinedRequestsAndSkipsBodies() throws IOException {
        String stream = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /b?q=1 HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"
                + "GET /c HTTP/1.1\r\nConnection: close\r\n\r\n"
                + "GET /partial HTTP/1.1\r\n";
        PlainServer.HeadReader reader = new PlainServer.HeadReader(new ByteArrayInputStream(stream.getBytes(StandardCharsets.US_ASCII)));
        assertEquals(new PlainServer.Request("/a", null, true), reader.next());
        assertEquals(new PlainServer.Request("/b", "q=1", true), reader.next());
        assertEquals(new PlainServer.Request("/c", null, false), reader.next());
        assertNull(reader.next(), "the stream ended inside a head");
    }

    @Test
    void responsesAreHttp11WithTheirLength() throws IOException {
        String keepAlive = new String(PlainServer.response(Endpoints.Answer.ok("hi\n"), true), StandardCharsets.US_ASCII);
        assertEquals("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nhi\n", keepAlive);
        String close = new String(PlainServer.response(Endpoints.Answer.error(404, "no"), false), StandardCharsets.US_ASCII);
        assertTrue(close.startsWith("HTTP/1.1 404 Error\r\n") && close.contains("\r\nConnection: close\r\n"), close);
        assertEquals(404, HttpConnection.status(close));
        assertThrows(IOException.class, () -> HttpConnection.status("SSH-2.0-OpenSSH"));
        assertFalse(keepAlive.contains("Connection:"));
    }
}
