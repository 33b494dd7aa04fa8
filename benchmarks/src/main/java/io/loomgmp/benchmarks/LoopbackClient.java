package io.loomgmp.benchmarks;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The client of the HTTP benchmarks: the JDK's {@link HttpClient} on its default executor, so on
 * platform threads in both forks and only the server side differs. HTTP/1.1 over loopback;
 * every request times out after {@value #REQUEST_TIMEOUT_SECONDS} s, which fails the benchmark.
 */
final class LoopbackClient implements AutoCloseable {
    static final int REQUEST_TIMEOUT_SECONDS = 10;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(REQUEST_TIMEOUT_SECONDS)).build();

    /** {@code GET http://127.0.0.1:port/path}. */
    static HttpRequest get(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + port + path))
                .timeout(Duration.ofSeconds(REQUEST_TIMEOUT_SECONDS)).GET().build();
    }

    /**
     * Sends {@code count} copies of {@code request} at once and waits for every answer: each one's
     * latency, as this client sees it, goes to {@code latencies}, and {@code check} throws if the
     * answer is wrong, which fails the round.
     */
    void round(HttpRequest request, int count, Latencies.Stripes latencies, Consumer<HttpResponse<byte[]>> check)
            throws Exception {
        CompletableFuture<?>[] responses = new CompletableFuture<?>[count];
        for (int i = 0; i < count; i++) {
            long sent = System.nanoTime();
            responses[i] = client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenAccept(response -> {
                Latencies.record(latencies, System.nanoTime() - sent);
                check.accept(response);
            });
        }
        CompletableFuture.allOf(responses).get(2L * REQUEST_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** One request, waited for on the calling thread. */
    HttpResponse<byte[]> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    @Override
    public void close() {
        client.close();
    }
}
