package example.probes;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Every carrier pinned and blocked, then a fresh probe virtual thread: how long until it has run?
 * A scheduler that hands the blocked carriers' Ps to other carriers (GMP's sysmon) runs it at
 * once; one that does not waits for the blocking to end.
 *
 * <p>{@code clinit}: {@code procs} virtual threads touch a class whose initialiser sleeps 500 ms
 * (one runs it, the others wait for it; all pinned). {@code clinit-sleep}: the same, and the probe
 * sleeps {@link #PROBE_SLEEP_MILLIS} ms, so its timer must fire while every carrier is pinned;
 * it also prints {@code sleepLateMicros} (how much later than that it woke). {@code fifo}: {@code procs} virtual threads
 * open and read a FIFO that nobody writes yet (blocked in native code). Prints
 * {@code probeMicros} (start to end of the probe thread) and {@code blockedMillis} (how long the
 * blocked threads took, to show they were blocked while the probe ran). The blocking ends after
 * about {@link #BLOCK_MILLIS} in both cases, so a scheduler that cannot run the probe meanwhile
 * still finishes.
 */
public final class PinnedProbe {
    /** Time given to the blockers to block before the probe starts. */
    static final long SETTLE_MILLIS = 50;
    /** How long the blockers stay blocked (the class initialiser's sleep; the FIFO's silence). */
    public static final long BLOCK_MILLIS = 500;
    /** The probe's sleep in {@code clinit-sleep} mode. */
    static final long PROBE_SLEEP_MILLIS = 20;

    private PinnedProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1 || !List.of("clinit", "clinit-sleep", "fifo").contains(args[0])) {
            System.err.println("usage: PinnedProbe clinit|clinit-sleep|fifo");
            System.exit(2);
        }
        int procs = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        boolean clinit = !args[0].equals("fifo");
        boolean sleep = args[0].equals("clinit-sleep");
        Path fifo = clinit ? null : makeFifo();
        long[] sleepLate = new long[1];
        Runnable probeBody = !sleep ? () -> { } : () -> {
            long before = System.nanoTime();
            try {
                Thread.sleep(PROBE_SLEEP_MILLIS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            sleepLate[0] = System.nanoTime() - before - PROBE_SLEEP_MILLIS * 1_000_000;
        };
        Thread.ofVirtual().start(probeBody).join(); // warm-up: the first virtual thread pays class loading
        CountDownLatch entered = new CountDownLatch(procs);
        Thread[] blockers = new Thread[procs];
        long blockStart = System.nanoTime();
        for (int i = 0; i < procs; i++) {
            blockers[i] = Thread.ofVirtual().name("blocker-" + i).start(() -> {
                entered.countDown();
                if (clinit) {
                    if (SlowInit.VALUE != 42) {
                        throw new IllegalStateException("class not initialised");
                    }
                } else {
                    readOneByte(fifo);
                }
            });
        }
        Thread releaser = clinit ? null : Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(BLOCK_MILLIS);
                release(fifo, procs);
            } catch (InterruptedException | IOException e) {
                throw new IllegalStateException(e);
            }
        });
        entered.await();
        Thread.sleep(SETTLE_MILLIS);

        long probeStart = System.nanoTime();
        Thread.ofVirtual().name("probe").start(probeBody).join();
        long probeMicros = (System.nanoTime() - probeStart) / 1_000;

        if (releaser != null) {
            releaser.join();
        }
        for (Thread blocker : blockers) {
            blocker.join();
        }
        long blockedMillis = (System.nanoTime() - blockStart) / 1_000_000;
        if (fifo != null) {
            Files.delete(fifo);
        }
        System.out.println("probeMicros=" + probeMicros);
        if (sleep) {
            System.out.println("sleepLateMicros=" + sleepLate[0] / 1_000);
        }
        System.out.println("blockedMillis=" + blockedMillis);
    }

    private static Path makeFifo() throws IOException, InterruptedException {
        Path fifo = Files.createTempDirectory("pinned-probe").resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        if (mkfifo.waitFor() != 0) {
            throw new IOException("mkfifo " + fifo + " failed");
        }
        fifo.toFile().getParentFile().deleteOnExit();
        return fifo;
    }

    /** Blocks in the kernel: opening a FIFO for reading waits for a writer, then read waits for data. */
    private static void readOneByte(Path fifo) {
        try (InputStream in = new FileInputStream(fifo.toFile())) {
            if (in.read() < 0) {
                throw new IllegalStateException("FIFO closed before a byte came");
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Opens the FIFO for writing (which lets every pending open return) and feeds each reader a byte. */
    private static void release(Path fifo, int readers) throws IOException {
        try (OutputStream out = new FileOutputStream(fifo.toFile())) {
            out.write(new byte[readers]);
        }
    }
}
