package agentsit;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A Jetty 12.1 server (core API, no servlets) on 127.0.0.1, an ephemeral port, whose requests run
 * each on a new virtual thread, as benchmarks' JettyApp sets it up: platform threads select, the
 * handler is BLOCKING, and with no reserved threads Jetty hands every request to its
 * virtual-threads executor. Every GET answers the handling thread's {@code toString()} (which
 * names its carrier: {@code VirtualThread[#42]/runnable@gmp-M0} on GMP) after a short loop, which
 * loom-gmp gives a preemption poll (this package is not {@code io.loomgmp.}), and the current
 * span's trace id ({@code none} without the OpenTelemetry agent).
 *
 * <p>Prints {@code port=<port>} on standard output once it serves, then serves until its standard
 * input ends, and exits with {@link System#exit} so that the agents' shutdown hooks run (JaCoCo
 * writes its exec file then).
 */
public final class JettyServer {
    private JettyServer() {
    }

    public static void main(String[] args) throws Exception {
        QueuedThreadPool platformThreads = new QueuedThreadPool();
        platformThreads.setName("jetty-platform");
        platformThreads.setReservedThreads(0);
        platformThreads.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        Server server = new Server(platformThreads);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract(Invocable.InvocationType.BLOCKING) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                byte[] body = answer(Request.getPathInContext(request)).getBytes(StandardCharsets.UTF_8);
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
                response.write(true, ByteBuffer.wrap(body), callback);
                return true;
            }
        });
        server.start();
        if (!VirtualThreads.isUseVirtualThreads(server.getThreadPool())) {
            throw new IllegalStateException("Jetty does not use its virtual-threads executor");
        }
        System.out.println("port=" + connector.getLocalPort());
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
