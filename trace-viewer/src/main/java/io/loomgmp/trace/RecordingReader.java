package io.loomgmp.trace;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads the {@code loomgmp.*} events of a JFR recording into a {@link TraceModel}, through
 * {@link RecordingFile} (one event at a time, so memory holds the model, not the recording).
 * Other events are counted and skipped. Progress goes to standard error every
 * {@code loomgmp.trace.progressEvery} events (default one million) so that a large recording does
 * not look like a hang.
 */
final class RecordingReader {
    /** Every JFR chunk starts with these four bytes. */
    private static final byte[] MAGIC = {'F', 'L', 'R', 0};
    static final String HOW_TO_RECORD = "record with -XX:StartFlightRecording:filename=rec.jfr,settings=default,"
            + "settings=<loomgmp-trace.jfc> on a JVM running loom-gmp (./loomgmp jfc trace prints the path)";

    private final long progressEvery;
    private final PrintStream progress;

    RecordingReader(long progressEvery, PrintStream progress) {
        this.progressEvery = progressEvery;
        this.progress = progress;
    }

    TraceModel read(Path path) throws TraceException {
        if (!Files.isRegularFile(path)) {
            throw new TraceException("no such file: " + path);
        }
        checkMagic(path);
        TraceModel model = new TraceModel(path.getFileName().toString());
        long start = System.nanoTime();
        try (RecordingFile file = open(path)) {
            while (true) {
                RecordedEvent event;
                // RecordingFile reports a damaged file with IOException or, when a truncated
                // chunk's sizes point past its end, with runtime exceptions: both mean "damaged".
                try {
                    if (!file.hasMoreEvents()) {
                        break;
                    }
                    event = file.readEvent();
                } catch (IOException | RuntimeException e) {
                    throw damaged(path, model, e);
                }
                model.eventsRead++;
                String name = event.getEventType().getName();
                if (name.startsWith("loomgmp.")) {
                    add(model, name, event);
                }
                if (model.eventsRead % progressEvery == 0) {
                    progress.printf("loomgmp trace: read %,d events (%,d loom-gmp) in %.1f s%n", model.eventsRead,
                            model.loomGmpEvents(), (System.nanoTime() - start) / 1e9);
                }
            }
        } catch (IOException e) {
            throw damaged(path, model, e); // from close()
        }
        if (model.loomGmpEvents() == 0) {
            throw new TraceException("no loom-gmp events in " + path + " (" + model.eventsRead
                    + " other events): " + HOW_TO_RECORD);
        }
        model.sort();
        return model;
    }

    private static RecordingFile open(Path path) throws TraceException {
        try {
            return new RecordingFile(path);
        } catch (IOException | RuntimeException e) {
            throw new TraceException(path + " is damaged or truncated: it cannot be opened (" + e + ")", e);
        }
    }

    private static TraceException damaged(Path path, TraceModel model, Exception e) {
        return new TraceException(path + " is damaged or truncated after " + model.eventsRead + " events (" + e + ")", e);
    }

    private static void checkMagic(Path path) throws TraceException {
        byte[] head;
        try (InputStream in = Files.newInputStream(path)) {
            head = in.readNBytes(MAGIC.length);
        } catch (IOException e) {
            throw new TraceException("cannot read " + path + ": " + e.getMessage(), e);
        }
        if (!Arrays.equals(head, MAGIC)) {
            throw new TraceException("not a JFR recording: " + path);
        }
    }

    /** Adds {@code e}, a {@code loomgmp.*} event named {@code name}, to {@code model}; also for {@link LiveTrace}'s stream. */
    static void add(TraceModel model, String name, RecordedEvent e) {
        long time = TraceModel.epochNanos(e.getStartTime());
        switch (name) {
            case "loomgmp.Run" -> {
                long carrier = e.getLong("carrierThread");
                nameEventThread(model, e, carrier);
                model.runs.add(new TraceModel.Run(e.getInt("processor"), carrier, e.getLong("virtualThread"), time,
                        e.getDuration().toNanos(), orElse(e.getString("source"), "?"),
                        orElse(e.getString("end"), "unknown")));
            }
            case "loomgmp.Steal" -> {
                RecordedThread thread = e.getThread();
                long carrier = thread == null ? 0 : thread.getJavaThreadId();
                nameEventThread(model, e, carrier);
                model.steals.add(new TraceModel.Steal(time, e.getInt("thief"), e.getInt("victim"), e.getInt("tasks"),
                        carrier));
            }
            case "loomgmp.Preempt" -> {
                long carrier = e.getLong("carrierThread");
                nameEventThread(model, e, carrier);
                model.preempts.add(new TraceModel.Preempt(time, e.getInt("processor"),
                        orElse(e.getString("action"), "?"), carrier, e.getLong("sliceNanos")));
            }
            case "loomgmp.Handoff" -> model.handoffs.add(new TraceModel.Handoff(time, e.getInt("processor"),
                    e.getLong("fromCarrier"), e.getLong("toCarrier"), e.getLong("blockedNanos")));
            case "loomgmp.CarrierPark" -> {
                long carrier = e.getLong("carrierThread");
                nameEventThread(model, e, carrier);
                model.parks.add(new TraceModel.CarrierPark(carrier, time, e.getDuration().toNanos()));
            }
            case "loomgmp.CarrierSpin" -> {
                long carrier = e.getLong("carrierThread");
                nameEventThread(model, e, carrier);
                model.spins.add(new TraceModel.CarrierSpin(e.getInt("processor"), carrier, time,
                        e.getDuration().toNanos(), e.getBoolean("foundWork")));
            }
            case "loomgmp.Wake" -> {
                long waker = e.getLong("wakerThread");
                nameEventThread(model, e, waker);
                model.wakes.add(new TraceModel.Wake(time, e.getInt("processor"), waker, e.getLong("virtualThread"),
                        orElse(e.getString("placement"), "?")));
            }
            case "loomgmp.SchedTrace" -> model.samples.add(new TraceModel.SchedSample(time,
                    orElse(e.getString("scheduler"), "?"), e.getInt("procs"), e.getInt("idleProcs"),
                    e.getInt("carriers"), e.getInt("spinningCarriers"), e.getInt("idleCarriers"),
                    e.getInt("blockedCarriers"), e.getInt("globalQueue"), parseQueues(e.getString("localQueues")),
                    e.getLong("tasksRun"), e.getLong("steals"), e.getLong("preemptRequests"), e.getLong("handoffs")));
            case "loomgmp.CarrierResync" -> {
                // Carries no data: it exists only to take a loss the JDK inflicts (see the event).
            }
            default -> {
                // A loomgmp event this viewer does not know (a newer scheduler): counted, not drawn.
            }
        }
    }

    /** Names a carrier from the event's own thread, which is the carrier when it committed the event. */
    private static void nameEventThread(TraceModel model, RecordedEvent e, long id) {
        RecordedThread thread = e.getThread();
        if (thread != null && thread.getJavaThreadId() == id) {
            model.nameThread(id, thread.getJavaName());
        }
    }

    private static int[] parseQueues(String queues) {
        if (queues == null || queues.isBlank()) {
            return new int[0];
        }
        String[] parts = queues.trim().replace("[", "").replace("]", "").split("\\s+");
        int[] lengths = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                lengths[i] = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                lengths[i] = 0; // a malformed entry counts as empty rather than losing the sample
            }
        }
        return lengths;
    }

    private static String orElse(String value, String fallback) {
        return value == null ? fallback : value;
    }
}
