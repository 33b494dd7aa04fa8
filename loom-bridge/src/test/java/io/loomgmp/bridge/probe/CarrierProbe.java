package io.loomgmp.bridge.probe;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.GmpScheduler;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Run under the agent: prints, as {@code key=value} lines, which carrier each virtual-thread
 * creation API lands on, and the installed scheduler's settings.
 */
public final class CarrierProbe {
    public static void main(String[] args) throws Exception {
        AtomicReference<String> carrier = new AtomicReference<>();
        Runnable record = () -> carrier.set(carrierOf(Thread.currentThread()));

        Thread.ofVirtual().start(record).join();
        System.out.println("ofVirtual=" + carrier.get());

        Thread.startVirtualThread(record).join();
        System.out.println("startVirtualThread=" + carrier.get());

        try (ExecutorService perTask = Executors.newVirtualThreadPerTaskExecutor()) {
            perTask.submit(record).get();
        }
        System.out.println("newVirtualThreadPerTaskExecutor=" + carrier.get());

        Thread.ofVirtual().start(() -> {
            try {
                Thread.ofVirtual().start(record).join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }).join();
        System.out.println("childOfVirtual=" + carrier.get());

        Thread.ofVirtual().factory().newThread(record).start();
        Thread.sleep(100);
        System.out.println("factory=" + carrier.get());

        GmpScheduler scheduler = Gmp.scheduler().orElseThrow(() -> new IllegalStateException("no agent"));
        System.out.println("procs=" + scheduler.procs());
        System.out.println("snapshotProcs=" + scheduler.snapshot().procs());
        System.out.println("maxCarriers=" + scheduler.maxCarriers());
        System.out.println("timeSliceNanos=" + scheduler.timeSlice().toNanos());
        System.out.println("keepAliveNanos=" + scheduler.keepAlive().toNanos());
        System.out.println("latencySample=" + scheduler.latencySample());
        System.out.println("tasksRun=" + scheduler.snapshot().tasksRun());
    }

    /** "VirtualThread[#22]/runnable@gmp-M0" -> "gmp-M0". */
    public static String carrierOf(Thread thread) {
        String text = thread.toString();
        int at = text.lastIndexOf('@');
        return at < 0 ? "none:" + text : text.substring(at + 1);
    }
}
