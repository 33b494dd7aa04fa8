package benchapp;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.LongAdder;

/**
 * A reproduction, not a benchmark: the loop shape whose compiled code runs at about half speed
 * under the agent once preemptions happen (docs/performance.md, "Reading it: CPU per request").
 *
 * <p>{@code threads} virtual threads (64 by default, far more than the cores) each call
 * {@link #request} in a loop; a request runs {@code steps} xorshift steps and turns the result
 * into a string. The loop gets the agent's poll (this class is outside {@code io.loomgmp.}); with
 * more runnable threads than cores sysmon preempts them, so the poll's slow path, a call, is
 * taken and compiled into the loop. When the loop is inlined into a caller where its
 * loop-carried value is also used after the loop across calls (here {@code Long.toHexString}
 * and the concatenation), C2 keeps that value in a stack slot inside the loop: every step
 * stores it and the next loads it back. Run it with and without the agent and compare the CPU
 * per step it prints:
 *
 * <pre>
 * ./loomgmp run -- -cp benchmarks/target/benchmarks.jar benchapp.PolledLoopSpill
 * java -cp benchmarks/target/benchmarks.jar benchapp.PolledLoopSpill
 * </pre>
 *
 * With 2 threads (nothing preempted) both run at the same speed; so they do if the result is
 * not used after the loop across a call. It reproduced on one host (3.3 against 1.7 ns a step)
 * and not on a later one of the same kind (1.44 to 1.55 both ways, with the same agent): see
 * docs/performance.md.
 */
public final class PolledLoopSpill {
    private PolledLoopSpill() {
    }

    /** The request: a seed, a count parsed from a query (calls before the loop), the loop, a string (calls after it). */
    static String request(String query) {
        long seed = System.nanoTime();
        long steps = Long.parseLong(query.substring(query.indexOf('=') + 1));
        return Long.toHexString(xorshift(seed, steps)) + "\n";
    }

    static long xorshift(long seed, long steps) {
        long x = seed | 1;
        for (long i = 0; i < steps; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** Arguments: [threads (64)] [steps per request (600000)] [rounds of 2 s (6)]. */
    public static void main(String[] args) throws InterruptedException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long steps = args.length > 1 ? Long.parseLong(args[1]) : 600_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        if (threads < 1 || steps < 1 || rounds < 1) {
            throw new IllegalArgumentException("usage: PolledLoopSpill [threads >= 1] [steps >= 1] [rounds >= 1]");
        }
        String query = "steps=" + steps;
        LongAdder requests = new LongAdder();
        LongAdder checksum = new LongAdder();
        for (int t = 0; t < threads; t++) {
            Thread.ofVirtual().name("request-", t).start(() -> {
                while (true) {
                    checksum.add(request(query).length());
                    requests.increment();
                }
            });
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        for (int round = 1; round <= rounds; round++) {
            long before = requests.sum();
            long cpuBefore = os.getProcessCpuTime();
            Thread.sleep(2_000);
            long done = requests.sum() - before;
            long cpu = os.getProcessCpuTime() - cpuBefore;
            System.out.printf("round %d of %d: %d requests, %.2f ns of process CPU per step%n",
                    round, rounds, done, done == 0 ? Double.NaN : cpu / (double) (done * steps));
        }
        System.out.println("checksum " + checksum.sum()); // virtual threads are daemons: the JVM ends here
    }
}
