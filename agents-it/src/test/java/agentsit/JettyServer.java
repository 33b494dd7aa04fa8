package agentsit;

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
 * virtual-threads executor. Every GET answers {@link ServedAnswer#of};
 * it serves until its standard input ends ({@link ServedAnswer#serveUntilInputEnds}).
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
                byte[] body = ServedAnswer.of(Request.getPathInContext(request)).getBytes(StandardCharsets.UTF_8);
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
        ServedAnswer.serveUntilInputEnds(connector.getLocalPort());
    }
}
