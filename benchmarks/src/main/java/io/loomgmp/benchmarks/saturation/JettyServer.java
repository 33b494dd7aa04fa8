package io.loomgmp.benchmarks.saturation;

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

/**
 * The {@code jetty} server: Jetty 12's core API (no servlets) on 127.0.0.1, a new virtual thread
 * per request, configured as {@code io.loomgmp.benchmarks.JettyApp} is (see its comment for why
 * this puts every request on a new virtual thread): platform threads for the acceptor and the
 * selector, a virtual-threads executor that starts a thread per task, no reserved threads, and a
 * {@code BLOCKING} handler. So every request enters the scheduler under test from a platform
 * thread, as in a Jetty application with virtual threads enabled. {@link ServerStats} samples the
 * handlers' threads; a request handled on a platform thread fails the runner's scheduler check.
 */
final class JettyServer implements AutoCloseable {
    private final Server server;
    private final ServerConnector connector;

    private JettyServer(int port, Endpoints endpoints) {
        QueuedThreadPool platformThreads = new QueuedThreadPool();
        platformThreads.setName("jetty-platform");
        platformThreads.setDaemon(true);
        platformThreads.setReservedThreads(0); // no execute-produce-consume on a platform thread
        platformThreads.setVirtualThreadsExecutor(task -> Thread.ofVirtual().start(task));
        server = new Server(platformThreads);
        // One acceptor and Jetty's default number of selectors on 2 cores (one), as JettyBenchmark.
        connector = new ServerConnector(server, 1, Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
        connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
        connector.setPort(port);
        connector.setAcceptQueueSize(4_096); // 1,024 connections arrive at once
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract(Invocable.InvocationType.BLOCKING) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                Endpoints.Answer answer = endpoints.answer(Request.getPathInContext(request),
                        request.getHttpURI().getQuery());
                response.setStatus(answer.status());
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, answer.body().length);
                response.write(true, ByteBuffer.wrap(answer.body()), callback);
                return true;
            }
        });
        server.setStopTimeout(0);
    }

    /** Starts Jetty on 127.0.0.1:{@code port} (0: any free port). */
    static JettyServer start(int port, Endpoints endpoints) throws Exception {
        JettyServer jetty = new JettyServer(port, endpoints);
        jetty.server.start();
        if (!VirtualThreads.isUseVirtualThreads(jetty.server.getThreadPool())) {
            jetty.close();
            throw new IllegalStateException("Jetty does not use the virtual-threads executor: " + jetty.server.getThreadPool());
        }
        return jetty;
    }

    int port() {
        return connector.getLocalPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
