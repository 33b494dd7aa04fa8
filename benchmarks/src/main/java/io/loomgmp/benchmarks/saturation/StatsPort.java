package io.loomgmp.benchmarks.saturation;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A second port on which a saturation server answers only {@code /stats}, from a platform thread.
 *
 * <p>Why not the server's own {@code /stats}: that one is answered on a virtual thread, which on a
 * scheduler that cannot preempt waits behind every CPU-bound request in the queue, for seconds
 * in the hogs shape. The runner reads the CPU time at the two ends of the measured window; a read
 * that waits for the scheduler under test would move the window's ends by what it measures. A
 * platform thread is scheduled by the OS beside the carriers, and answers within a time slice.
 * One connection at a time: the runner is its only client.
 */
final class StatsPort implements AutoCloseable {
    private final ServerSocket listener;
    private final ServerStats stats;

    private StatsPort(ServerSocket listener, ServerStats stats) {
        this.listener = listener;
        this.stats = stats;
    }

    static StatsPort start(ServerStats stats) throws IOException {
        StatsPort port = new StatsPort(new ServerSocket(0, 16, InetAddress.getLoopbackAddress()), stats);
        Thread.ofPlatform().name("stats-port").daemon().start(port::serve);
        return port;
    }

    int port() {
        return listener.getLocalPort();
    }

    private void serve() {
        while (!listener.isClosed()) {
            try (Socket socket = listener.accept()) {
                socket.setTcpNoDelay(true);
                PlainServer.HeadReader reader = new PlainServer.HeadReader(socket.getInputStream());
                OutputStream out = socket.getOutputStream();
                PlainServer.Request request;
                while ((request = reader.next()) != null) {
                    Endpoints.Answer answer = request.path().equals("/stats")
                            ? Endpoints.Answer.ok(stats.snapshot().line() + "\n")
                            : Endpoints.Answer.error(404, "the stats port answers /stats only");
                    out.write(PlainServer.response(answer, request.keepAlive()));
                    if (!request.keepAlive()) {
                        break;
                    }
                }
            } catch (IOException e) {
                if (!listener.isClosed()) {
                    System.err.println("stats port: " + e);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
