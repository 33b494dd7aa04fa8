package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.bridge.classfile.BackEdgeScan;
import io.loomgmp.bridge.classfile.MalformedClassException;
import io.loomgmp.bridge.classfile.PollWriter;
import io.loomgmp.dispatcher.loom.PendingPreemptions;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Inserts a guarded preemption poll into every loop of application classes as they are loaded:
 * in place of a {@code goto} back-edge (how javac closes {@code for} and {@code while} loops)
 * <pre>
 *   getstatic io/loomgmp/dispatcher/loom/PendingPreemptions.count:I
 *   ifeq head
 *   invokestatic io/loomgmp/bridge/Gmp.checkpoint()V
 *   goto head
 * </pre>
 * and for any other loop at its header: {@code head: getstatic ...count; ifeq over; invokestatic
 * Gmp.checkpoint()V; over:} (see {@link PollWriter} for why there). JDK 25 cannot preempt a
 * virtual thread, so these polls are how a CPU-bound one gives its carrier up when sysmon asks
 * (see {@link Gmp#checkpoint()}). The guard is {@code checkpoint()}'s own fast path, copied into
 * the loop: while the code runs interpreted, as much of a start-up does, it saves a call per turn
 * of every loop (a loop of {@code s += i} under {@code -Xint}: 8 ns a turn without a poll, 24 to
 * 28 with the call, 15 with the guard); compiled, the call was inlined anyway. The flag is
 * volatile, so the JIT reads it anew on every turn (see {@code PendingPreemptions.count}, which
 * also gives the ordering that makes a request seen).
 *
 * <p><b>Which classes.</b> Classes defined by a loader other than the boot and platform loaders
 * (the JDK's own code is never touched), except loom-gmp's own ({@code io.loomgmp.}), classes
 * being redefined or retransformed (the JVM hands those over with bytes this transformer may
 * already have changed, and a redefinition may not change the schema anyway), and classes whose
 * loader cannot link to {@code Gmp} (see {@link #reachesGmp}). {@code gmp.preempt.include}
 * narrows the set to the given binary-name prefixes, {@code gmp.preempt.exclude} removes
 * prefixes; an exclusion wins over an inclusion. The module of a class in a named module is made
 * to read the agent's module first (see {@link #canRead}).
 *
 * <p><b>First look, and the rewrite.</b> Most classes have no loop. {@link BackEdgeScan} reads the
 * raw bytes for the methods that have a back-edge; a class without one is left alone, unparsed.
 * {@link PollWriter} then inserts the polls into those methods' bytes (directly, or for a shape it
 * does not edit as bytes through the ClassFile API: the same polls at the same places).
 *
 * <p><b>Where.</b> A back-edge is a branch instruction (conditional or {@code goto}) whose target
 * is earlier in the method's code. Every cycle of branches contains a backward branch, so every loop that
 * javac, kotlinc or scalac emits gets a poll; a cycle closed only by a switch, an exception edge
 * or {@code jsr}/{@code ret} (none of which compilers emit for loops) gets none. A {@code goto}
 * back-edge is replaced by its poll, whose fast path jumps to the {@code goto}'s target; any other
 * back-edge's poll goes at its target, the loop's header, as only there the frame that the
 * guard's branch target needs is known without a type analysis (see {@link PollWriter}). A method
 * that the polls would push past HotSpot's limit for compiling keeps its loops unpolled (see
 * {@link #HUGE_METHOD_LIMIT}).
 *
 * <p><b>Failure.</b> Whatever fails (a malformed class file, a method that would outgrow 64 KiB) leaves the class exactly as it was ({@code null} is returned) and is
 * counted ({@link #failures()}): a class without polls is better than a class that does not load.
 *
 * <p>Any thread may call {@link #transform}, concurrently; the only shared state is the counters
 * (failures, and those of {@link #stats}).
 */
final class PreemptionPolls implements ClassFileTransformer {
    static final String GMP_INTERNAL_NAME = Gmp.class.getName().replace('.', '/');
    static final String CHECKPOINT = "checkpoint";
    /**
     * The guard's flag, {@code PendingPreemptions.count}: in the agent jar with {@code Gmp}, so a
     * loader that links to {@code Gmp} (see {@link #reachesGmp}) links to it too.
     */
    static final String FLAG_OWNER_INTERNAL_NAME = PendingPreemptions.class.getName().replace('.', '/');
    static final String FLAG = "count";
    private static final String OWN_PREFIX = "io/loomgmp/";
    /**
     * HotSpot compiles no method with more bytecode than this ({@code HugeMethodLimit}, fixed in
     * product builds; {@code -XX:-DontCompileHugeMethods} lifts it). A poll adds 12 bytes, so a
     * method just under the limit would silently become interpreted-only: such a method keeps its
     * loops unpolled instead.
     */
    static final int HUGE_METHOD_LIMIT = 8000;
    /** The most code a method may have (JVMS 4.7.3). */
    static final int MAX_CODE_LENGTH = 0xFFFF;
    private static final int POLL_BYTES = PollWriter.POLL_BYTES; // the larger of PollWriter's and the ClassFile API's 9

    private final List<String> include; // internal-name prefixes ("com/acme/"); empty: every class
    private final List<String> exclude;
    private final Instrumentation instrumentation; // null: classes of named modules are left alone
    private final AtomicLong failures = new AtomicLong();
    /** Classes looked at (selected, reaching Gmp), classes given polls, and the time spent on both. */
    // AtomicLongs, not LongAdders: classes mostly load one at a time, and a LongAdder's
    // VarHandle path is slow while this runs interpreted, early in start-up.
    private final AtomicLong examined = new AtomicLong();
    private final AtomicLong instrumented = new AtomicLong();
    private final AtomicLong viaClassFileApi = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();

    /**
     * @param include binary-name prefixes ({@code com.acme.}); empty means every class
     * @param exclude binary-name prefixes to leave alone
     * @param instrumentation to let a named module read loom-gmp, or null to leave the classes of
     *        named modules that cannot read it alone
     */
    PreemptionPolls(List<String> include, List<String> exclude, Instrumentation instrumentation) {
        this.include = internalNames(include);
        this.exclude = internalNames(exclude);
        this.instrumentation = instrumentation;
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> classBeingRedefined,
                            ProtectionDomain protectionDomain, byte[] classBytes) {
        long start = System.nanoTime();
        try {
            if (!selects(loader, className, classBeingRedefined) || !reachesGmp(loader)) {
                return null;
            }
            examined.incrementAndGet();
            byte[] polled = instrument(classBytes, viaClassFileApi);
            if (polled == null || !canRead(module)) {
                return null;
            }
            instrumented.incrementAndGet();
            return polled;
        } catch (Throwable e) {
            // Never let class loading fail because of a poll; the JVM would swallow it anyway.
            failures.incrementAndGet();
            return null;
        } finally {
            nanos.addAndGet(System.nanoTime() - start);
        }
    }

    /**
     * One line of what the transformer did so far, for {@code -Dgmp.preempt.stats=true}: the
     * start-up cost of the polls, and the failures that otherwise only {@link #failures} tells.
     */
    String stats() {
        return String.format("loom-gmp: preemption polls: %d classes examined, %d given polls (%d through the ClassFile API),"
                + " %d failed, %.1f ms in the transformer (wall time)",
                examined.get(), instrumented.get(), viaClassFileApi.get(), failures.get(), nanos.get() / 1e6);
    }

    /** How many classes were left without polls because instrumenting them failed. */
    long failures() {
        return failures.get();
    }

    /** Whether a class is one to instrument, by its loader and its internal name alone. */
    boolean selects(ClassLoader loader, String className, Class<?> classBeingRedefined) {
        if (loader == null || loader == ClassLoader.getPlatformClassLoader()
                || className == null // defineClass(null, ...): nothing to filter on
                || classBeingRedefined != null || className.startsWith(OWN_PREFIX)) {
            return false;
        }
        // Loops rather than streams: this runs for every class loaded, from the first.
        if (!include.isEmpty() && !startsWithAny(className, include)) {
            return false;
        }
        return !startsWithAny(className, exclude);
    }

    private static boolean startsWithAny(String className, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code loader} links {@code Gmp} to the agent's own class: only if the agent's
     * loader is among its ancestors, as with the class path, web-application and fat-jar loaders.
     * A loader without that parent (an OSGi bundle, an isolated plugin loader) would fail with
     * NoClassDefFoundError at the first poll, so its classes get none.
     */
    static boolean reachesGmp(ClassLoader loader) {
        ClassLoader ours = Gmp.class.getClassLoader();
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            if (l == ours) {
                return true;
            }
        }
        return false;
    }

    /**
     * A class of a named module may link to {@code Gmp} (in the agent's unnamed module, which
     * exports every package) only if its module reads that module; the read edge is added here,
     * once there are polls to add.
     */
    private boolean canRead(Module module) {
        Module ours = Gmp.class.getModule();
        if (module == null || module.canRead(ours)) {
            return true;
        }
        if (instrumentation == null) {
            return false;
        }
        instrumentation.redefineModule(module, Set.of(ours), Map.of(), Map.of(), Set.of(), Map.of());
        return true;
    }

    /**
     * The class with a guarded poll on each loop (in place of a {@code goto} back-edge, else at the header), or {@code null} if it has no back-edge to poll
     * (then its bytes are not rewritten at all). The methods to change are found by
     * {@link BackEdgeScan} on the raw bytes, and {@link PollWriter#write} inserts the polls into them.
     *
     * @throws MalformedClassException if the scan cannot walk the bytes
     * @throws IllegalArgumentException (among others) if the ClassFile API cannot
     */
    static byte[] instrument(byte[] classBytes) {
        return instrument(classBytes, new AtomicLong());
    }

    /** {@link #instrument(byte[])}, counting in {@code viaClassFileApi} the classes left to the ClassFile API. */
    static byte[] instrument(byte[] classBytes, AtomicLong viaClassFileApi) {
        BackEdgeScan.Result scan = BackEdgeScan.scan(classBytes);
        List<BackEdgeScan.Method> polled = new ArrayList<>(scan.looping().size());
        for (BackEdgeScan.Method method : scan.looping()) {
            // Not a class initialiser: a virtual thread running one is pinned (the JVM's call into
            // it is on the stack), so a poll there could never yield; it would only slow the
            // loops that start-up runs, interpreted, to fill static tables.
            // Nor a method that its polls would push past 64 KiB of code, which no path could write.
            if (!becomesHuge(method.codeLength(), method.polls()) && !method.nameAndType().startsWith("<clinit>")
                    && method.codeLength() + POLL_BYTES * method.polls() <= MAX_CODE_LENGTH) {
                polled.add(method);
            }
        }
        if (polled.isEmpty()) {
            return null;
        }
        return PollWriter.write(classBytes, scan, polled, GMP_INTERNAL_NAME, CHECKPOINT, FLAG_OWNER_INTERNAL_NAME, FLAG,
                viaClassFileApi);
    }

    /** Whether its polls would push a compilable method past the JIT's limit. */
    private static boolean becomesHuge(int codeLength, int polls) {
        return codeLength <= HUGE_METHOD_LIMIT && codeLength + POLL_BYTES * polls > HUGE_METHOD_LIMIT;
    }

    private static List<String> internalNames(List<String> binaryNamePrefixes) {
        List<String> names = new ArrayList<>(binaryNamePrefixes.size());
        for (String prefix : binaryNamePrefixes) {
            names.add(prefix.replace('.', '/'));
        }
        return List.copyOf(names);
    }
}
