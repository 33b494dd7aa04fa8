package example.probes;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;

/**
 * One connection of the load generator, on a platform thread of its own: sends a request, waits
 * for its answer, sends the next, until {@link #stop()}. Platform threads, not virtual ones, so that
 * the load is the same whichever scheduler serves it: the OS shares the cores between them and the
 * carriers alike under both schedulers.
 *
 * <p>Records, for each answer, when it came and how long it took; {@link LoadedServer} keeps those
 * of its measured window.
 */
final class ClosedLoopConnection {
    /** An answer later than this counts as a failure: the demo prints it rather than waiting on. */
    static final int READ_TIMEOUT_MILLIS = 30_000;

    private final int port;
    private final long steps;
    private final Thread thread;
    private volatile boolean stop;
    private volatile IOException failure;
    private long[] endNanos = new long[1_024];
    private long[] latencyNanos = new long[1_024];
    private int answers;

    ClosedLoopConnection(int port, long steps, String name) {
        this.port = port;
        this.steps = steps;
        this.thread = Thread.ofPlatform().name(name).daemon().unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    void stop() {
        stop = true;
    }

    /** Waits for the request in flight to be answered; false if it was not within {@code millis}. */
    boolean join(long millis) throws InterruptedException {
        return thread.join(Duration.ofMillis(millis));
    }

    /** Why the connection failed, or null. */
    IOException failure() {
        return failure;
    }

    /** How many answers came in [from, to) ({@link System#nanoTime()}). */
    int answersBetween(long from, long to) {
        int count = 0;
        for (int i = 0; i < answers; i++) {
            if (endNanos[i] - from >= 0 && endNanos[i] - to < 0) {
                count++;
            }
        }
        return count;
    }

    /** Adds to {@code into} the latencies of the answers that came in [from, to). */
    void latenciesBetween(long from, long to, Latencies into) {
        for (int i = 0; i < answers; i++) {
            if (endNanos[i] - from >= 0 && endNanos[i] - to < 0) {
                into.add(latencyNanos[i]);
            }
        }
    }

    /**
     * The longest wait of a request that overlapped [from, to): answered in it, or still waiting at
     * {@code to} (answered while the load stopped). The second kind is what the percentiles of
     * answers cannot show: a connection the scheduler starves for the whole window has no answer in
     * it. 0 if none.
     */
    long longestWaitOverlapping(long from, long to) {
        long longest = 0;
        for (int i = 0; i < answers; i++) {
            boolean overlaps = endNanos[i] - from >= 0 && endNanos[i] - latencyNanos[i] - to < 0;
            if (overlaps) {
                longest = Math.max(longest, latencyNanos[i]);
            }
        }
        return longest;
    }

    private void run() {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            while (!stop) {
                long sent = System.nanoTime();
                out.writeLong(steps);
                out.flush();
                in.readLong();
                long answered = System.nanoTime();
                record(answered, answered - sent);
            }
        } catch (IOException e) {
            failure = e;
        }
    }

    private void record(long end, long latency) {
        if (answers == endNanos.length) {
            endNanos = Arrays.copyOf(endNanos, answers * 2);
            latencyNanos = Arrays.copyOf(latencyNanos, answers * 2);
        }
        endNanos[answers] = end;
        latencyNanos[answers] = latency;
        answers++;
    }
}
