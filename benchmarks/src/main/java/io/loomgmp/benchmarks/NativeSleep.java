package io.loomgmp.benchmarks;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A blocking call that pins: C's {@code usleep} through the foreign-function API. A virtual
 * thread in a native call cannot unmount (there is a native frame on its stack), so its carrier
 * is blocked for the whole call, and no JDK 25 scheduler is told about it: ForkJoinPool's
 * compensation ({@code jdk.internal.misc.Blocker}) covers some JDK file and socket calls, not
 * native code. Needs {@code --enable-native-access=ALL-UNNAMED} to run without a warning.
 */
final class NativeSleep {
    @SuppressWarnings("restricted") // what --enable-native-access allows
    private static final MethodHandle USLEEP = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("usleep")
                    .orElseThrow(() -> new IllegalStateException("no usleep in the C library")),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private NativeSleep() {
    }

    /** Blocks the calling thread, and a virtual thread's carrier with it, in {@code usleep(micros)}. */
    static void sleepPinned(int micros) {
        try {
            int unused = (int) USLEEP.invokeExact(micros); // -1 (EINTR) on a signal: a shorter pin is fine
        } catch (Throwable e) {
            throw new IllegalStateException("usleep failed", e);
        }
    }
}
