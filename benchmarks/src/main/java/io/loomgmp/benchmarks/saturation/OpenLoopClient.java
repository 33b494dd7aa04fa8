package io.loomgmp.benchmarks.saturation;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The open-loop load generator, in a JVM of its own: {@code GET}s at a fixed rate over a fixed
 * number of keep-alive connections, whatever the server's speed, with each request's latency
 * taken from when it was due ({@link OpenLoopSchedule}), not from when it was sent. wrk is a
 * closed loop (a connection sends its next request when the answer to its last came) and Debian
 * has no wrk2, hence this.
 *
 * <p>{@code OpenLoopClient --port P --path TARGET --rate R --connections C --warmup S --duration S
 * [--timeout S]}: a platform thread per connection takes the next due request, sleeps until it is
 * due, sends it and waits for the answer; while every connection waits, due requests queue and
 * their latency grows. It prints {@value #WINDOW} on standard output when the measured window
 * begins (the runner reads the server's CPU time then), and at the end the {@link LoadResult} line.
 * Requests due in the window that got no answer within the timeout, or were not sent by
 * then, count as timeouts. The result's duration runs from the window's start to its end or to
 * the last answer of a request due in it, whichever is later: a server that keeps up answers at
 * the schedule's rate, one that falls behind at its own.
 */
public final class OpenLoopClient {
    static final String WINDOW = "WINDOW";

    /** The command line; durations in seconds, fractions allowed. */
    record Settings(int port, String target, double perSecond, int connections, double warmupSeconds,
                    double durationSeconds, double timeoutSeconds) {
        static final String USAGE = "usage: OpenLoopClient --port P --path TARGET --rate PER_SECOND --connections C"
                + " --warmup SECONDS --duration SECONDS [--timeout SECONDS]";

        /** @throws IllegalArgumentException with what is wrong */
        static Settings parse(List<String> args) {
            Integer port = null;
            String target = null;
            Double rate = null;
            Integer connections = null;
            Double warmup = null;
            Double duration = null;
            double timeout = 30;
            for (int i = 0; i < args.size(); i += 2) {
                String option = args.get(i);
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException(option + " needs a value");
                }
                String value = args.get(i + 1);
                switch (option) {
                    case "--port" -> port = (int) number(option, value, 1, 65_535);
                    case "--path" -> {
                        if (!value.startsWith("/")) {
                            throw new IllegalArgumentException("--path must start with /, not " + value);
                        }
                        target = value;
                    }
                    case "--rate" -> rate = number(option, value, 0.001, 1e6);
                    case "--connections" -> connections = (int) number(option, value, 1, 10_000);
                    case "--warmup" -> warmup = number(option, value, 0, 3_600);
                    case "--duration" -> duration = number(option, value, 0.001, 3_600);
                    case "--timeout" -> timeout = number(option, value, 0.001, 3_600);
                    default -> throw new IllegalArgumentException("unknown option " + option);
                }
            }
            if (port == null || target == null || rate == null || connections == null || warmup == null || duration == null) {
                throw new IllegalArgumentException("--port, --path, --rate, --connections, --warmup and --duration are required");
            }
            return new Settings(port, target, rate, connections, warmup, duration, timeout);
        }

        private static double number(String option, String value, double min, double max) {
            double number;
            try {
                number = Double.parseDouble(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " takes a number, not " + value);
            }
            if (!(number >= min && number <= max)) {
                throw new IllegalArgumentException(option + " takes a number from " + min + " to " + max + ", not " + value);
            }
            return number;
        }

        /** The arguments that {@link #parse} reads back as these settings. */
        List<String> arguments() {
            return List.of("--port", Integer.toString(port), "--path", target, "--rate", format(perSecond),
                    "--connections", Integer.toString(connections), "--warmup", format(warmupSeconds),
                    "--duration", format(durationSeconds), "--timeout", format(timeoutSeconds));
        }

        private static String format(double value) {
            return String.format(Locale.ROOT, "%.3f", value);
        }
    }

    private OpenLoopClient() {
    }

    public static void main(String[] args) throws InterruptedException {
        Settings settings;
        try {
            settings = Settings.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("OpenLoopClient: " + e.getMessage());
            System.err.println(Settings.USAGE);
            System.exit(2);
            return;
        }
        LoadResult result = run(settings, () -> {
            System.out.println(WINDOW);
            System.out.flush();
        });
        System.out.println(result.line());
    }

    /** Runs the schedule; {@code onWindowStart} runs when the measured window begins. */
    static LoadResult run(Settings settings, Runnable onWindowStart) throws InterruptedException {
        long timeoutNanos = seconds(settings.timeoutSeconds());
        // A little after now: the threads must be started before the first request is due.
        OpenLoopSchedule schedule = new OpenLoopSchedule(System.nanoTime() + 50_000_000L, settings.perSecond(),
                seconds(settings.warmupSeconds()), seconds(settings.durationSeconds()));
        AtomicLong next = new AtomicLong();
        List<Connection> connections = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < settings.connections(); c++) {
            Connection connection = new Connection(settings, schedule, next, timeoutNanos);
            connections.add(connection);
            threads.add(Thread.ofPlatform().name("open-loop-" + c).daemon().start(connection::run));
        }
        Thread marker = Thread.ofPlatform().name("open-loop-window").daemon().start(() -> {
            sleepUntil(schedule.windowStartNanos());
            onWindowStart.run();
        });
        for (Thread thread : threads) {
            thread.join();
        }
        marker.join();
        Histogram latencies = new Histogram(3);
        long connect = 0;
        long read = 0;
        long write = 0;
        long status = 0;
        long timeouts = 0;
        long lastAnswer = schedule.windowEndNanos();
        for (Connection c : connections) {
            lastAnswer = Math.max(lastAnswer, c.lastAnswerNanos);
            latencies.add(c.latenciesMicros);
            connect += c.connectErrors;
            read += c.readErrors;
            write += c.writeErrors;
            status += c.statusErrors;
            timeouts += c.timeouts;
        }
        long scheduled = schedule.measuredCount();
        // Requests due in the window but never sent (every connection was waiting until the
        // cut-off, a timeout after the window): they waited longer than the timeout, so count as timeouts.
        long unsent = scheduled - (latencies.getTotalCount() + connect + read + write + timeouts);
        return LoadResult.of(latencies, (lastAnswer - schedule.windowStartNanos()) / 1_000, connect, read, write, status,
                timeouts + Math.max(0, unsent), scheduled);
    }

    private static long seconds(double seconds) {
        return Math.round(seconds * 1e9);
    }

    static void sleepUntil(long nanos) {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /** One connection and the thread that drives it; its counts cover only measured requests. */
    private static final class Connection {
        private final Settings settings;
        private final OpenLoopSchedule schedule;
        private final AtomicLong next;
        /** No request is sent after this: the window's end plus the timeout. */
        private final long cutoffNanos;
        final Histogram latenciesMicros = new Histogram(3);
        long connectErrors;
        long readErrors;
        long writeErrors;
        long statusErrors;
        long timeouts;
        /** When the last answer to a measured request came; Long.MIN_VALUE if none did. */
        long lastAnswerNanos = Long.MIN_VALUE;

        Connection(Settings settings, OpenLoopSchedule schedule, AtomicLong next, long timeoutNanos) {
            this.settings = settings;
            this.schedule = schedule;
            this.next = next;
            this.cutoffNanos = schedule.windowEndNanos() + timeoutNanos;
        }

        void run() {
            int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(settings.timeoutSeconds() * 1e3)));
            HttpConnection connection = null;
            try {
                while (true) {
                    long i = next.getAndIncrement();
                    if (!schedule.due(i)) {
                        return; // every later request is later still
                    }
                    long intended = schedule.intendedNanos(i);
                    boolean measured = schedule.measured(i);
                    sleepUntil(intended);
                    if (System.nanoTime() - cutoffNanos >= 0) {
                        return; // run() counts the measured requests left unsent
                    }
                    if (connection == null) {
                        try {
                            connection = HttpConnection.open(settings.port(), timeoutMillis);
                        } catch (IOException e) {
                            if (measured) {
                                connectErrors++;
                            }
                            LockSupport.parkNanos(10_000_000L); // the server is not listening: do not spin
                            continue;
                        }
                    }
                    try {
                        HttpConnection.Response response = connection.get(settings.target());
                        long answered = System.nanoTime();
                        long latency = answered - intended;
                        if (measured) {
                            lastAnswerNanos = answered;
                            latenciesMicros.recordValue(Math.max(1, latency / 1_000));
                            if (response.status() >= 400) {
                                statusErrors++;
                            }
                        }
                    } catch (IOException e) {
                        if (measured) {
                            if (e instanceof SocketTimeoutException) {
                                timeouts++;
                            } else if (e instanceof HttpConnection.WriteFailed) {
                                writeErrors++;
                            } else {
                                readErrors++;
                            }
                        }
                        closeQuietly(connection);
                        connection = null;
                    }
                }
            } finally {
                closeQuietly(connection);
            }
        }

        private static void closeQuietly(HttpConnection connection) {
            if (connection != null) {
                try {
                    connection.close();
                } catch (IOException ignored) {
                    // closing a broken connection
                }
            }
        }
    }
}
