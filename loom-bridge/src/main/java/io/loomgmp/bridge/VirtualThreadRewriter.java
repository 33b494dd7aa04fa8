package io.loomgmp.bridge;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.MethodTransform;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Rewrites {@code java.lang.VirtualThread}'s constructor so that new virtual threads get the GMP
 * scheduler instead of the JDK's ForkJoinPool. On JDK 25 the constructor has exactly one
 * {@code getstatic DEFAULT_SCHEDULER}, on the path taken when no scheduler was given and the
 * creating thread is not virtual (a virtual parent passes its own scheduler on). It becomes
 * <pre>
 *   getstatic     VirtualThread.DEFAULT_SCHEDULER
 *   invokestatic  LoomGmpSchedulerHook.scheduler(Executor)Executor   // GMP, or the argument if none
 * </pre>
 * The other reads of the field ({@code defaultScheduler()} for jcmd and the JDK's scheduler
 * MXBean, which require a ForkJoinPool) are left alone.
 *
 * <p>With timers on, it also prefixes {@code schedule(Runnable, long, TimeUnit)}, through which
 * every timed park, sleep and timed wait of a virtual thread schedules its timeout (on JDK 25 it
 * uses ForkJoinPool's delay queue only when the scheduler <em>is</em> a ForkJoinPool, and the
 * JDK's timer threads otherwise, which then wake the thread from outside the scheduler):
 * <pre>
 *   aload_0; getfield scheduler; aload_1; lload_2; aload 4
 *   invokestatic  LoomGmpSchedulerHook.schedule(Executor, Runnable, long, TimeUnit)Future
 *   dup; ifnull   original        // not a GMP scheduler: the JDK's own way
 *   areturn                       // a timer in the P's heap (GmpScheduler.schedule)
 * original:
 *   pop; ...the JDK's body, unchanged
 * </pre>
 * Both are method-body changes only, which retransformation allows.
 *
 * <p>It stays registered ({@link JdkClassRewriter}): a later retransformation of VirtualThread
 * would otherwise silently bring ForkJoinPool back.
 */
final class VirtualThreadRewriter extends JdkClassRewriter {
    static final String VIRTUAL_THREAD = "java/lang/VirtualThread";
    static final String FIELD = "DEFAULT_SCHEDULER";
    private static final ClassDesc CD_EXECUTOR = ClassDesc.of(Executor.class.getName());
    private static final MethodTypeDesc HOOK_TYPE = MethodTypeDesc.of(CD_EXECUTOR, CD_EXECUTOR);
    /** The private method through which a virtual thread schedules its timeouts. */
    static final String SCHEDULE = "schedule";
    static final MethodTypeDesc SCHEDULE_TYPE = MethodTypeDesc.of(ClassDesc.of(Future.class.getName()),
            ClassDesc.of(Runnable.class.getName()), ConstantDescs.CD_long, ClassDesc.of(TimeUnit.class.getName()));
    private static final String SCHEDULER_FIELD = "scheduler";

    private final boolean timers;

    /** @param timers also send virtual threads' timeouts to GMP's timers (see the class comment) */
    VirtualThreadRewriter(boolean timers) {
        super(VIRTUAL_THREAD);
        this.timers = timers;
    }

    @Override
    Rewrite apply(byte[] classBytes) {
        return rewrite(classBytes, timers);
    }

    /**
     * Rewrites every constructor read of DEFAULT_SCHEDULER and, if {@code timers}, prefixes every
     * {@code schedule(Runnable, long, TimeUnit)}; returns the bytes and the count of both.
     */
    static Rewrite rewrite(byte[] classBytes, boolean timers) {
        ClassFile classFile = ClassFile.of();
        ClassModel model = classFile.parse(classBytes);
        int[] sites = {0};
        CodeTransform hook = (code, element) -> {
            code.with(element);
            if (isDefaultSchedulerRead(element)) {
                code.invokestatic(SchedulerHook.CLASS_DESC, SchedulerHook.METHOD, HOOK_TYPE);
                sites[0]++;
            }
        };
        CodeTransform timerPrefix = CodeTransform.ofStateful(() -> new CodeTransform() {
            private boolean done;

            @Override
            public void accept(CodeBuilder code, CodeElement element) {
                if (!done) {
                    done = true;
                    Label original = code.newLabel();
                    code.aload(0)
                            .getfield(ClassDesc.ofInternalName(VIRTUAL_THREAD), SCHEDULER_FIELD, CD_EXECUTOR)
                            .aload(1)
                            .lload(2)
                            .aload(4)
                            .invokestatic(SchedulerHook.CLASS_DESC, SchedulerHook.SCHEDULE_METHOD,
                                    SchedulerHook.SCHEDULE_TYPE)
                            .dup()
                            .ifnull(original)
                            .areturn()
                            .labelBinding(original)
                            .pop();
                    sites[0]++;
                }
                code.with(element);
            }
        });
        ClassTransform transform = (clazz, element) -> {
            if (element instanceof MethodModel method && method.methodName().equalsString("<init>")) {
                clazz.transformMethod(method, MethodTransform.transformingCode(hook));
            } else if (timers && element instanceof MethodModel method && isSchedule(method)) {
                clazz.transformMethod(method, MethodTransform.transformingCode(timerPrefix));
            } else {
                clazz.with(element);
            }
        };
        byte[] bytes = classFile.transformClass(model, transform);
        return new Rewrite(bytes, sites[0]);
    }

    private static boolean isSchedule(MethodModel method) {
        return method.methodName().equalsString(SCHEDULE)
                && method.methodType().equalsString(SCHEDULE_TYPE.descriptorString())
                && (method.flags().flagsMask() & ClassFile.ACC_STATIC) == 0;
    }

    /**
     * Whether the running JDK's VirtualThread has the {@code schedule} method and the
     * {@code scheduler} field that the timers rewrite expects; {@code null} if it does, else what
     * differs.
     */
    static String timersShapeProblem(Class<?> virtualThread, byte[] classBytes) {
        long methods = ClassFile.of().parse(classBytes).methods().stream().filter(VirtualThreadRewriter::isSchedule).count();
        if (methods != 1) {
            return "expected one method schedule" + SCHEDULE_TYPE.descriptorString() + " in java.lang.VirtualThread, found "
                    + methods;
        }
        try {
            Field field = virtualThread.getDeclaredField(SCHEDULER_FIELD);
            if (Modifier.isStatic(field.getModifiers()) || field.getType() != Executor.class) {
                return "java.lang.VirtualThread." + SCHEDULER_FIELD + " is not an Executor instance field (" + field + ")";
            }
        } catch (NoSuchFieldException e) {
            return "java.lang.VirtualThread has no field " + SCHEDULER_FIELD;
        }
        return null;
    }

    /**
     * Checks that the running JDK's VirtualThread has the shape this rewrite expects.
     *
     * @return {@code null} if it does, else what differs
     */
    static String shapeProblem(Class<?> virtualThread, byte[] classBytes) {
        Field field;
        try {
            field = virtualThread.getDeclaredField(FIELD);
        } catch (NoSuchFieldException e) {
            return "java.lang.VirtualThread has no field " + FIELD;
        }
        if (!Modifier.isStatic(field.getModifiers()) || !Executor.class.isAssignableFrom(field.getType())) {
            return "java.lang.VirtualThread." + FIELD + " is not a static Executor (" + field + ")";
        }
        // Only the constructors' code is walked here: walking all of VirtualThread's, cold, took
        // about 0.1 s of every start-up. All readers are listed only to explain a mismatch.
        long constructorReads = constructorReadsOfDefaultScheduler(classBytes);
        if (constructorReads != 1) {
            return "expected one read of VirtualThread." + FIELD + " in a constructor, found "
                    + constructorReads + " (methods reading it: " + defaultSchedulerReaders(classBytes) + ")";
        }
        return null;
    }

    private static long constructorReadsOfDefaultScheduler(byte[] classBytes) {
        long reads = 0;
        for (MethodModel method : ClassFile.of().parse(classBytes).methods()) {
            if (method.methodName().equalsString("<init>") && method.code().isPresent()) {
                for (CodeElement element : method.code().get()) {
                    reads += isDefaultSchedulerRead(element) ? 1 : 0;
                }
            }
        }
        return reads;
    }

    /** Name and descriptor of every method of the class that reads DEFAULT_SCHEDULER, once per read. */
    static List<String> defaultSchedulerReaders(byte[] classBytes) {
        List<String> readers = new ArrayList<>();
        for (MethodModel method : ClassFile.of().parse(classBytes).methods()) {
            CodeModel code = method.code().orElse(null);
            if (code == null) {
                continue;
            }
            for (CodeElement element : code) {
                if (isDefaultSchedulerRead(element)) {
                    readers.add(method.methodName().stringValue() + method.methodType().stringValue());
                }
            }
        }
        return readers;
    }

    private static boolean isDefaultSchedulerRead(CodeElement element) {
        return element instanceof FieldInstruction field
                && field.opcode() == Opcode.GETSTATIC
                && field.owner().asInternalName().equals(VIRTUAL_THREAD)
                && field.name().equalsString(FIELD);
    }
}
