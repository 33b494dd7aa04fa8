package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * HTTP on Jetty 12: a widely used server whose platform selector threads hand each request to a
 * new virtual thread ({@link JettyApp} says how, and checks it on every request), so every
 * request enters the scheduler under test from a thread outside it. Loaded over loopback by a
 * {@link LoopbackClient} as in {@link HttpBenchmark}: {@value #CONCURRENCY} {@code GET /hello}
 * in flight per invocation; the score is {@code /hello} requests per second, and
 * {@code ·request.p50/p99} each one's latency as the client sees it.
 *
 * <p>{@code background}: {@code plain}, only the measured {@code /hello} traffic; {@code cpu},
 * besides it 2 × procs client loops that each send {@code GET /cpu} (about 3 ms of CPU in a loop
 * of {@link benchapp.CpuBurn}, which the agent gives preemption polls) back to back, from the
 * start of each iteration (warm-up too) to its end. On ForkJoinPool a {@code /hello} can wait for
 * the burns ahead of it on every carrier; on GMP, too, unless a burn outlasts its time slice.
 *
 * <p>Bounded: the background loops stop at the iteration's end, or by themselves
 * {@value Benchmarks#TIMEOUT_SECONDS} s after it should have ended.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class JettyBenchmark extends OnScheduler {
    static final int CONCURRENCY = 16;
    private static final Latencies.Stripes REQUEST = Latencies.recorder("request");
    /** The {@code cpu} background: client loops per processor. */
    private static final int CPU_LOOPS_PER_PROC = 2;
    /** At most this share of an iteration's requests may run on a virtual thread that ran an earlier one. */
    private static final int MAX_REUSED_PERCENT = 5;

    @Param({"plain", "cpu"})
    public String background;

    private JettyApp app;
    private LoopbackClient client;
    private LoopbackClient backgroundClient;
    private HttpRequest hello;
    private HttpRequest cpu;
    private CpuLoad load;
    private JettyApp.Stats iterationStart;

    @Setup(Level.Trial)
    public void startServer() throws Exception {
        if (!background.equals("plain") && !background.equals("cpu")) {
            throw new IllegalArgumentException("background=" + background + ": expected plain or cpu");
        }
        app = JettyApp.start(Math.max(1, PROCS / 2)); // Jetty's own default number of selectors
        client = new LoopbackClient();
        backgroundClient = new LoopbackClient();
        hello = LoopbackClient.get(app.port(), "/hello");
        cpu = LoopbackClient.get(app.port(), "/cpu");
    }

    @Setup(Level.Iteration)
    public void startBackground(IterationParams iteration) {
        iterationStart = app.stats();
        if (background.equals("cpu")) {
            long iterationNanos = iteration.getTime().convertTo(TimeUnit.NANOSECONDS);
            load = new CpuLoad(backgroundClient, cpu, CPU_LOOPS_PER_PROC * PROCS,
                    System.nanoTime() + iterationNanos + TimeUnit.SECONDS.toNanos(Benchmarks.TIMEOUT_SECONDS));
        }
    }

    @Benchmark
    @OperationsPerInvocation(CONCURRENCY)
    public void requests() throws Exception {
        if (load != null) {
            load.rethrowFailure();
        }
        client.round(hello, CONCURRENCY, REQUEST, response -> check(response, JettyApp.HELLO.length));
    }

    /** A 200 with the expected body length ({@code -1}: any), else the server's reason. */
    private void check(HttpResponse<byte[]> response, int length) {
        if (response.statusCode() != 200 || (length >= 0 && response.body().length != length)) {
            String violation = app.violation();
            throw new IllegalStateException("bad response to " + response.request().uri().getPath() + ": "
                    + response.statusCode() + ", " + response.body().length + " bytes"
                    + (violation != null ? "; " + violation : ""));
        }
    }

    /**
     * After each iteration: every request of it ran on a virtual thread that Jetty's executor
     * started (the handler checks that much itself), on a fresh one, handed over by one of
     * Jetty's platform threads (a selector, in practice). A kept-alive connection's next request may reach the thread that handled the
     * previous one before it ends, and Jetty then handles it there; the benchmark's clients
     * send the next request only after the response, so that stays rare, but it may happen: at
     * most {@value #MAX_REUSED_PERCENT} % of an iteration's requests may.
     */
    @TearDown(Level.Iteration)
    public void stopBackgroundAndCheck() throws InterruptedException {
        try {
            if (load != null) {
                load.stop();
            }
        } finally {
            load = null;
        }
        JettyApp.Stats iteration = app.stats().minus(iterationStart);
        if (app.violation() != null) {
            throw new IllegalStateException(app.violation());
        }
        if (iteration.requests() == 0) {
            throw new IllegalStateException("no request reached Jetty's handler in the iteration");
        }
        if (100 * (iteration.requests() - iteration.onFreshThread()) > MAX_REUSED_PERCENT * iteration.requests()) {
            throw new IllegalStateException("Jetty handled " + (iteration.requests() - iteration.onFreshThread())
                    + " of " + iteration.requests() + " requests on a virtual thread that had handled another");
        }
        if (iteration.handedOverByJetty() != iteration.requests()) {
            throw new IllegalStateException((iteration.requests() - iteration.handedOverByJetty()) + " of "
                    + iteration.requests() + " requests were handed to their virtual thread by a thread other"
                    + " than Jetty's platform threads");
        }
    }

    @TearDown(Level.Trial)
    public void stopServer() throws Exception {
        try {
            client.close();
            backgroundClient.close();
        } finally {
            app.close();
        }
    }

    /**
     * The {@code cpu} background: platform threads, each sending {@code GET /cpu} back to back
     * until {@link #stop()} or the deadline. The first failure fails the benchmark at its next
     * invocation, or at {@link #stop()}.
     */
    private final class CpuLoad {
        private final Thread[] loops;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile boolean stopped;

        CpuLoad(LoopbackClient client, HttpRequest cpu, int count, long deadlineNanos) {
            loops = new Thread[count];
            for (int i = 0; i < count; i++) {
                loops[i] = Thread.ofPlatform().daemon().name("jetty-cpu-client-" + i).start(() -> {
                    try {
                        while (!stopped && System.nanoTime() - deadlineNanos < 0) {
                            check(client.send(cpu), -1);
                        }
                    } catch (Throwable e) {
                        if (!stopped) {
                            failure.compareAndSet(null, e);
                        }
                    }
                });
            }
        }

        void rethrowFailure() {
            Throwable e = failure.get();
            if (e != null) {
                throw new IllegalStateException("a background GET /cpu failed: " + e, e);
            }
        }

        /** Stops the loops: each ends once its request in flight has its answer (or times out). */
        void stop() throws InterruptedException {
            stopped = true;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2L * LoopbackClient.REQUEST_TIMEOUT_SECONDS);
            for (Thread loop : loops) {
                if (!loop.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                    loop.interrupt();
                    throw new IllegalStateException(loop + " still running " + 2 * LoopbackClient.REQUEST_TIMEOUT_SECONDS
                            + " s after it was asked to stop");
                }
            }
            rethrowFailure();
        }
    }
}
