package io.loomgmp.benchmarks;

import benchapp.CpuBurn;
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

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server of {@link JettyBenchmark}: Jetty 12's core API (no servlets) on loopback, whose
 * platform selector threads hand each request to a new virtual thread.
 *
 * <p><b>How Jetty is configured, and why that puts every request on a new virtual thread.</b>
 * The server's {@link QueuedThreadPool} keeps platform threads, which run the acceptor and the
 * selectors; its virtual-threads executor ({@link QueuedThreadPool#setVirtualThreadsExecutor})
 * is {@link Executors#newVirtualThreadPerTaskExecutor()}, wrapped here to observe it. The
 * handler declares {@link Invocable.InvocationType#BLOCKING}. When a selector finds a connection
 * readable, its {@code AdaptiveExecutionStrategy} (Jetty 12.1) gets a BLOCKING task (read,
 * parse and handle the request) and may not run it on the selector thread itself: it either
 * hands the selecting over to a reserved pool thread and runs the task on the selector's
 * platform thread ("execute-produce-consume"), or executes the task on the virtual-threads
 * executor ("produce-execute-consume"). Reserved threads are what the former needs; a pool with
 * virtual threads reserves none by default, and {@link QueuedThreadPool#setReservedThreads} = 0
 * makes sure of it, so each request's task starts a new virtual thread, from a selector thread,
 * a platform thread: the request enters the scheduler from outside it. (With reserved threads,
 * Jetty does run requests on its platform threads, and the check below fails the benchmark.)
 *
 * <p>The handler checks this on every request and answers 500 (which fails the benchmark's
 * client) if the request runs on a platform thread or on a thread that this executor did not
 * start; {@link #stats()} counts how many ran on a fresh thread and how many were handed over
 * by one of Jetty's platform threads, which the benchmark checks after each iteration.
 */
final class JettyApp implements AutoCloseable {
    static final byte[] HELLO = "hello from a virtual thread\n".repeat(8).getBytes(StandardCharsets.US_ASCII);
    /** The /cpu endpoint's work: about 3 ms on the 2-core benchmark machine (1.5 to 2 µs per chunk). */
    static final int CPU_CHUNKS = 1_750;

    /** The name of Jetty's pool and the prefix of its platform threads' names. */
    private static final String POOL_NAME = "jetty-platform";
    /** Per virtual thread that the executor starts: whether one of Jetty's platform threads started it, and its requests. */
    private static final ThreadLocal<Dispatch> DISPATCH = new ThreadLocal<>();

    private final ExecutorService virtualThreads = Executors.newVirtualThreadPerTaskExecutor();
    private final Server server;
    private final ServerConnector connector;
    private final LongAdder requests = new LongAdder();
    private final LongAdder onFreshThread = new LongAdder();
    private final LongAdder handedOverByJetty = new LongAdder();
    private final AtomicReference<String> violation = new AtomicReference<>();

    private static final class Dispatch {
        final boolean byJettyThread;
        int requests;

        Dispatch(boolean byJettyThread) {
            this.byJettyThread = byJettyThread;
        }
    }

    /** Requests handled, of which on a fresh virtual thread, and handed over by one of Jetty's platform threads. */
    record Stats(long requests, long onFreshThread, long handedOverByJetty) {
        Stats minus(Stats earlier) {
            return new Stats(requests - earlier.requests, onFreshThread - earlier.onFreshThread,
                    handedOverByJetty - earlier.handedOverByJetty);
        }
    }

    private JettyApp(int selectors) {
        QueuedThreadPool platformThreads = new QueuedThreadPool();
        platformThreads.setName(POOL_NAME);
        platformThreads.setDaemon(true); // a trial that fails cannot keep the fork alive
        platformThreads.setReservedThreads(0); // no execute-produce-consume: see the class comment
        platformThreads.setVirtualThreadsExecutor(this::executeOnNewVirtualThread);
        server = new Server(platformThreads);
        connector = new ServerConnector(server, 1, selectors);
        connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
        connector.setPort(0);
        connector.setAcceptQueueSize(256);
        server.addConnector(connector);
        server.setHandler(new App());
        server.setStopTimeout(0);
    }

    /** Starts the server on 127.0.0.1, an ephemeral port, with {@code selectors} selector threads. */
    static JettyApp start(int selectors) throws Exception {
        JettyApp app = new JettyApp(selectors);
        app.server.start();
        if (!VirtualThreads.isUseVirtualThreads(app.server.getThreadPool())) {
            app.close();
            throw new IllegalStateException("Jetty does not use the virtual-threads executor: " + app.server.getThreadPool());
        }
        return app;
    }

    int port() {
        return connector.getLocalPort();
    }

    Stats stats() {
        return new Stats(requests.sum(), onFreshThread.sum(), handedOverByJetty.sum());
    }

    /** The first request that ran where it should not have, if any. */
    String violation() {
        return violation.get();
    }

    /** Jetty's virtual-threads executor: every task on a new virtual thread, noting who handed it over. */
    private void executeOnNewVirtualThread(Runnable task) {
        Thread submitter = Thread.currentThread();
        boolean byJettyThread = !submitter.isVirtual() && submitter.getName().startsWith(POOL_NAME);
        virtualThreads.execute(() -> {
            DISPATCH.set(new Dispatch(byJettyThread));
            task.run();
        });
    }

    private final class App extends Handler.Abstract {
        App() {
            super(Invocable.InvocationType.BLOCKING); // so Jetty hands every request to a virtual thread
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String path = Request.getPathInContext(request);
            String wrong = countAndCheckThread();
            if (wrong != null) {
                violation.compareAndSet(null, path + " " + wrong);
                Response.writeError(request, response, callback, 500, wrong);
                return true;
            }
            byte[] body = switch (path) {
                case "/hello" -> HELLO;
                case "/cpu" -> (Long.toHexString(CpuBurn.burn(System.nanoTime(), CPU_CHUNKS)) + "\n")
                        .getBytes(StandardCharsets.US_ASCII);
                default -> null;
            };
            if (body == null) {
                Response.writeError(request, response, callback, 404);
                return true;
            }
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
            response.write(true, ByteBuffer.wrap(body), callback);
            return true;
        }

        /** Counts this request; null if it runs on a virtual thread of the executor, else what is wrong. */
        private String countAndCheckThread() {
            Thread thread = Thread.currentThread();
            if (!thread.isVirtual()) {
                return "handled on platform thread " + thread + ", not on a virtual thread";
            }
            Dispatch dispatch = DISPATCH.get();
            if (dispatch == null) {
                return "handled on " + thread + ", a virtual thread that Jetty's virtual-threads executor did not start";
            }
            requests.increment();
            if (++dispatch.requests == 1) {
                onFreshThread.increment();
            }
            if (dispatch.byJettyThread) {
                handedOverByJetty.increment();
            }
            return null;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            server.stop();
        } finally {
            virtualThreads.shutdownNow();
            if (!virtualThreads.awaitTermination(Benchmarks.TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Jetty's request threads still running " + Benchmarks.TIMEOUT_SECONDS
                        + " s after the server stopped");
            }
        }
    }
}
