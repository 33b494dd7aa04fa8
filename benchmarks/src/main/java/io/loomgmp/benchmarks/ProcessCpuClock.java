package io.loomgmp.benchmarks;

import com.sun.management.OperatingSystemMXBean;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Optional;

/**
 * The CPU time of this whole JVM process, in nanoseconds: the user and system time of every
 * thread, those that have ended included.
 *
 * <p>On 64-bit Linux it is {@code clock_gettime(CLOCK_PROCESS_CPUTIME_ID)}, called through the
 * foreign-function API: nanosecond resolution. Elsewhere it is
 * {@link OperatingSystemMXBean#getProcessCpuTime()}, whose resolution is the OS's; on Linux that
 * one counts clock ticks ({@code times(2)}: 10 ms), too coarse for the runner's 100 ms and 500 ms
 * iterations, which is why Linux does not use it. The native call is a restricted method: run
 * with {@code --enable-native-access=ALL-UNNAMED} (the runner does), or the JDK prints a warning
 * once.
 *
 * <p>One thread at a time may call {@link #nanos()} (it reuses one native buffer): the profiler's,
 * which JMH calls from one thread, and the saturation servers' stats thread. Public for those
 * servers ({@code io.loomgmp.benchmarks.saturation}).
 */
public final class ProcessCpuClock {
    /** {@code <time.h>} on Linux. */
    private static final int CLOCK_PROCESS_CPUTIME_ID = 2;

    private final MethodHandle clockGettime; // null: the MXBean
    private final MemorySegment timespec;
    private final OperatingSystemMXBean os;

    private ProcessCpuClock(MethodHandle clockGettime, MemorySegment timespec, OperatingSystemMXBean os) {
        this.clockGettime = clockGettime;
        this.timespec = timespec;
        this.os = os;
    }

    public static ProcessCpuClock create() {
        Optional<MethodHandle> linux = linuxClockGettime();
        if (linux.isPresent()) {
            // struct timespec on 64-bit Linux: time_t tv_sec, long tv_nsec.
            return new ProcessCpuClock(linux.get(), Arena.ofAuto().allocate(2 * Long.BYTES, Long.BYTES), null);
        }
        return new ProcessCpuClock(null, null, (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean());
    }

    /**
     * @return the process's CPU time so far, in nanoseconds
     * @throws IllegalStateException if the OS does not give it (the profiler's iteration fails with it)
     */
    public long nanos() {
        if (clockGettime == null) {
            long nanos = os.getProcessCpuTime();
            if (nanos < 0) {
                throw new IllegalStateException("this OS gives no process CPU time (getProcessCpuTime() = " + nanos + ")");
            }
            return nanos;
        }
        int result;
        try {
            result = (int) clockGettime.invokeExact(CLOCK_PROCESS_CPUTIME_ID, timespec);
        } catch (Throwable e) {
            throw new IllegalStateException("clock_gettime failed", e);
        }
        if (result != 0) {
            throw new IllegalStateException("clock_gettime(CLOCK_PROCESS_CPUTIME_ID) returned " + result);
        }
        return timespec.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + timespec.get(ValueLayout.JAVA_LONG, Long.BYTES);
    }

    @SuppressWarnings("restricted") // what --enable-native-access allows
    private static Optional<MethodHandle> linuxClockGettime() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                || ValueLayout.ADDRESS.byteSize() != Long.BYTES) {
            return Optional.empty();
        }
        Linker linker = Linker.nativeLinker();
        return linker.defaultLookup().find("clock_gettime").map(symbol -> linker.downcallHandle(symbol,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)));
    }
}
