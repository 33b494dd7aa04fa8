package example.probes;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A {@link CpuServer} loaded past capacity by {@link ClosedLoopConnection}s in the same JVM: each
 * request class's connections send requests of its size back to back. After a warm-up (the JIT,
 * the connections' start), it measures a window: the answers that came in it, their latencies and
 * the process's CPU time over it.
 *
 * <p>Usage: {@code LoadedServer <stepsPerMicro> <warmupMillis> <windowMillis> <name>=<connections>x<micros>...}
 * ({@code stepsPerMicro} from {@link CpuBurn#calibrate()}). Prints {@code windowMillis},
 * {@code cpuNanos} (the whole JVM's CPU time over the window: server, load generator, GC, JIT),
 * {@code answers} (of every class), {@code carriers} (where requests ran, e.g. {@code gmp-M*}), and
 * per class {@code <name>.answers} (that came in the window), {@code <name>.p50Micros} and
 * {@code <name>.p99Micros} (of those answers; -1 when there is none), {@code <name>.longestWaitMicros}
 * (of every request that overlapped the window, answered in it or still waiting at its end) and
 * {@code <name>.connectionsUnanswered} (connections that had no answer in the window). Exits 1 if
 * a connection failed (an answer took over {@value ClosedLoopConnection#READ_TIMEOUT_MILLIS} ms, or I/O failed), 3 if
 * the connections did not stop within {@value #STOP_BOUND_MILLIS} ms of the window's end.
 */
public final class LoadedServer {
    static final long STOP_BOUND_MILLIS = 20_000;

    private LoadedServer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: LoadedServer <stepsPerMicro> <warmupMillis> <windowMillis> <name>=<connections>x<micros>...");
            System.exit(2);
        }
        double stepsPerMicro = Double.parseDouble(args[0]);
        long warmupMillis = Long.parseLong(args[1]);
        long windowMillis = Long.parseLong(args[2]);
        List<RequestClass> classes = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            classes.add(RequestClass.parse(args[i]));
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

        try (CpuServer server = CpuServer.start()) {
            List<List<ClosedLoopConnection>> connections = new ArrayList<>();
            for (RequestClass requests : classes) {
                long steps = Math.round(requests.micros() * stepsPerMicro);
                List<ClosedLoopConnection> ofClass = new ArrayList<>();
                for (int c = 0; c < requests.connections(); c++) {
                    ofClass.add(new ClosedLoopConnection(server.port(), steps, requests.name() + "-" + c));
                }
                connections.add(ofClass);
            }
            connections.forEach(ofClass -> ofClass.forEach(ClosedLoopConnection::start));
            System.err.printf("  %s: warming up %.1f s, then measuring %.1f s%n", classes, warmupMillis / 1e3,
                    windowMillis / 1e3);
            Thread.sleep(warmupMillis);

            long cpuStart = os.getProcessCpuTime();
            long windowStart = System.nanoTime();
            Thread.sleep(windowMillis);
            long windowEnd = System.nanoTime();
            long cpuEnd = os.getProcessCpuTime();

            connections.forEach(ofClass -> ofClass.forEach(ClosedLoopConnection::stop));
            long stopBy = System.nanoTime() + STOP_BOUND_MILLIS * 1_000_000;
            for (List<ClosedLoopConnection> ofClass : connections) {
                for (ClosedLoopConnection connection : ofClass) {
                    long left = Math.max(1, (stopBy - System.nanoTime()) / 1_000_000);
                    if (!connection.join(left)) {
                        System.err.println("loaded server: the connections did not stop within " + STOP_BOUND_MILLIS
                                + " ms of the window's end");
                        System.exit(3);
                    }
                    if (connection.failure() != null) {
                        System.err.println("loaded server: a connection failed: " + connection.failure());
                        System.exit(1);
                    }
                }
            }

            System.out.println("windowMillis=" + (windowEnd - windowStart) / 1_000_000);
            System.out.println("cpuNanos=" + (cpuEnd - cpuStart));
            System.out.println("carriers=" + String.join(",", new TreeSet<>(server.carriers())));
            int all = 0;
            for (int i = 0; i < classes.size(); i++) {
                int answers = 0;
                int unanswered = 0;
                long longestWait = 0;
                Latencies latencies = new Latencies();
                for (ClosedLoopConnection connection : connections.get(i)) {
                    int answered = connection.answersBetween(windowStart, windowEnd);
                    answers += answered;
                    unanswered += answered == 0 ? 1 : 0;
                    connection.latenciesBetween(windowStart, windowEnd, latencies);
                    longestWait = Math.max(longestWait, connection.longestWaitOverlapping(windowStart, windowEnd));
                }
                String name = classes.get(i).name();
                all += answers;
                System.out.println(name + ".answers=" + answers);
                System.out.println(name + ".p50Micros=" + latencies.percentileMicros(0.50));
                System.out.println(name + ".p99Micros=" + latencies.percentileMicros(0.99));
                System.out.println(name + ".longestWaitMicros=" + longestWait / 1_000);
                System.out.println(name + ".connectionsUnanswered=" + unanswered);
            }
            System.out.println("answers=" + all);
        }
        System.exit(0); // the server's connection threads are virtual, its acceptor a daemon: nothing else to wait for
    }
}
