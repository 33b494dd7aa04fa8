package example.app;

import io.loomgmp.bridge.Gmp;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A virtual thread that fills the heap until {@code OutOfMemoryError} and then, with the heap
 * still full, blocks entering a monitor that the main thread holds ({@code monitorenter}), or
 * enters it and waits on it ({@code timedwait}: {@code wait(5)}; {@code untimedwait}: {@code wait()}
 * until notified). The main thread releases the monitor (and notifies), and the virtual thread
 * must then run to its end: let the heap go and finish, with no exception. Run with a small heap
 * ({@code -Xmx48M}) under the agent; its preemption polls sit in this class's loops, and the
 * virtual thread's wake-up comes from the JDK's unblocker thread, from outside the scheduler.
 *
 * <p>While the heap is full the main thread touches nothing that allocates. If the virtual thread
 * has not finished within {@link #BOUND_NANOS}, the main thread lets the heap go itself and prints
 * {@code outcome=lost} with the virtual thread's state and stack: a lost wake-up, not a hang.
 * Then it creates the platform MBean server and prints whether the scheduler's MXBean appears
 * (the thread that registers it must survive the full heap too).
 *
 * <p>Prints {@code outcome=ok|failed|lost}, {@code mxbean=registered|missing} and
 * {@code failures=N}; exits 0 only if both are well. In this package, not loom-gmp's own, so that
 * the agent gives its loops preemption polls.
 */
public final class MonitorEnterOomeProbe {
    private static final long BOUND_NANOS = 30_000_000_000L;
    private static volatile Object data;
    /** Loaded before the heap is full: the main thread's checks must not load classes then. */
    private static final Thread.State BLOCKED = Thread.State.BLOCKED;
    private static final Thread.State WAITING = Thread.State.WAITING;

    public static void main(String[] args) throws Exception {
        String variant = args[0];
        boolean wait = !variant.equals("monitorenter");
        long timeout = variant.equals("timedwait") ? 5 : 0;
        Object lock = new Object();
        AtomicBoolean canFill = new AtomicBoolean();
        AtomicBoolean filled = new AtomicBoolean();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long deadline = System.nanoTime() + BOUND_NANOS;
        boolean late = false;
        Thread vthread;
        synchronized (lock) {
            vthread = Thread.ofVirtual().start(() -> {
                try {
                    while (!canFill.get()) {
                        Thread.onSpinWait();
                    }
                    data = fillHeap();
                    filled.set(true);
                    synchronized (lock) {
                        if (wait) {
                            lock.wait(timeout);
                        }
                    }
                    data = null;
                    System.gc();
                    done.set(true);
                } catch (Throwable e) {
                    data = null;
                    System.gc();
                    failure.set(e);
                }
            });
            canFill.set(true);
            while (!filled.get() && failure.get() == null && !(late = System.nanoTime() - deadline > 0)) {
                Thread.onSpinWait();
            }
            while (!late && failure.get() == null && vthread.getState() != BLOCKED
                    && !(late = System.nanoTime() - deadline > 0)) {
                Thread.onSpinWait();
            }
        }
        if (wait && timeout == 0 && !late && failure.get() == null) {
            while (vthread.getState() != WAITING && failure.get() == null && !(late = System.nanoTime() - deadline > 0)) {
                Thread.onSpinWait();
            }
            synchronized (lock) {
                lock.notify();
            }
        }
        while (!done.get() && failure.get() == null && !late) {
            late = System.nanoTime() - deadline > 0;
            Thread.onSpinWait();
        }
        boolean ok = done.get();
        if (ok) {
            vthread.join();
            System.out.println("outcome=ok");
        } else if (failure.get() != null) {
            System.out.println("outcome=failed " + failure.get());
            failure.get().printStackTrace(System.out);
        } else {
            data = null; // let the heap go, so that what follows can allocate
            System.gc();
            System.out.println("outcome=lost state=" + vthread.getState() + " filled=" + filled.get());
            for (StackTraceElement frame : vthread.getStackTrace()) {
                System.out.println("  at " + frame);
            }
            System.out.println(Gmp.scheduler().map(Object::toString).orElse("no GMP scheduler"));
        }
        boolean registered = mxbeanRegistered();
        System.out.println("mxbean=" + (registered ? "registered" : "missing"));
        System.out.println("failures=" + Gmp.scheduler().map(s -> s.snapshot().failures()).orElse(-1L));
        System.exit(ok && registered ? 0 : 1);
    }

    /** Creates the platform MBean server and waits, bounded, for the agent to register the scheduler's MXBean. */
    private static boolean mxbeanRegistered() throws Exception {
        var server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("io.loomgmp:type=Scheduler,name=gmp");
        long until = System.nanoTime() + 10_000_000_000L;
        while (!server.isRegistered(name)) {
            if (System.nanoTime() - until > 0) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** A chain of arrays, each as large as still fits, down to the smallest. */
    private static Object[] fillHeap() {
        Object[] first = null;
        Object[] last = null;
        int size = 1 << 20;
        while (size > 0) {
            try {
                Object[] array = new Object[size];
                if (first == null) {
                    first = array;
                } else {
                    last[0] = array;
                }
                last = array;
            } catch (OutOfMemoryError e) {
                size >>>= 1;
            }
        }
        return first;
    }
}
