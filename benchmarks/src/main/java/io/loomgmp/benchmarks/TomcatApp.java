package io.loomgmp.benchmarks;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.threads.VirtualThreadExecutor;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The server of {@link TomcatBenchmark}: embedded Tomcat 11 with one servlet, set up for virtual
 * threads as Spring Boot sets it up ({@code spring.threads.virtual.enabled=true}): the HTTP/1.1
 * NIO connector's executor is Tomcat's own {@link VirtualThreadExecutor}, which starts a new
 * virtual thread for every task its poller (a platform thread) hands it, so every request enters
 * the scheduler under test from outside it. Here the executor is wrapped to observe that: the
 * servlet answers 500 (which fails the benchmark's client) to a request that runs anywhere but on
 * a virtual thread this executor started, and {@link #stats()} counts the requests handed over
 * by a platform thread, which the benchmark checks after each iteration.
 */
final class TomcatApp implements AutoCloseable {
    static final byte[] HELLO = JettyApp.HELLO;

    /** Tomcat logs each start and stop at INFO; kept here so the level is not lost with the logger. */
    private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");
    /** Per virtual thread that the executor starts: whether a platform thread handed it over. */
    private static final ThreadLocal<Boolean> BY_PLATFORM_THREAD = new ThreadLocal<>();

    private final VirtualThreadExecutor virtualThreads = new VirtualThreadExecutor("tomcat-handler-");
    private final Path baseDir;
    private final Tomcat tomcat = new Tomcat();
    private final Connector connector = new Connector("HTTP/1.1");
    private final LongAdder requests = new LongAdder();
    private final LongAdder handedOverByPlatformThread = new LongAdder();
    private final AtomicReference<String> violation = new AtomicReference<>();

    /** Requests handled, and of those, handed to their virtual thread by a platform thread. */
    record Stats(long requests, long handedOverByPlatformThread) {
        Stats minus(Stats earlier) {
            return new Stats(requests - earlier.requests, handedOverByPlatformThread - earlier.handedOverByPlatformThread);
        }
    }

    private TomcatApp() throws IOException {
        TOMCAT_LOG.setLevel(Level.WARNING);
        baseDir = Files.createTempDirectory("loomgmp-tomcat");
        tomcat.setBaseDir(baseDir.toString());
        connector.setPort(0);
        connector.setProperty("address", InetAddress.getLoopbackAddress().getHostAddress());
        connector.setProperty("acceptCount", "256");
        connector.getProtocolHandler().setExecutor((Executor) this::executeOnNewVirtualThread);
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        // No web application's class loader here to clean up after: without this, each stop warns
        // on standard error that it cannot look for leaked RMI targets.
        ((StandardContext) context).setClearReferencesRmiTargets(false);
        Tomcat.addServlet(context, "hello", new Hello());
        context.addServletMappingDecoded("/hello", "hello");
    }

    /** Starts the server on 127.0.0.1, an ephemeral port. */
    static TomcatApp start() throws Exception {
        TomcatApp app = new TomcatApp();
        try {
            app.tomcat.start();
        } catch (LifecycleException | RuntimeException e) {
            app.close();
            throw e;
        }
        if (app.port() <= 0) {
            app.close();
            throw new IllegalStateException("Tomcat's connector did not start: " + app.connector.getStateName());
        }
        return app;
    }

    int port() {
        return connector.getLocalPort();
    }

    Stats stats() {
        return new Stats(requests.sum(), handedOverByPlatformThread.sum());
    }

    /** The first request that ran where it should not have, if any. */
    String violation() {
        return violation.get();
    }

    /** The connector's executor: Tomcat's virtual-thread executor, noting who handed each task over. */
    private void executeOnNewVirtualThread(Runnable task) {
        boolean byPlatformThread = !Thread.currentThread().isVirtual();
        virtualThreads.execute(() -> {
            BY_PLATFORM_THREAD.set(byPlatformThread);
            task.run();
        });
    }

    private final class Hello extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String wrong = countAndCheckThread();
            if (wrong != null) {
                violation.compareAndSet(null, request.getRequestURI() + " " + wrong);
                response.sendError(500, wrong);
                return;
            }
            response.setStatus(200);
            response.setContentType("text/plain");
            response.setContentLength(HELLO.length);
            response.getOutputStream().write(HELLO);
        }
    }

    /** Counts this request; null if it runs on a virtual thread of the executor, else what is wrong. */
    private String countAndCheckThread() {
        Thread thread = Thread.currentThread();
        if (!thread.isVirtual()) {
            return "handled on platform thread " + thread + ", not on a virtual thread";
        }
        Boolean byPlatformThread = BY_PLATFORM_THREAD.get();
        if (byPlatformThread == null) {
            return "handled on " + thread + ", a virtual thread that the connector's executor did not start";
        }
        requests.increment();
        if (byPlatformThread) {
            handedOverByPlatformThread.increment();
        }
        return null;
    }

    @Override
    public void close() throws Exception {
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            virtualThreads.shutdownNow();
            boolean ended = virtualThreads.awaitTermination(Benchmarks.TIMEOUT_SECONDS, TimeUnit.SECONDS);
            try (Stream<Path> files = Files.walk(baseDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
            if (!ended) {
                throw new IllegalStateException("Tomcat's request threads still running " + Benchmarks.TIMEOUT_SECONDS
                        + " s after the server stopped");
            }
        }
    }
}
