package example.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One class-initialiser pin: a class loader that defines its own copy of {@link SlowInit}, whose
 * initialiser blocks in {@link #hold} until {@link #release} (or, for a sleeping gate, for a set
 * time). Virtual threads that {@link #pass} it are pinned meanwhile: the first runs the
 * initialiser, the others wait in the JVM for it to end. A gate is used once; once it and its
 * class are unreachable, a collection unloads them.
 *
 * <p>Any thread may call any method. {@link #hold} waits at most {@link #HOLD_BOUND_SECONDS}: a
 * release that never comes fails the initialiser ({@link IllegalStateException}, which every
 * thread passing the gate then sees) instead of pinning a carrier for good. What the
 * {@code whenLate} action throws fails the initialiser the same way.
 */
public final class InitGate extends ClassLoader {
    private static final String SLOW_INIT = "example.soak.SlowInit";
    /** The longest an initialiser waits for its release. */
    public static final long HOLD_BOUND_SECONDS = 60;
    private static final byte[] SLOW_INIT_BYTES = readSlowInit();

    private final long sleepNanos; // > 0: the initialiser sleeps that long; else it waits for release()
    private final Runnable whenLate;
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean releaseLate;

    static {
        registerAsParallelCapable();
    }

    /**
     * @param sleepNanos how long the initialiser sleeps (a timed block: the pinned carrier is
     *        {@code TIMED_WAITING}), or 0 to wait for {@link #release} ({@code WAITING})
     * @param whenLate  run by the initialiser, still pinned and blocking, when the release has
     *        not come within {@value #HOLD_BOUND_SECONDS} s, just before it fails: the moment to
     *        take the evidence of where the release is stuck
     */
    public InitGate(long sleepNanos, Runnable whenLate) {
        super("soak-init-gate", InitGate.class.getClassLoader());
        this.sleepNanos = sleepNanos;
        this.whenLate = whenLate;
    }

    /** Initialises this gate's class: blocks, pinned on a virtual thread, until the initialiser ends. */
    public void pass() {
        try {
            Class<?> slowInit = Class.forName(SLOW_INIT, true, this);
            if (slowInit.getClassLoader() != this) {
                throw new IllegalStateException(SLOW_INIT + " came from " + slowInit.getClassLoader() + ", not the gate");
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Lets a waiting initialiser finish. */
    public void release() {
        released.countDown();
    }

    /** Whether the initialiser gave up waiting for {@link #release} (and failed). */
    public boolean releaseLate() {
        return releaseLate;
    }

    /** Called by SlowInit's initialiser, pinned: sleeps, or waits for {@link #release}. */
    public void hold() {
        try {
            if (sleepNanos > 0) {
                Thread.sleep(Duration.ofNanos(sleepNanos));
            } else if (!released.await(HOLD_BOUND_SECONDS, TimeUnit.SECONDS)) {
                releaseLate = true;
                whenLate.run();
                throw new IllegalStateException("no release within " + HOLD_BOUND_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in a class initialiser", e);
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.equals(SLOW_INIT)) {
            return super.loadClass(name, resolve); // the parent's: InitGate itself among them
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            return loaded != null ? loaded : defineClass(name, SLOW_INIT_BYTES, 0, SLOW_INIT_BYTES.length);
        }
    }

    private static byte[] readSlowInit() {
        try (InputStream in = InitGate.class.getResourceAsStream("SlowInit.class")) {
            return Objects.requireNonNull(in, "SlowInit.class is not beside InitGate.class").readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
