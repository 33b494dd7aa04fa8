package example.app;

import io.loomgmp.jfr.Settings;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Run under the agent with 2 Ps: records, with loom-gmp's tracing settings, {@value #HOGS} virtual
 * threads spinning in CPU-bound loops (application code: the agent gives them polls) for
 * {@value #SPIN_MILLIS} ms, then reads the recording back. The hogs saturate both Ps, so the
 * {@code loomgmp.Run} events of the hog threads should cover nearly all of the Ps' time in that
 * window, and many runs should end at a preemption. Prints {@code busyFraction} (hog run time
 * inside the window over 2 × the window), {@code preemptedRuns}, {@code yieldedRuns},
 * {@code hogRuns}.
 */
public final class HogRecordingProbe {
    static final int HOGS = 4;
    static final long SPIN_MILLIS = 600;
    private static final int PROCS = 2;

    private static volatile boolean stop;
    private static volatile long sink;

    public static void main(String[] args) throws Exception {
        Path file = Files.createTempFile("hogs", ".jfr");
        Set<Long> hogIds = ConcurrentHashMap.newKeySet();
        Instant from;
        Instant to;
        try (Recording recording = new Recording(Settings.configuration(Settings.TRACE))) {
            recording.start();
            Thread[] hogs = new Thread[HOGS];
            for (int i = 0; i < HOGS; i++) {
                hogs[i] = Thread.ofVirtual().unstarted(HogRecordingProbe::spin);
                hogIds.add(hogs[i].threadId());
            }
            for (Thread hog : hogs) {
                hog.start();
            }
            Thread.sleep(100); // every hog is running by now: the window starts
            from = Instant.now();
            Thread.sleep(SPIN_MILLIS);
            to = Instant.now();
            stop = true;
            for (Thread hog : hogs) {
                hog.join();
            }
            recording.stop();
            recording.dump(file);
        }
        long busyNanos = 0;
        Map<String, Integer> ends = new HashMap<>();
        int hogRuns = 0;
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Files.delete(file);
        for (RecordedEvent e : events) {
            if (!e.getEventType().getName().equals("loomgmp.Run") || !hogIds.contains(e.getLong("virtualThread"))) {
                continue;
            }
            hogRuns++;
            ends.merge(e.getString("end"), 1, Integer::sum);
            Instant start = e.getStartTime().isBefore(from) ? from : e.getStartTime();
            Instant end = e.getEndTime().isAfter(to) ? to : e.getEndTime();
            if (end.isAfter(start)) {
                busyNanos += end.toEpochMilli() * 1_000_000L + end.getNano() % 1_000_000
                        - (start.toEpochMilli() * 1_000_000L + start.getNano() % 1_000_000);
            }
        }
        long windowNanos = (to.toEpochMilli() - from.toEpochMilli()) * 1_000_000L + to.getNano() % 1_000_000
                - from.getNano() % 1_000_000;
        System.out.println("busyFraction=" + (double) busyNanos / (PROCS * windowNanos));
        System.out.println("preemptedRuns=" + ends.getOrDefault("preempted", 0));
        System.out.println("yieldedRuns=" + ends.getOrDefault("yielded", 0));
        System.out.println("hogRuns=" + hogRuns);
        System.out.println("ends=" + ends);
    }

    private static void spin() {
        long x = 1;
        while (!stop) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        sink = x;
    }
}
