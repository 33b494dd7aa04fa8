package example.probes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A workload to watch with {@code ./loomgmp top}: {@code cpu} virtual threads that compute
 * without end (the agent's preemption polls make them take turns), and {@code sleepers} virtual
 * threads that sleep 1 to 5 ms and compute a little, over and over (timers, wake-ups, thousands of
 * task runs a second). Prints {@code ready pid=<pid>} once all have started.
 *
 * <p>Usage: {@code TopWorkload [cpu] [sleepers] [seconds]} (defaults 2, 8, 600). It ends after
 * {@code seconds}, or when a line {@code stop} arrives on standard input (or it closes), so that a
 * test decides when it exits.
 */
public final class TopWorkload {
    private static volatile boolean stop;
    private static volatile long sink;

    private TopWorkload() {
    }

    public static void main(String[] args) throws InterruptedException {
        int cpu = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int sleepers = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        Duration bound = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 600);
        if (cpu < 0 || sleepers < 0) {
            throw new IllegalArgumentException("cpu and sleepers must be at least 0, were " + cpu + " and " + sleepers);
        }
        Thread[] threads = new Thread[cpu + sleepers];
        for (int i = 0; i < cpu; i++) {
            threads[i] = Thread.ofVirtual().name("cpu-" + i).start(TopWorkload::compute);
        }
        for (int i = 0; i < sleepers; i++) {
            threads[cpu + i] = Thread.ofVirtual().name("sleeper-" + i).start(TopWorkload::sleepAndCompute);
        }
        Thread.ofPlatform().daemon().name("stop-on-stdin").start(TopWorkload::stopOnInput);
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        System.out.flush();
        long deadline = System.nanoTime() + bound.toNanos();
        while (!stop && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
        }
        stop = true;
        for (Thread t : threads) {
            t.join();
        }
    }

    private static void compute() {
        long x = 0;
        while (!stop) {
            for (int i = 0; i < 100_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            sink = x;
        }
    }

    private static void sleepAndCompute() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long x = 0;
        while (!stop) {
            try {
                Thread.sleep(Duration.ofMillis(1 + random.nextInt(5)));
            } catch (InterruptedException e) {
                return;
            }
            for (int i = 0; i < 2_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            sink = x;
        }
    }

    private static void stopOnInput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.strip().equals("stop")) {
                    break;
                }
            }
        } catch (IOException e) {
            // Standard input failed: stop as if it closed.
        }
        stop = true;
    }
}
