package example.app;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static example.app.ConformanceSupport.carrierOf;
import static example.app.ConformanceSupport.join;
import static example.app.ConformanceSupport.print;

/**
 * The JDK's own JFR events for virtual threads must be recorded whichever scheduler runs them:
 * {@code jdk.VirtualThreadStart} and {@code jdk.VirtualThreadEnd} for each thread (a child
 * started by a virtual thread, and threads that sleep, i.e. leave and come back through the
 * scheduler, among them), and {@code jdk.VirtualThreadPinned} for a thread that parks while it
 * cannot unmount. In JDK 25 a monitor no longer pins (JEP 491); what still does is a native frame
 * on the continuation's stack ({@code Continuation.Pinned.NATIVE}), and a class initialiser runs
 * below one (the VM calls {@code <clinit>}): a {@code Thread.sleep} inside a static initialiser
 * parks pinned, and {@code VirtualThread.parkOnCarrierThread} posts the event (op
 * {@code LockSupport.park}). {@code jdk.VirtualThreadSubmitFailed} is enabled too, and none is
 * expected: neither scheduler rejects work here.
 *
 * <p>Arguments: the file to dump the recording to. Records in-process ({@code jdk.jfr.Recording},
 * Pinned with threshold 0), reads the file back with {@code RecordingFile} and prints, for each
 * named thread, how many Start and End events it has and how many Pinned events at a
 * {@code LockSupport.park}, and the fields of {@code jfr-pinned}'s. Pinned events at a contended
 * monitor enter are counted apart ({@code jfr.otherPinned}): the JDK emits them, under either
 * scheduler, when a thread meets a contended monitor below a native frame (seen in class loading
 * and in a JFR event's commit), so whether any occurs depends on timing.
 */
public final class ConformanceJfr {
    public static final long PINNED_SLEEP_MILLIS = 100;

    /** Its static initialiser sleeps: a virtual thread that initialises it parks pinned. */
    static final class SleepsInInitialiser {
        static final String CARRIER;

        static {
            try {
                Thread.sleep(PINNED_SLEEP_MILLIS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            CARRIER = carrierOf(Thread.currentThread());
        }

        private SleepsInInitialiser() {
        }
    }

    private ConformanceJfr() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        Map<Long, String> names = new TreeMap<>();
        List<Thread> threads = new ArrayList<>();
        String[] carriers = new String[2];
        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadStart");
            recording.enable("jdk.VirtualThreadEnd");
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.enable("jdk.VirtualThreadSubmitFailed");
            recording.start();

            for (int i = 0; i < 3; i++) {
                threads.add(Thread.ofVirtual().name("jfr-plain-" + i).start(() -> {
                }));
            }
            for (int i = 0; i < 3; i++) {
                threads.add(Thread.ofVirtual().name("jfr-sleeper-" + i).start(() -> {
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            Thread[] child = new Thread[1];
            Thread parent = Thread.ofVirtual().name("jfr-parent").start(() -> {
                child[0] = Thread.ofVirtual().name("jfr-child").start(() -> carriers[1] = carrierOf(Thread.currentThread()));
                try {
                    join(child[0]);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            threads.add(parent);
            Thread pinned = Thread.ofVirtual().name("jfr-pinned").start(() -> {
                carriers[0] = SleepsInInitialiser.CARRIER;
            });
            threads.add(pinned);
            for (Thread t : threads) {
                join(t);
            }
            threads.add(child[0]);
            recording.stop();
            recording.dump(file);
        }
        for (Thread t : threads) {
            names.put(t.threadId(), t.getName());
        }
        print("jfr.pinned.carrier", carriers[0]);
        print("jfr.child.carrier", carriers[1]);

        Map<String, Integer> counts = new TreeMap<>();
        for (Thread t : threads) {
            for (String type : List.of("Start", "End", "Pinned")) {
                counts.put(type + "." + t.getName(), 0);
            }
        }
        int submitFailed = 0;
        int otherPinned = 0;
        long pinnedMillis = 0; // the jfr-pinned thread's Pinned events, summed
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            String type = event.getEventType().getName();
            switch (type) {
                case "jdk.VirtualThreadStart", "jdk.VirtualThreadEnd" -> {
                    String name = names.get(event.getLong("javaThreadId"));
                    if (name != null) {
                        counts.merge(type.substring("jdk.VirtualThread".length()) + "." + name, 1, Integer::sum);
                    }
                }
                case "jdk.VirtualThreadPinned" -> {
                    RecordedThread thread = event.getThread();
                    String name = thread == null ? null : names.get(thread.getJavaThreadId());
                    if (!"LockSupport.park".equals(event.getString("blockingOperation"))) {
                        // The JDK also pins, on either scheduler, a thread that meets a contended
                        // monitor below a native frame (class loading, a JFR commit): not ours.
                        otherPinned++;
                        continue;
                    }
                    if (name != null) {
                        counts.merge("Pinned." + name, 1, Integer::sum);
                    }
                    if ("jfr-pinned".equals(name)) {
                        // A park may return early (spurious wake-ups are allowed), and the sleep
                        // then parks again for the rest: one event per park, their durations summed.
                        pinnedMillis += event.getDuration().toMillis();
                        print("jfr.pinnedEvent.virtual", thread.isVirtual());
                        for (String field : List.of("pinnedReason", "blockingOperation")) {
                            if (event.hasField(field)) {
                                print("jfr.pinnedEvent." + field, event.getValue(field));
                            }
                        }
                        if (event.hasField("carrierThread") && event.getValue("carrierThread") instanceof RecordedThread carrier) {
                            print("jfr.pinnedEvent.carrierThread", carrier.getJavaName());
                        }
                        boolean inInitialiser = event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
                                .anyMatch(f -> f.getMethod().getName().equals("<clinit>")
                                        && f.getMethod().getType().getName().endsWith("SleepsInInitialiser"));
                        print("jfr.pinnedEvent.stackInInitialiser", inInitialiser);
                    }
                }
                case "jdk.VirtualThreadSubmitFailed" -> submitFailed++;
                default -> {
                }
            }
        }
        counts.forEach((key, count) -> print("jfr.count." + key, count));
        print("jfr.pinnedEvents.totalMillis", pinnedMillis);
        print("jfr.submitFailed", submitFailed);
        print("jfr.otherPinned", otherPinned);
        Files.deleteIfExists(file);
        print("done", true);
    }
}
