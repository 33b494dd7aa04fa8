package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.bridge.classfile.BackEdgeScan;
import io.loomgmp.bridge.classfile.MalformedClassException;
import io.loomgmp.bridge.classfile.PollWriter;
import io.loomgmp.bridge.classfile.UnsupportedShape;
import io.loomgmp.dispatcher.loom.PendingPreemptions;

import java.lang.classfile.ClassFile;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.Instruction;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.attribute.StackMapFrameInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.ObjectVerificationTypeInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.SimpleVerificationTypeInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.VerificationTypeInfo;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.Label;
import java.lang.classfile.attribute.StackMapTableAttribute;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.LabelTarget;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.instrument.ClassFileTransformer;
import java.lang.reflect.AccessFlag;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * {@link PollWriter} then inserts the polls into those methods' bytes directly; only a shape it
 * leaves alone (a type annotation on code, a branch that would outgrow 16 bits) goes through the
 * ClassFile API, which rewrites those methods alone. Both insert the same polls at the same
 * places; the ClassFile API's generality cost start-up mostly in the JIT compiling it.
 *
 * <p><b>Where.</b> A back-edge is a branch instruction (conditional or {@code goto}) whose target
 * label is bound earlier in the method's code. The ClassFile API streams a method's code in
 * bytecode order with a {@link LabelTarget} where each label is bound, so "bound earlier" is "seen
 * earlier in the stream". Every cycle of branches contains a backward branch, so every loop that
 * javac, kotlinc or scalac emits gets a poll; a cycle closed only by a switch, an exception edge
 * or {@code jsr}/{@code ret} (none of which compilers emit for loops) gets none. A {@code goto}
 * back-edge is replaced by its poll, whose fast path jumps to the {@code goto}'s target; any other
 * back-edge's poll goes at its target, the loop's header, as only there the frame that the
 * guard's branch target needs is known without a type analysis (see {@link PollWriter}). A method
 * that the polls would push past HotSpot's limit for compiling keeps its loops unpolled (see
 * {@link #HUGE_METHOD_LIMIT}).
 *
 * <p><b>Stack maps.</b> Inserting code moves offsets, but the guard leaves the stack and the
 * locals as it found them, so every frame of a changed method's StackMapTable still holds, only at
 * a new offset, and the frames added (at a header's {@code over}, and at each call, which becomes
 * a branch target where this builder widens the guard's branch) are copies of the header's or the
 * {@code goto} target's:
 * the original frames are written back against the ClassFile API's labels, which follow the code
 * as it moves, with the copies added, rather than regenerated. Regenerating them would need the
 * class hierarchy at every join point that merges two reference types, read from class files
 * through the defining loader's resources: most of the transformer's cost, and a failure for any
 * class whose supertypes cannot be read that way. Class files before version 50 have no stack
 * maps and get none. The maximum stack depth is recomputed ({@code getstatic} pushes an int).
 *
 * <p><b>Failure.</b> Whatever fails (a malformed class file, a method that would outgrow 64 KiB) leaves the class exactly as it was ({@code null} is returned) and is
 * counted ({@link #failures()}): a class without polls is better than a class that does not load.
 *
 * <p>Any thread may call {@link #transform}, concurrently; the only shared state is the counters
 * (failures, and those of {@link #stats}).
 */
final class PreemptionPolls implements ClassFileTransformer {
    static final ClassDesc GMP = ClassDesc.of(Gmp.class.getName());
    static final String GMP_INTERNAL_NAME = Gmp.class.getName().replace('.', '/');
    static final String CHECKPOINT = "checkpoint";
    /**
     * The guard's flag, {@code PendingPreemptions.count}: in the agent jar with {@code Gmp}, so a
     * loader that links to {@code Gmp} (see {@link #reachesGmp}) links to it too.
     */
    static final ClassDesc FLAG_OWNER = ClassDesc.of(PendingPreemptions.class.getName());
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
     * {@link BackEdgeScan} on the raw bytes, and {@link PollWriter} inserts the polls into them;
     * only a shape that it leaves alone goes through the ClassFile API, which then inflates the
     * code of those methods alone (the others are copied as they are).
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
        try {
            return PollWriter.insert(classBytes, scan, polled, GMP_INTERNAL_NAME, CHECKPOINT, FLAG_OWNER_INTERNAL_NAME, FLAG);
        } catch (UnsupportedShape e) {
            viaClassFileApi.incrementAndGet();
            Set<String> names = new HashSet<>(); // name + descriptor of each method to change
            for (BackEdgeScan.Method method : polled) {
                names.add(method.nameAndType());
            }
            return withClassFileApi(classBytes, names);
        }
    }

    /** The ClassFile API path: guarded polls in the methods named in {@code polled} (name and descriptor). */
    static byte[] withClassFileApi(byte[] classBytes, Set<String> polled) {
        ClassFile classFile = ClassFile.of(ClassFile.StackMapsOption.DROP_STACK_MAPS); // the originals are kept instead
        ClassModel model = classFile.parse(classBytes);
        ClassDesc thisClass = model.thisClass().asSymbol();
        return classFile.transformClass(model, ClassTransform.transformingMethods(
                method -> polled.contains(method.methodName().stringValue() + method.methodType().stringValue()),
                (method, element) -> {
                    if (element instanceof CodeModel code) {
                        Optional<StackMapTableAttribute> frames = code.findAttribute(Attributes.stackMapTable());
                        List<Set<Label>> plan = plan(code);
                        List<VerificationTypeInfo> initial = initialLocals(thisClass, code.parent().orElseThrow());
                        // Stateful: the builder may run the transform again (to widen a branch that outgrew 16 bits).
                        method.transformCode(code, CodeTransform.ofStateful(
                                () -> new PollLoops(plan.get(0), plan.get(1), frames, initial)));
                    } else {
                        method.with(element);
                    }
                }));
    }

    /**
     * Where the polls of {@code code} go, as in {@link PollWriter}: {@code [0]} the loop headers
     * (the targets of its back-edges other than a {@code goto}), {@code [1]} the targets of the
     * {@code goto} back-edges that are replaced by a poll (those to any other target).
     */
    private static List<Set<Label>> plan(CodeModel code) {
        BackEdges backEdges = new BackEdges();
        Set<Label> headers = new HashSet<>();
        List<Label> gotoTargets = new ArrayList<>();
        for (CodeElement element : code) {
            if (backEdges.isBackEdge(element)) {
                BranchInstruction branch = (BranchInstruction) element;
                if (branch.opcode() == Opcode.GOTO) {
                    gotoTargets.add(branch.target());
                } else {
                    headers.add(branch.target());
                }
            }
        }
        Set<Label> tailTargets = new HashSet<>(gotoTargets);
        tailTargets.removeAll(headers);
        return List.of(headers, tailTargets);
    }

    /** The locals of a method's implicit first frame: {@code this} (uninitialised in a constructor), then its arguments. */
    private static List<VerificationTypeInfo> initialLocals(ClassDesc thisClass, MethodModel method) {
        List<VerificationTypeInfo> locals = new ArrayList<>();
        if (!method.flags().has(AccessFlag.STATIC)) {
            locals.add(method.methodName().equalsString(ConstantDescs.INIT_NAME)
                    ? SimpleVerificationTypeInfo.UNINITIALIZED_THIS : ObjectVerificationTypeInfo.of(thisClass));
        }
        for (ClassDesc parameter : method.methodTypeSymbol().parameterList()) {
            locals.add(switch (parameter.descriptorString().charAt(0)) {
                case 'Z', 'B', 'C', 'S', 'I' -> SimpleVerificationTypeInfo.INTEGER;
                case 'F' -> SimpleVerificationTypeInfo.FLOAT;
                case 'J' -> SimpleVerificationTypeInfo.LONG;
                case 'D' -> SimpleVerificationTypeInfo.DOUBLE;
                default -> ObjectVerificationTypeInfo.of(parameter);
            });
        }
        return locals;
    }

    /** Whether its polls would push a compilable method past the JIT's limit. */
    private static boolean becomesHuge(int codeLength, int polls) {
        return codeLength <= HUGE_METHOD_LIMIT && codeLength + POLL_BYTES * polls > HUGE_METHOD_LIMIT;
    }

    /**
     * Recognises back-edges in one method's code, fed its elements in stream (bytecode) order.
     * Invariant: {@code bound} holds exactly the labels bound before the current element.
     */
    static final class BackEdges {
        private final Set<Label> bound = new HashSet<>();

        /** Feeds the next element; true if it is a branch to a label bound before it. */
        boolean isBackEdge(CodeElement element) {
            if (element instanceof LabelTarget target) {
                bound.add(target.label());
                return false;
            }
            return element instanceof BranchInstruction branch && bound.contains(branch.target());
        }
    }

    /**
     * The code transform of one method: one instance per method, as its state is per method. A
     * header's guard goes in front of the first instruction after the header's label, so that the
     * label (and whatever else points at that offset: its frame, its line, a try block's start)
     * now leads through it; a {@code goto} back-edge to any other target becomes
     * {@code getstatic; ifeq head; invokestatic; goto head}. The method's original stack map
     * frames are written back at the end with a copy of the header's frame at each new label
     * (see "Stack maps" above), in the order the labels were bound.
     */
    private static final class PollLoops implements CodeTransform {
        private final Set<Label> headers;
        private final Set<Label> tailTargets;
        private final Optional<StackMapTableAttribute> frames;
        private final List<VerificationTypeInfo> initialLocals;
        /** Per header or goto target: the new labels whose frame is a copy of its. */
        private final Map<Label, List<Label>> copies = new HashMap<>();
        /** Every label bound, in order: the frames' order. */
        private final Map<Label, Integer> order = new HashMap<>();
        private Label pending; // a header bound, its poll not yet written
        private final List<Label> atStart = new ArrayList<>(); // new labels with the implicit frame's copy
        private boolean started; // an instruction was written

        PollLoops(Set<Label> headers, Set<Label> tailTargets, Optional<StackMapTableAttribute> frames,
                  List<VerificationTypeInfo> initialLocals) {
            this.headers = headers;
            this.tailTargets = tailTargets;
            this.frames = frames;
            this.initialLocals = initialLocals;
        }

        private void bind(CodeBuilder code, Label label, Label copyOf) {
            code.labelBinding(label);
            order.put(label, order.size());
            copies.computeIfAbsent(copyOf, k -> new ArrayList<>()).add(label);
        }

        @Override
        public void accept(CodeBuilder code, CodeElement element) {
            if (element instanceof LabelTarget target) {
                order.put(target.label(), order.size());
                if (headers.contains(target.label())) {
                    pending = target.label();
                }
            } else if (element instanceof Instruction && pending != null) {
                // The call gets a frame too, though no branch of the guard's targets it: where this
                // builder must widen a branch that outgrew 16 bits it widens every branch, the
                // guard's ifeq to "ifne call; goto_w over; call:", and then it is one.
                Label call = code.newLabel();
                Label over = code.newLabel();
                code.getstatic(FLAG_OWNER, FLAG, ConstantDescs.CD_int).ifeq(over);
                bind(code, call, pending);
                code.invokestatic(GMP, CHECKPOINT, ConstantDescs.MTD_void);
                bind(code, over, pending);
                if (!started) {
                    atStart.add(call);
                    atStart.add(over);
                }
                pending = null;
            }
            if (element instanceof Instruction) {
                started = true;
            }
            if (element instanceof BranchInstruction branch && branch.opcode() == Opcode.GOTO
                    && tailTargets.contains(branch.target()) && order.containsKey(branch.target())) {
                // A goto back-edge (its target bound before it): the poll in its place, the fast
                // path straight to the target. The call's frame is the target's (see above).
                Label call = code.newLabel();
                code.getstatic(FLAG_OWNER, FLAG, ConstantDescs.CD_int).ifeq(branch.target());
                bind(code, call, branch.target());
                code.invokestatic(GMP, CHECKPOINT, ConstantDescs.MTD_void);
            }
            code.with(element);
        }

        @Override
        public void atEnd(CodeBuilder code) {
            if (frames.isEmpty()) {
                return; // before version 50: the verifier infers the types
            }
            List<StackMapFrameInfo> entries = new ArrayList<>();
            for (Label label : atStart) { // a header at 0 has the implicit frame, unless one is given there
                if (frames.get().entries().stream().noneMatch(frame -> order.get(frame.target()) < order.get(label))) {
                    entries.add(StackMapFrameInfo.of(label, initialLocals, List.of()));
                }
            }
            for (StackMapFrameInfo frame : frames.get().entries()) {
                entries.add(frame);
                for (Label label : copies.getOrDefault(frame.target(), List.of())) {
                    entries.add(StackMapFrameInfo.of(label, frame.locals(), frame.stack()));
                }
            }
            entries.sort(java.util.Comparator.comparingInt(frame -> order.getOrDefault(frame.target(), -1)));
            code.with(StackMapTableAttribute.of(entries));
        }
    }

    private static List<String> internalNames(List<String> binaryNamePrefixes) {
        List<String> names = new ArrayList<>(binaryNamePrefixes.size());
        for (String prefix : binaryNamePrefixes) {
            names.add(prefix.replace('.', '/'));
        }
        return List.copyOf(names);
    }
}
