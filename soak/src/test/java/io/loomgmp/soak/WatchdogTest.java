package io.loomgmp.soak;

import io.loomgmp.dispatcher.GmpScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A stuck soak ends with the evidence and status 1; a moving one is left alone. */
class WatchdogTest {
    private final GmpScheduler scheduler = GmpScheduler.builder().procs(1).name("watched").build();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final AtomicInteger status = new AtomicInteger(-1);
    private final CountDownLatch exited = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() {
        release.countDown();
        scheduler.close();
    }

    private Watchdog watchdog(AtomicLong progress) {
        return new Watchdog(scheduler, progress::get, new PrintStream(err, true, StandardCharsets.UTF_8), code -> {
            status.set(code);
            exited.countDown();
        }, Duration.ofMillis(300), Duration.ofMillis(20));
    }

    @Test
    void workThatStopsSettlingEndsTheRunWithTheSnapshotAndEveryThread() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        scheduler.execute(() -> { // holds the one P: the snapshot shows what it runs
            blocked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        Watchdog watchdog = watchdog(new AtomicLong(42));
        watchdog.stage("the soak", Duration.ofMinutes(5), true);
        watchdog.start();
        assertTrue(exited.await(30, TimeUnit.SECONDS), "the watchdog never fired:\n" + err);
        String out = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, status.get());
        assertTrue(out.startsWith("soak: STUCK: no work settled for PT0.3S during the soak (42 settled so far)"), out);
        assertTrue(out.contains("--- scheduler\nGmpScheduler[watched, procs=1"), out);
        assertTrue(out.contains("running=task io.loomgmp.soak.WatchdogTest"), "the snapshot names the task on the P:\n" + out);
        assertTrue(out.contains("\"watched-M0\" #"), "the carrier's stack:\n" + out);
        assertTrue(out.contains("at app//io.loomgmp.soak.WatchdogTest") || out.contains("at io.loomgmp.soak.WatchdogTest"),
                "the blocked task's frames:\n" + out);
        Matcher dump = Pattern.compile("--- all threads, virtual ones too: (\\S+)").matcher(out);
        assertTrue(dump.find(), out);
        String threads = Files.readString(Path.of(dump.group(1)));
        assertTrue(threads.contains("watched-M0"), threads);
        assertTrue(out.strip().endsWith("soak: FAILED: stuck (no work settled for PT0.3S during the soak (42 settled so far))"), out);
    }

    @Test
    void aStagePastItsDeadlineEndsTheRunEvenWhileWorkSettles() throws Exception {
        AtomicLong progress = new AtomicLong();
        Watchdog watchdog = watchdog(progress);
        watchdog.stage("close", Duration.ofMillis(200), false);
        watchdog.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (exited.getCount() > 0 && System.nanoTime() - deadline < 0) {
            progress.incrementAndGet();
            Thread.sleep(5);
        }
        assertEquals(1, status.get(), err.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("soak: STUCK: close did not end within PT0.2S"), err.toString());
    }

    @Test
    void workThatKeepsSettlingWithinItsStagesIsLeftAlone() throws Exception {
        AtomicLong progress = new AtomicLong();
        Watchdog watchdog = watchdog(progress);
        watchdog.stage("the soak", Duration.ofMinutes(1), true);
        watchdog.start();
        for (int i = 0; i < 100; i++) {
            progress.incrementAndGet();
            Thread.sleep(10);
        }
        watchdog.stage("rest", Duration.ofMinutes(1), false); // no work expected: a pause is no stall
        Thread.sleep(500);
        watchdog.stop();
        assertFalse(exited.await(100, TimeUnit.MILLISECONDS), err.toString(StandardCharsets.UTF_8));
        assertTrue(watchdog.longestStall().compareTo(Duration.ofMillis(300)) < 0, watchdog.longestStall().toString());
    }
}
