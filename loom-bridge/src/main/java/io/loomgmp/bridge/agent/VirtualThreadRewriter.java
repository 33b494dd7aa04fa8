package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.classfile.ClassPatch;
import io.loomgmp.bridge.classfile.UnsupportedShape;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

import static io.loomgmp.bridge.classfile.Bytecode.ALOAD;
import static io.loomgmp.bridge.classfile.Bytecode.ALOAD_0;
import static io.loomgmp.bridge.classfile.Bytecode.ALOAD_1;
import static io.loomgmp.bridge.classfile.Bytecode.ARETURN;
import static io.loomgmp.bridge.classfile.Bytecode.DUP;
import static io.loomgmp.bridge.classfile.Bytecode.GETFIELD;
import static io.loomgmp.bridge.classfile.Bytecode.IFNULL;
import static io.loomgmp.bridge.classfile.Bytecode.INVOKESTATIC;
import static io.loomgmp.bridge.classfile.Bytecode.LLOAD_2;
import static io.loomgmp.bridge.classfile.Bytecode.NOP;
import static io.loomgmp.bridge.classfile.Bytecode.POP;

/**
 * Rewrites {@code java.lang.VirtualThread}'s constructor so that new virtual threads get the GMP
 * scheduler instead of the JDK's ForkJoinPool. On JDK 25 the constructor has exactly one
 * {@code getstatic DEFAULT_SCHEDULER}, on the path taken when no scheduler was given and the
 * creating thread is not virtual (a virtual parent passes its own scheduler on). It becomes a
 * call of the same size, so that no other code moves:
 * <pre>
 *   invokestatic  LoomGmpSchedulerHook.scheduler()Executor   // was: getstatic VirtualThread.DEFAULT_SCHEDULER
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
 *   pop; nop; nop; nop            // the nops keep the prefix a multiple of 4 bytes long
 *   ...the JDK's body, unchanged
 * </pre>
 * Both are method-body changes only, which retransformation allows. They are made on the bytes
 * ({@link ClassPatch}); the shape they need is checked on the bytes the JVM hands the
 * transformer, so the agent never reads the class from the run-time image itself.
 *
 * <p>It hands the JVM bytes only for the whole rewrite: the constructor's read, and
 * {@code schedule} too or a reason why not ({@link #lastTimersProblem}); a constructor of another
 * shape leaves the class as it is ({@link #lastShapeProblem}), and the agent then takes back its
 * start-up ({@link Rollback}), this transformer included. Once VirtualThread is rewritten it
 * stays registered ({@link JdkClassRewriter}): a later retransformation of VirtualThread would
 * otherwise silently bring ForkJoinPool back.
 */
final class VirtualThreadRewriter extends JdkClassRewriter {
    static final String VIRTUAL_THREAD = "java/lang/VirtualThread";
    static final String FIELD = "DEFAULT_SCHEDULER";
    /** The private method through which a virtual thread schedules its timeouts. */
    static final String SCHEDULE = "schedule";
    static final String SCHEDULE_DESCRIPTOR =
            "(Ljava/lang/Runnable;JLjava/util/concurrent/TimeUnit;)Ljava/util/concurrent/Future;";
    private static final String SCHEDULER_FIELD = "scheduler";
    private static final String EXECUTOR = "Ljava/util/concurrent/Executor;";

    private final boolean timers;
    private volatile String lastShapeProblem;
    private volatile String lastTimersProblem;

    /** @param timers also send virtual threads' timeouts to GMP's timers (see the class comment) */
    VirtualThreadRewriter(boolean timers) {
        super(VIRTUAL_THREAD);
        this.timers = timers;
    }

    @Override
    Rewrite apply(byte[] classBytes) {
        ClassPatch patch = ClassPatch.of(classBytes);
        String timersProblem = timers ? scheduleProblem(patch) : null;
        String[] prefixProblem = {null};
        Rewrite rewrite = rewrite(patch, timers && timersProblem == null, prefixProblem);
        // No site means the constructors' reads were not exactly one: say what they were (walked
        // again only then).
        lastShapeProblem = rewrite.sites() == 0 ? constructorProblem(patch) : null;
        lastTimersProblem = timersProblem != null ? timersProblem : prefixProblem[0];
        return rewrite;
    }

    /**
     * Why the last run left the class alone: its constructors do not read DEFAULT_SCHEDULER
     * exactly once; null if they do (or it has not run).
     */
    String lastShapeProblem() {
        return lastShapeProblem;
    }

    /** Why the last run, with timers on, left {@code schedule} alone; null if it prefixed it. */
    String lastTimersProblem() {
        return lastTimersProblem;
    }

    /**
     * Rewrites the constructor read of DEFAULT_SCHEDULER and, if {@code timers}, prefixes
     * {@code schedule(Runnable, long, TimeUnit)}; returns the bytes and the count of both. A
     * class whose shape differs (see {@link #shapeProblem}, {@link #timersShapeProblem}) is
     * left alone where it differs.
     */
    static Rewrite rewrite(byte[] classBytes, boolean timers) {
        ClassPatch patch = ClassPatch.of(classBytes);
        return rewrite(patch, timers && scheduleProblem(patch) == null, new String[1]);
    }

    /** @param prefixProblem gets why {@code schedule} could not be prefixed, if it could not */
    private static Rewrite rewrite(ClassPatch patch, boolean timers, String[] prefixProblem) {
        int sites = 0;
        List<Integer> reads = constructorReads(patch);
        if (reads.size() == 1) {
            int hook = patch.methodref(SchedulerHook.INTERNAL_NAME, SchedulerHook.METHOD, SchedulerHook.METHOD_DESCRIPTOR);
            patch.replaceInstruction(reads.get(0), INVOKESTATIC, hook);
            sites++;
        } else {
            return new Rewrite(null, 0); // the shape check says why; a half-rewritten class helps nobody
        }
        if (timers) {
            try {
                prefixSchedule(patch);
                sites++;
            } catch (UnsupportedShape e) {
                // Timers are a speed-up: the constructor's rewrite goes ahead without them.
                prefixProblem[0] = "cannot prefix java.lang.VirtualThread." + SCHEDULE + ": " + e.getMessage();
            }
        }
        return new Rewrite(patch.toBytes(), sites);
    }

    private static void prefixSchedule(ClassPatch patch) {
        int scheduler = patch.fieldref(VIRTUAL_THREAD, SCHEDULER_FIELD, EXECUTOR);
        int hook = patch.methodref(SchedulerHook.INTERNAL_NAME, SchedulerHook.SCHEDULE_METHOD,
                SchedulerHook.SCHEDULE_DESCRIPTOR);
        int future = patch.classEntry("java/util/concurrent/Future");
        byte[] prefix = {
            ALOAD_0,                                         // 0: aload_0
            (byte) GETFIELD, hi(scheduler), lo(scheduler),   // 1: getfield scheduler
            ALOAD_1,                                         // 4: aload_1
            LLOAD_2,                                         // 5: lload_2
            ALOAD, 4,                                        // 6: aload 4
            (byte) INVOKESTATIC, hi(hook), lo(hook),         // 8: invokestatic hook.schedule
            DUP,                                             // 11: dup
            (byte) IFNULL, 0, 4,                             // 12: ifnull 16
            (byte) ARETURN,                                  // 15: areturn
            POP,                                             // 16: pop (the label "original")
            NOP, NOP, NOP,                                   // 17: nop x3, to 20 bytes
        };
        // At 16 the locals are the parameters and the stack holds the hook's null Future.
        patch.prefix(method(patch, SCHEDULE, SCHEDULE_DESCRIPTOR, false), prefix, 5,
                ClassPatch.sameLocalsOneObject(16, future));
    }

    private static byte hi(int index) {
        return (byte) (index >> 8);
    }

    private static byte lo(int index) {
        return (byte) index;
    }

    private static ClassPatch.Method method(ClassPatch patch, String name, String descriptor, boolean isStatic) {
        ClassPatch.Method method = patch.method(name, descriptor, isStatic);
        if (method == null) {
            throw new UnsupportedShape("no method " + name + descriptor);
        }
        return method;
    }

    private static List<Integer> constructorReads(ClassPatch patch) {
        List<Integer> reads = new ArrayList<>(1);
        for (ClassPatch.Method method : patch.methods()) {
            if (method.name().equals("<init>")) {
                reads.addAll(patch.staticReads(method, VIRTUAL_THREAD, FIELD));
            }
        }
        return reads;
    }

    /** What differs from one read of DEFAULT_SCHEDULER in a constructor; null if nothing does. */
    private static String constructorProblem(ClassPatch patch) {
        int reads = constructorReads(patch).size();
        if (reads == 1) {
            return null;
        }
        List<String> readers = new ArrayList<>();
        for (ClassPatch.Method method : patch.methods()) {
            for (int i = patch.staticReads(method, VIRTUAL_THREAD, FIELD).size(); i > 0; i--) {
                readers.add(method.name() + method.descriptor());
            }
        }
        return "expected one read of VirtualThread." + FIELD + " in a constructor, found " + reads
                + " (methods reading it: " + readers + ")";
    }

    /** What differs from one instance method {@code schedule(Runnable, long, TimeUnit)}; null if nothing does. */
    private static String scheduleProblem(ClassPatch patch) {
        int methods = 0;
        for (ClassPatch.Method method : patch.methods()) {
            methods += method.name().equals(SCHEDULE) && method.descriptor().equals(SCHEDULE_DESCRIPTOR)
                    && !method.isStatic() ? 1 : 0;
        }
        return methods == 1 ? null : "expected one method " + SCHEDULE + SCHEDULE_DESCRIPTOR
                + " in java.lang.VirtualThread, found " + methods;
    }

    /**
     * Whether the running JDK's VirtualThread has the {@code schedule} method and the
     * {@code scheduler} field that the timers rewrite expects; {@code null} if it does, else what
     * differs.
     */
    static String timersShapeProblem(Class<?> virtualThread, byte[] classBytes) {
        String problem = scheduleProblem(ClassPatch.of(classBytes));
        return problem != null ? problem : timersFieldProblem(virtualThread);
    }

    /** Whether {@code scheduler} is an Executor instance field; null if it is, else what differs. */
    static String timersFieldProblem(Class<?> virtualThread) {
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
        String problem = fieldProblem(virtualThread);
        return problem != null ? problem : constructorProblem(ClassPatch.of(classBytes));
    }

    /** Whether DEFAULT_SCHEDULER is a static Executor; null if it is, else what differs. */
    static String fieldProblem(Class<?> virtualThread) {
        Field field;
        try {
            field = virtualThread.getDeclaredField(FIELD);
        } catch (NoSuchFieldException e) {
            return "java.lang.VirtualThread has no field " + FIELD;
        }
        if (!Modifier.isStatic(field.getModifiers()) || !Executor.class.isAssignableFrom(field.getType())) {
            return "java.lang.VirtualThread." + FIELD + " is not a static Executor (" + field + ")";
        }
        return null;
    }
}
