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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * HTTP: the JDK's {@code com.sun.net.httpserver} server with a virtual thread per request
 * ({@link Executors#newVirtualThreadPerTaskExecutor()}, so on the scheduler under test), loaded
 * over loopback by the JDK's {@link HttpClient} with {@value #CONCURRENCY} requests in flight per
 * invocation. The score is requests per second, and {@code ·request.p50/p99} each request's
 * latency as the client sees it. The client runs on its own platform threads in both forks, so
 * only the server side differs. Bounded: each request times out after
 * {@value #REQUEST_TIMEOUT_SECONDS} s and fails the benchmark.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HttpBenchmark extends OnScheduler {
    static final int CONCURRENCY = 16;
    private static final int REQUEST_TIMEOUT_SECONDS = 10;
    private static final Latencies.Stripes REQUEST = Latencies.recorder("request");
    private static final byte[] BODY = "hello from a virtual thread\n".repeat(8).getBytes(StandardCharsets.US_ASCII);

    private HttpServer server;
    private ExecutorService perRequest;
    private HttpClient client;
    private HttpRequest request;

    @Setup(Level.Trial)
    public void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        perRequest = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(perRequest);
        server.createContext("/hello", HttpBenchmark::hello);
        server.start();
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(REQUEST_TIMEOUT_SECONDS)).build();
        request = HttpRequest.newBuilder(URI.create("http://" + InetAddress.getLoopbackAddress().getHostAddress()
                        + ":" + server.getAddress().getPort() + "/hello"))
                .timeout(Duration.ofSeconds(REQUEST_TIMEOUT_SECONDS)).GET().build();
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
        CompletableFuture<?>[] responses = new CompletableFuture<?>[CONCURRENCY];
        for (int i = 0; i < CONCURRENCY; i++) {
            long sent = System.nanoTime();
            responses[i] = client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenAccept(response -> {
                Latencies.record(REQUEST, System.nanoTime() - sent);
                if (response.statusCode() != 200 || response.body().length != BODY.length) {
                    throw new IllegalStateException("bad response: " + response.statusCode() + ", "
                            + response.body().length + " bytes");
                }
            });
        }
        CompletableFuture.allOf(responses).get(2L * REQUEST_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    @TearDown(Level.Trial)
    public void stopServer() {
        client.close();
        server.stop(0);
        perRequest.close();
    }
}
