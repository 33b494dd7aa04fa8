package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.net.http.HttpRequest;
import java.util.concurrent.TimeUnit;

/**
 * HTTP on Tomcat 11 set up for virtual threads as Spring Boot sets it up ({@link TomcatApp} says
 * how, and checks it on every request): the connector's poller, a platform thread, hands each
 * request to a new virtual thread, so every request enters the scheduler under test from outside
 * it. Loaded over loopback by a {@link LoopbackClient} as {@link JettyBenchmark}'s plain
 * background: {@value #CONCURRENCY} {@code GET /hello} in flight per invocation; the score is
 * requests per second, and {@code ·request.p50/p99} each one's latency as the client sees it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TomcatBenchmark extends OnScheduler {
    static final int CONCURRENCY = 16;
    private static final Latencies.Stripes REQUEST = Latencies.recorder("request");

    private TomcatApp app;
    private LoopbackClient client;
    private HttpRequest hello;
    private TomcatApp.Stats iterationStart;

    @Setup(Level.Trial)
    public void startServer() throws Exception {
        app = TomcatApp.start();
        client = new LoopbackClient();
        hello = LoopbackClient.get(app.port(), "/hello");
    }

    @Setup(Level.Iteration)
    public void markIteration() {
        iterationStart = app.stats();
    }

    @Benchmark
    @OperationsPerInvocation(CONCURRENCY)
    public void requests() throws Exception {
        client.round(hello, CONCURRENCY, REQUEST, response -> {
            if (response.statusCode() != 200 || response.body().length != TomcatApp.HELLO.length) {
                String violation = app.violation();
                throw new IllegalStateException("bad response to /hello: " + response.statusCode() + ", "
                        + response.body().length + " bytes" + (violation != null ? "; " + violation : ""));
            }
        });
    }

    /** After each iteration: every request of it ran on a virtual thread that a platform thread of Tomcat's handed over. */
    @TearDown(Level.Iteration)
    public void check() {
        TomcatApp.Stats iteration = app.stats().minus(iterationStart);
        if (app.violation() != null) {
            throw new IllegalStateException(app.violation());
        }
        if (iteration.requests() == 0) {
            throw new IllegalStateException("no request reached the servlet in the iteration");
        }
        if (iteration.handedOverByPlatformThread() != iteration.requests()) {
            throw new IllegalStateException((iteration.requests() - iteration.handedOverByPlatformThread()) + " of "
                    + iteration.requests() + " requests were handed to their virtual thread by a virtual thread");
        }
    }

    @TearDown(Level.Trial)
    public void stopServer() throws Exception {
        try {
            client.close();
        } finally {
            app.close();
        }
    }
}
