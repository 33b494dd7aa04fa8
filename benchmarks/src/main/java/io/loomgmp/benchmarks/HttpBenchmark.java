package io.loomgmp.benchmarks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * HTTP: the JDK's {@code com.sun.net.httpserver} server with a virtual thread per request
 * ({@link Executors#newVirtualThreadPerTaskExecutor()}, so on the scheduler under test), loaded
 * over loopback by a {@link LoopbackClient} with {@value #CONCURRENCY} requests in flight per
 * invocation. The score is requests per second, and {@code ·request.p50/p99} each request's
 * latency as the client sees it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HttpBenchmark extends OnScheduler {
    static final int CONCURRENCY = 16;
    private static final Latencies.Stripes REQUEST = Latencies.recorder("request");
    private static final byte[] BODY = "hello from a virtual thread\n".repeat(8).getBytes(StandardCharsets.US_ASCII);

    private HttpServer server;
    private ExecutorService perRequest;
    private LoopbackClient client;
    private HttpRequest request;

    @Setup(Level.Trial)
    public void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        perRequest = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(perRequest);
        server.createContext("/hello", HttpBenchmark::hello);
        server.start();
        client = new LoopbackClient();
        request = LoopbackClient.get(server.getAddress().getPort(), "/hello");
    }

    private static void hello(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
            in.transferTo(OutputStream.nullOutputStream());
            if (!Thread.currentThread().isVirtual()) {
                throw new IllegalStateException("request handled on a platform thread");
            }
            exchange.sendResponseHeaders(200, BODY.length);
            out.write(BODY);
        }
    }

    @Benchmark
    @OperationsPerInvocation(CONCURRENCY)
    public void requests() throws Exception {
        client.round(request, CONCURRENCY, REQUEST, response -> {
            if (response.statusCode() != 200 || response.body().length != BODY.length) {
                throw new IllegalStateException("bad response: " + response.statusCode() + ", "
                        + response.body().length + " bytes");
            }
        });
    }

    @TearDown(Level.Trial)
    public void stopServer() {
        client.close();
        server.stop(0);
        perRequest.close();
    }
}
