package agentsit;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

import java.io.IOException;

/**
 * What both test servers answer, and how they run: the handling thread's {@code toString()} (which
 * names its carrier: {@code VirtualThread[#42]/runnable@gmp-M0} on GMP) after a short loop, which
 * loom-gmp gives a preemption poll (this package is not {@code io.loomgmp.}), and the current
 * span's trace id ({@code none} without the OpenTelemetry agent, else the span its instrumentation
 * of the server started).
 */
final class ServedAnswer {
    private ServedAnswer() {
    }

    static String of(String path) {
        long spin = spin(path.length() + 20_000);
        SpanContext span = Span.current().getSpanContext();
        return Thread.currentThread() + " spin=" + Long.toHexString(spin)
                + " trace=" + (span.isValid() ? span.getTraceId() : "none") + "\n";
    }

    /**
     * Prints {@code port=<port>} on standard output, serves until standard input ends, then exits
     * with {@link System#exit}, so that the agents' shutdown hooks run (JaCoCo writes its exec file then).
     */
    static void serveUntilInputEnds(int port) throws IOException {
        System.out.println("port=" + port);
        System.out.flush();
        while (System.in.read() >= 0) {
            // serve until standard input ends
        }
        System.exit(0);
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
