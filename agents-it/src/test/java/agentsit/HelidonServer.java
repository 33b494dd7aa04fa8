package agentsit;

import io.helidon.webserver.WebServer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/**
 * A Helidon SE 4 server on 127.0.0.1, an ephemeral port. Helidon 4 runs each request on a new
 * virtual thread by default. Every GET answers the handling thread's {@code toString()} (which
 * names its carrier: {@code VirtualThread[#42]/runnable@gmp-M0} on GMP) after a short loop, which
 * loom-gmp gives a preemption poll (this package is not {@code io.loomgmp.}), and the current
 * span's trace id ({@code none} without the OpenTelemetry agent).
 *
 * <p>Prints {@code port=<port>} on standard output once it serves, then serves until its standard
 * input ends, and exits with {@link System#exit} so that the agents' shutdown hooks run (JaCoCo
 * writes its exec file then).
 */
public final class HelidonServer {
    private HelidonServer() {
    }

    public static void main(String[] args) throws Exception {
        WebServer server = WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .routing(routing -> routing.get("/*", (request, response) ->
                        response.send(answer(request.path().path()))))
                .build()
                .start();
        System.out.println("port=" + server.port());
        System.out.flush();
        while (System.in.read() >= 0) {
            // serve until standard input ends
        }
        System.exit(0);
    }

    /**
     * The handling thread (with its carrier) after a short loop, and the trace of the current span
     * (one that the OpenTelemetry agent's instrumentation of the server started, if attached).
     */
    static String answer(String path) {
        long spin = spin(path.length() + 20_000);
        SpanContext span = Span.current().getSpanContext();
        return Thread.currentThread() + " spin=" + Long.toHexString(spin)
                + " trace=" + (span.isValid() ? span.getTraceId() : "none") + "\n";
    }

    private static long spin(int rounds) {
        long x = rounds;
        for (int i = 0; i < rounds; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }
}
