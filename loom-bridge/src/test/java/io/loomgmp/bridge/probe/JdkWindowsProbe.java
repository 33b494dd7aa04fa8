package io.loomgmp.bridge.probe;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import jdk.management.VirtualThreadSchedulerMXBean;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Exchanger;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run under the agent with {@code parallelism=2}: keeps more runnable virtual threads than Ps
 * busy (CPU-bound ones, exchanging pairs that park and unpark each other, sleepers on timers),
 * and reads the scheduler through the JDK's own windows while they run: the platform
 * {@link VirtualThreadSchedulerMXBean} (its figures beside {@code snapshot()}'s; its
 * {@code setParallelism} growing to 4 and shrinking to 1, with the widest number of CPU-bound
 * chunks seen running at once after each: 4 reached within a bound, then never more than 1), and {@code jcmd <own pid> Thread.vthread_scheduler}
 * with {@code args[0]}, the JDK's jcmd. Prints {@code key=value} lines; every virtual thread
 * started must have ended ({@code started}, {@code ended}).
 */
public final class JdkWindowsProbe {
    private static final int CPU_THREADS = 8;
    private static final int PAIRS = 2;
    private static final int SLEEPERS = 4;

    public static void main(String[] args) throws Exception {
        GmpScheduler gmp = Gmp.scheduler().orElseThrow();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger ended = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger widest = new AtomicInteger();
        AtomicLong chunks = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < CPU_THREADS; i++) {
            threads.add(start(started, ended, () -> {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                byte[] data = new byte[128 * 1024]; // a chunk of about half a millisecond
                while (!stop.get()) {
                    int now = running.incrementAndGet();
                    widest.accumulateAndGet(now, Math::max);
                    data[0] = sha.digest(data)[0]; // JDK code: no poll while counted as running
                    running.decrementAndGet();
                    chunks.incrementAndGet();
                    // A preemption poll between chunks, by hand: the agent puts none in loom-gmp's
                    // own classes (this probe's included).
                    Gmp.checkpoint();
                }
            }));
        }
        for (int i = 0; i < PAIRS; i++) {
            Exchanger<Integer> exchanger = new Exchanger<>();
            for (int side = 0; side < 2; side++) {
                threads.add(start(started, ended, () -> {
                    while (!stop.get()) {
                        try {
                            exchanger.exchange(1, 100, TimeUnit.MILLISECONDS);
                        } catch (java.util.concurrent.TimeoutException e) {
                            // the other side stopped
                        }
                    }
                }));
            }
        }
        for (int i = 0; i < SLEEPERS; i++) {
            threads.add(start(started, ended, () -> {
                while (!stop.get()) {
                    Thread.sleep(1);
                }
            }));
        }
        awaitChunks(chunks, 200);

        VirtualThreadSchedulerMXBean jdk = ManagementFactory.getPlatformMXBean(VirtualThreadSchedulerMXBean.class);
        System.out.println("class=" + jdk.getClass().getName());
        System.out.println("objectName=" + jdk.getObjectName());
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        System.out.println("serverParallelism=" + server.getAttribute(new ObjectName("jdk.management:type=VirtualThreadScheduler"), "Parallelism"));
        // The same figures, read back to back with a snapshot (queued and mounted move meanwhile).
        SchedulerSnapshot s = gmp.snapshot();
        System.out.println("parallelism=" + jdk.getParallelism() + " procs=" + s.procs());
        System.out.println("poolSize=" + jdk.getPoolSize() + " carriers=" + s.carriers());
        int mounted = jdk.getMountedVirtualThreadCount();
        long queued = jdk.getQueuedVirtualThreadCount();
        s = gmp.snapshot();
        int snapMounted = s.blockedCarriers();
        long snapQueued = s.globalQueueLength();
        for (SchedulerSnapshot.ProcessorSnapshot p : s.processors()) {
            snapMounted += p.running() != null ? 1 : 0;
            snapQueued += p.runnable();
        }
        System.out.println("mounted=" + mounted + " snapshotMounted=" + snapMounted);
        System.out.println("queued=" + queued + " snapshotQueued=" + snapQueued);
        System.out.println("jdkToString=" + jdk);

        jdk.setParallelism(4);
        System.out.println("grownProcs=" + gmp.snapshot().procs() + " grownParallelism=" + jdk.getParallelism());
        widest.set(0);
        // Four at once needs the four Ps to be in a chunk at the same instant, beside the
        // exchangers and sleepers: wait for it (bounded), rather than for a fixed time.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (widest.get() < 4 && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        System.out.println("widestAt4=" + widest.get());

        System.out.println("jcmd=" + jcmd(args[0]).replace('\n', '|'));

        jdk.setParallelism(1);
        System.out.println("shrunkProcs=" + gmp.snapshot().procs() + " shrunkParallelism=" + jdk.getParallelism());
        Thread.sleep(1_000); // the retired Ps' carriers reach a scheduling point (a chunk is ~100 µs)
        widest.set(running.get());
        awaitChunks(chunks, 400);
        Thread.sleep(300);
        System.out.println("widestAt1=" + widest.get());
        try {
            jdk.setParallelism(0);
            System.out.println("zero=accepted");
        } catch (IllegalArgumentException e) {
            System.out.println("zero=" + e.getClass().getSimpleName());
        }

        jdk.setParallelism(2);
        stop.set(true);
        for (Thread t : threads) {
            if (!t.join(java.time.Duration.ofSeconds(60))) {
                System.out.println("stuck=" + t);
            }
        }
        System.out.println("started=" + started.get());
        System.out.println("ended=" + ended.get());
        System.out.println("finalProcs=" + gmp.snapshot().procs());
    }

    private interface Body {
        void run() throws Exception;
    }

    private static Thread start(AtomicInteger started, AtomicInteger ended, Body body) {
        started.incrementAndGet();
        return Thread.ofVirtual().start(() -> {
            try {
                body.run();
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                ended.incrementAndGet();
            }
        });
    }

    private static void awaitChunks(AtomicLong chunks, long more) throws InterruptedException {
        long target = chunks.get() + more;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (chunks.get() < target && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
    }

    /** Runs {@code jcmd <this pid> Thread.vthread_scheduler}; returns its output. */
    private static String jcmd(String jcmd) throws Exception {
        Process process = new ProcessBuilder(jcmd, String.valueOf(ProcessHandle.current().pid()), "Thread.vthread_scheduler")
                .redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return "jcmd timed out: " + out;
        }
        return out.strip();
    }
}
