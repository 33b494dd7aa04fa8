package example.probes;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP server written the way virtual threads invite: a virtual thread per connection
 * that reads a request, computes, answers, and reads the next, with blocking socket I/O. A request
 * is 8 bytes, the number of {@link CpuBurn} steps to compute; the answer is 8 bytes, their result.
 *
 * <p>The accept loop runs on a platform thread, so that a scheduler that keeps virtual threads
 * waiting delays requests, not connections. Each connection's first request, and one in
 * {@value #SAMPLE_EVERY} after, notes the carrier it runs on ({@link #carriers()}): that is how the
 * demo knows which scheduler really served the requests.
 */
final class CpuServer implements AutoCloseable {
    static final int SAMPLE_EVERY = 64;

    private final ServerSocket listener;
    private final Set<String> carriers = ConcurrentHashMap.newKeySet();

    private CpuServer(ServerSocket listener) {
        this.listener = listener;
    }

    /** Listens on a free loopback port and starts accepting. */
    static CpuServer start() throws IOException {
        CpuServer server = new CpuServer(new ServerSocket(0, 1_024, InetAddress.getLoopbackAddress()));
        Thread.ofPlatform().name("cpu-server-acceptor").daemon().start(server::accept);
        return server;
    }

    int port() {
        return listener.getLocalPort();
    }

    /** The carriers requests ran on, their numbers replaced by {@code *}: e.g. {@code gmp-M*}. */
    Set<String> carriers() {
        return Set.copyOf(carriers);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                Thread.ofVirtual().name("connection").start(() -> serve(socket));
            } catch (IOException e) {
                if (!listener.isClosed()) {
                    System.err.println("cpu server: accept failed: " + e);
                }
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            for (long request = 0; ; request++) {
                long steps;
                try {
                    steps = in.readLong();
                } catch (EOFException e) {
                    return; // the load generator closed the connection
                }
                if (request % SAMPLE_EVERY == 0) {
                    carriers.add(carrierOf(Thread.currentThread()));
                }
                out.writeLong(CpuBurn.steps(System.nanoTime(), steps));
                out.flush();
            }
        } catch (IOException e) {
            System.err.println("cpu server: a connection failed: " + e);
        }
    }

    /** "gmp-M*" or "ForkJoinPool-1-worker-*": a running virtual thread's toString() ends with its carrier. */
    static String carrierOf(Thread thread) {
        String text = thread.toString();
        int at = text.lastIndexOf('@');
        return at < 0 ? "none (" + text + ")" : text.substring(at + 1).replaceAll("\\d+$", "*");
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
