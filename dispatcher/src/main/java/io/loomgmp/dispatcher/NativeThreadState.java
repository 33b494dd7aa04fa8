package io.loomgmp.dispatcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The operating system's view of a thread, for telling a carrier blocked in native code (a read
 * from a pipe, a FIFO's open) from one that is computing: the JVM reports both as RUNNABLE. Linux
 * only, through {@code /proc}; elsewhere {@link #currentThreadId()} returns -1 and sysmon does
 * not detect native blocking (it still detects parked and monitor-blocked carriers).
 */
final class NativeThreadState {
    private NativeThreadState() {
    }

    /** The calling thread's OS thread id (Linux tid), or -1 when {@code /proc} cannot tell it. */
    static long currentThreadId() {
        try {
            // "/proc/thread-self" links to "<pid>/task/<tid>" for the thread that reads it.
            String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
            return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Whether thread {@code tid} of this process is asleep in the kernel (state S or D in
     * {@code /proc/self/task/<tid>/stat}), as opposed to running or waiting for a CPU (R). False
     * when it cannot be read (the thread ended).
     */
    static boolean isAsleep(long tid) {
        try {
            String stat = new String(Files.readAllBytes(Path.of("/proc/self/task/" + tid + "/stat")),
                    StandardCharsets.US_ASCII);
            // "tid (comm) S ...": comm may hold spaces and parentheses, so look after the last ')'.
            int close = stat.lastIndexOf(')');
            if (close < 0 || close + 2 >= stat.length()) {
                return false;
            }
            char state = stat.charAt(close + 2);
            return state == 'S' || state == 'D';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
