package io.loomgmp.dispatcher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The operating system's view of a thread, for telling a carrier blocked in native code (a read
 * from a pipe, a FIFO's open) from one that is computing: the JVM reports both as RUNNABLE. Linux
 * only, through {@code /proc}; elsewhere {@link #currentThreadId()} returns -1 and sysmon does
 * not detect native blocking (it still detects parked and monitor-blocked carriers).
 *
 * <p>{@link #look()} tells three cases apart: running (or waiting for a CPU, state R); asleep in
 * the kernel (state S or D in {@code /proc/self/task/<tid>/stat}) in a named kernel wait other
 * than a futex ({@code wchan}): blocked in native code, on I/O, a pipe, a FIFO; and asleep in a
 * futex. A thread the JVM calls RUNNABLE sleeps in a futex when it waits inside the JVM: for
 * another thread's class initialiser, but also for a safepoint, for a collection it triggered, on
 * one of the JVM's own locks whose holder the OS has descheduled. On a loaded machine those last
 * milliseconds, and treating them as blocking made sysmon hand off the Ps of computing carriers,
 * growing carriers exactly when CPU was short; so sysmon waits much longer before it believes a
 * futex wait ({@link BlockedCheck#FUTEX_HANDOFF_AFTER_NANOS}).
 *
 * <p>An instance watches one thread through its {@code stat} and {@code wchan} files, kept open:
 * reading them again from offset 0 makes the kernel regenerate them, so a look costs one or two
 * {@code pread}s (about 3 µs each here) instead of an open, a read and a close (about 25 µs).
 * Used by sysmon's thread only; not thread-safe.
 */
final class NativeThreadState implements AutoCloseable {
    private static final byte[] FUTEX_WAIT = "futex".getBytes(StandardCharsets.US_ASCII);
    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path TASKS = Path.of("/proc/self/task");

    private final long tid;
    private final FileChannel stat;
    private final FileChannel wchan;
    /** {@code schedstat}: null where the kernel has no scheduler statistics. */
    private final FileChannel schedstat;
    private final ByteBuffer buffer = ByteBuffer.allocate(512);

    private NativeThreadState(long tid, FileChannel stat, FileChannel wchan, FileChannel schedstat) {
        this.tid = tid;
        this.stat = stat;
        this.wchan = wchan;
        this.schedstat = schedstat;
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

    /** Watches thread {@code tid} of this process; null if its stat file cannot be opened (it ended). */
    static NativeThreadState of(long tid) {
        return of(tid, true);
    }

    /**
     * {@link #of(long)}; with {@code schedstat} false, as on a kernel without scheduler
     * statistics (for tests of {@link #slices()}' stand-in).
     */
    static NativeThreadState of(long tid, boolean schedstat) {
        Path task = Path.of("/proc/self/task/" + tid);
        FileChannel stat = null;
        try {
            stat = FileChannel.open(task.resolve("stat"));
            FileChannel wchan = FileChannel.open(task.resolve("wchan"));
            FileChannel statistics = null;
            if (schedstat) {
                try {
                    statistics = FileChannel.open(task.resolve("schedstat"));
                } catch (IOException | RuntimeException e) {
                    // a kernel without CONFIG_SCHED_INFO: slices() uses stat's CPU time
                }
            }
            return new NativeThreadState(tid, stat, wchan, statistics);
        } catch (IOException | RuntimeException e) {
            if (stat != null) {
                close(stat);
            }
            return null;
        }
    }

    long tid() {
        return tid;
    }

    /**
     * Threads running or waiting for a CPU on the whole machine right now (the numerator of the
     * fourth field of {@code /proc/loadavg}), the caller included; -1 where it cannot tell. In a
     * container whose {@code /proc} shows the host, these are the host's threads.
     */
    static int runnableThreads() {
        try {
            // "0.52 0.58 0.59 3/467 12345": small, read whole. A FileChannel, whose classes the
            // per-thread views have loaded already, rather than Files.readAllBytes, which loads
            // a dozen stream classes in the middle of sysmon's first decision.
            ByteBuffer loadavg = ByteBuffer.allocate(128);
            try (FileChannel channel = FileChannel.open(LOADAVG)) {
                channel.read(loadavg, 0);
            }
            int field = 0;
            int value = -1;
            for (int i = 0; i < loadavg.position(); i++) {
                byte b = loadavg.get(i);
                if (b == ' ') {
                    field++;
                } else if (field == 3 && b >= '0' && b <= '9') {
                    value = Math.max(value, 0) * 10 + (b - '0');
                } else if (field == 3) {
                    return value; // the '/' after the count
                }
            }
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Threads of this process (this JVM) running or waiting for a CPU right now (state R in
     * {@code /proc/self/task/<tid>/stat}), the caller included; -1 where it cannot tell. Unlike
     * {@link #runnableThreads()}, a container whose {@code /proc} shows the host shows this JVM's
     * own threads here. Reads one small file per thread (about 25 µs each): for sysmon's rare
     * decisions only.
     */
    static int runnableThreadsOfThisProcess() {
        int runnable = 0;
        ByteBuffer buffer = ByteBuffer.allocate(512);
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                buffer.clear();
                try (FileChannel stat = FileChannel.open(task.resolve("stat"))) {
                    int n = stat.read(buffer, 0);
                    int close = -1;
                    for (int i = 0; i < n; i++) {
                        if (buffer.get(i) == ')') {
                            close = i;
                        }
                    }
                    if (close >= 0 && close + 2 < n && buffer.get(close + 2) == 'R') {
                        runnable++;
                    }
                } catch (IOException e) {
                    // the thread ended between the listing and the read: not runnable
                }
            }
            return runnable;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** {@link #look()}: running, waiting for a CPU, or unreadable (the thread ended). */
    static final int RUNNING = 0;
    /** {@link #look()}: asleep in the kernel outside a futex: blocked in native code. */
    static final int BLOCKED = 1;
    /** {@link #look()}: asleep in a futex: on a lock, in the JVM or in native code. */
    static final int FUTEX = 2;

    /** What the thread is doing now: {@link #RUNNING}, {@link #BLOCKED} or {@link #FUTEX}. */
    int look() {
        try {
            buffer.clear();
            int n = stat.read(buffer, 0);
            // "tid (comm) S ...": look after the last ')'.
            int close = lastCloseParen(n);
            if (close < 0 || close + 2 >= n) {
                return RUNNING;
            }
            byte state = buffer.get(close + 2);
            if (state != 'S' && state != 'D') {
                return RUNNING;
            }
            buffer.clear();
            n = wchan.read(buffer, 0);
            // "0": no longer waiting by the time wchan was read (it woke between the two reads).
            if (n <= 0 || n == 1 && buffer.get(0) == '0') {
                return RUNNING;
            }
            return startsWith(buffer, n, FUTEX_WAIT) ? FUTEX : BLOCKED;
        } catch (IOException | RuntimeException e) {
            return RUNNING;
        }
    }

    /**
     * How many times the kernel has put the thread on a CPU so far (the third field of
     * {@code schedstat}), or -1 where it cannot tell. A thread blocked in one wait all along is
     * not put on a CPU; one that waits at safepoints now and then, or for a CPU, is. Where the
     * kernel keeps no scheduler statistics, the thread's CPU time in clock ticks ({@code utime}
     * plus {@code stime} in {@code stat}) stands in: coarser, it changes only once the thread has
     * run a tick between two looks.
     */
    long slices() {
        try {
            buffer.clear();
            if (schedstat != null) {
                return field(schedstat.read(buffer, 0), 0, 3);
            }
            int n = stat.read(buffer, 0);
            int close = lastCloseParen(n);
            if (close < 0) {
                return -1;
            }
            // After "(comm)": state is field 3 of the line, utime 14 and stime 15.
            long utime = field(n, close + 1, 11);
            long stime = field(n, close + 1, 12);
            return utime < 0 || stime < 0 ? -1 : utime + stime;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The {@code index}th (from 1) run of digits in the buffer's first {@code n} bytes from {@code from}; -1 if none. */
    private long field(int n, int from, int index) {
        int field = 0;
        long value = 0;
        boolean inNumber = false;
        for (int i = from; i < n; i++) {
            byte b = buffer.get(i);
            if (b >= '0' && b <= '9') {
                value = inNumber ? value * 10 + (b - '0') : b - '0';
                inNumber = true;
            } else if (inNumber) {
                if (++field == index) {
                    return value;
                }
                inNumber = false;
            }
        }
        return inNumber && field == index - 1 ? value : -1;
    }

    /** Where "(comm)" ends in the {@code stat} line in the buffer: comm may hold spaces and parentheses. */
    private int lastCloseParen(int n) {
        int close = -1;
        for (int i = 0; i < n; i++) {
            if (buffer.get(i) == ')') {
                close = i;
            }
        }
        return close;
    }

    private static boolean startsWith(ByteBuffer buffer, int length, byte[] prefix) {
        if (length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (buffer.get(i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        close(stat);
        close(wchan);
        if (schedstat != null) {
            close(schedstat);
        }
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do: the descriptor is gone either way
        }
    }
}
