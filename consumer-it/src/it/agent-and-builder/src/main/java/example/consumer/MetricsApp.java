package example.consumer;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.metrics.GmpSchedulerMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.ArrayList;
import java.util.List;

/**
 * An application that publishes loom-gmp's meters the way the docs tell users to: with the
 * agent, {@code Gmp.scheduler()} is the JVM-wide scheduler and its meters are bound; without it,
 * nothing is bound and nothing is thrown. It then runs {@link #THREADS} virtual threads and
 * prints what the registry holds, one {@code key=value} a line.
 * <p>{@code --or-else-throw} binds with {@code Gmp.scheduler().orElseThrow()} instead, the form
 * the docs warn against: without the agent it fails.
 */
public final class MetricsApp {
    static final int THREADS = 200;

    public static void main(String[] args) throws InterruptedException {
        MeterRegistry registry = new SimpleMeterRegistry();
        if (args.length == 1 && args[0].equals("--or-else-throw")) {
            GmpSchedulerMetrics.monitor(registry, Gmp.scheduler().orElseThrow());
        } else {
            // The safe form: binds under the agent, does nothing (and throws nothing) without it.
            Gmp.scheduler().ifPresent(gmp -> GmpSchedulerMetrics.monitor(registry, gmp));
        }

        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }

        List<Meter> meters = registry.getMeters().stream().filter(m -> m.getId().getName().startsWith("loomgmp.")).toList();
        System.out.println("meters=" + meters.size());
        System.out.println("all.meters=" + registry.getMeters().size());
        if (!meters.isEmpty()) {
            System.out.println("name=" + registry.get("loomgmp.procs").gauge().getId().getTag("name"));
            System.out.println("procs=" + registry.get("loomgmp.procs").gauge().value());
            System.out.println("carriers.max=" + registry.get("loomgmp.carriers.max").gauge().value());
            System.out.println("tasks.run=" + registry.get("loomgmp.tasks.run").functionCounter().count());
            System.out.println("timers.fired=" + registry.get("loomgmp.timers.fired").functionCounter().count());
        }
    }
}
