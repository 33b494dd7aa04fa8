package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.AgentJar;
import io.loomgmp.bridge.runtime.AgentRelease;

import io.loomgmp.bridge.runtime.ContinuationExecutor;
import io.loomgmp.bridge.runtime.GmpState;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.GmpScheduler;

import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.Map;
import java.util.Set;

/**
 * {@code -javaagent:loom-gmp-agent.jar[=arguments]}: puts every virtual thread of the JVM on one
 * GMP scheduler. Reached from {@link AgentEntry} once the JDK is known to be a feature release
 * the build supports.
 * <ol>
 *   <li>Read the settings ({@link AgentSettings}); a bad value stops start-up with one line,
 *       whatever {@code strict} says: it is the user's own configuration. Then check that the
 *       loom-gmp classes on the class path are of the agent's version ({@link VersionSkew}); if
 *       not, nothing is put in place, as for a JDK of another shape.</li>
 *   <li>Check that {@code java.lang.VirtualThread} has the fields the rewrite expects and can be
 *       retransformed. If not, nothing has been put in place yet: see "A JDK of another shape".</li>
 *   <li>Open {@code java.lang} and export {@code jdk.internal.access} and {@code jdk.internal.misc}
 *       (for {@link JvmtiTransitions}) to the agent's module
 *       (through Instrumentation: the user passes no {@code --add-opens}).</li>
 *   <li>Build the scheduler, define the hook in {@code java.lang} with it
 *       ({@link SchedulerHook}), then retransform VirtualThread ({@link VirtualThreadRewriter}),
 *       which checks the code's shape on the bytes the JVM hands it and rewrites it only if it
 *       can rewrite the whole: the constructor's read of the default scheduler and, unless
 *       {@code timers=false}, {@code schedule}, so that virtual threads' timeouts become timers of
 *       GMP's Ps. Should that method have another shape, one warning line says so and the JDK's
 *       timer threads stay in use. Should the constructor have another shape, or the rewrite
 *       fail, or the JVM refuse the rewritten class or not hand it over, this step is taken back
 *       ({@link Rollback}) and the agent stops here: see "A JDK of another shape".</li>
 *   <li>From here on every new virtual thread runs on GMP, and nothing is taken back. Install
 *       the scheduler for {@link Gmp#scheduler()}, and register
 *       {@link VirtualThreadSchedulerImplsRewriter} and {@link JcmdSchedulerRewriter}, so that the
 *       JDK's {@code VirtualThreadSchedulerMXBean} and {@code jcmd Thread.vthread_scheduler}
 *       describe (and the MXBean's {@code setParallelism} resizes) GMP. Their classes load only
 *       when management or jcmd is used, and are rewritten then; a shape they do not know costs
 *       one warning line and leaves the JDK's view.</li>
 *   <li>Answer the JDK's spin heuristic for GMP carriers: open {@code java.util.concurrent} to
 *       the agent's module, define {@link QueuedWorkHook} and retransform
 *       {@code ForkJoinWorkerThread} ({@link ForkJoinWorkerThreadRewriter}). Should that JDK
 *       method have another shape, one warning line says what is lost, and start-up goes on: it
 *       is a speed-up, not a correctness matter.</li>
 *   <li>Unless {@code preempt=false}, register {@link PreemptionPolls}, so that every application
 *       class loaded from then on gets a preemption poll at each loop back-edge. It is not a
 *       retransforming transformer: classes already loaded (the agent's own, the JDK's) keep
 *       their bytes.</li>
 *   <li>Unless {@code mxbean=false}, start {@link SchedulerMXBeanRegistration}, which registers
 *       the scheduler's MXBean once the platform MBean server exists (creating it here would
 *       cost every application about 0.3 s of start-up).</li>
 *   <li>If the JVM's arguments turn off JVMTI's virtual-thread transitions
 *       ({@code -XX:-DoJVMTIVirtualThreadTransitions}, which benchmarks of other schedulers use),
 *       warn in one line ({@link JvmtiTransitions}): it is not safe with virtual threads.</li>
 * </ol>
 * VirtualThread is loaded but not yet initialised when this runs; its static initialiser still
 * creates the JDK's ForkJoinPool later, which under GMP stays unused and starts no thread.
 *
 * <p><b>A JDK of another shape</b> (steps 2 and 4, {@link UnsupportedJdk}): a JDK patch release
 * or a vendor's build may change VirtualThread. By default the agent then fails open: one warning
 * line names the JDK, what differs and the {@code strict} setting, and the JVM runs as without
 * the agent, on the JDK's ForkJoinPool; nothing of GMP stays in force (see {@link Rollback} for
 * the traces that stay). With {@code strict=true} it refuses instead: one line, exit status 1
 * ({@link UnsupportedJdkPolicy}). The shape is checked on the bytes the one retransformation that
 * rewrites VirtualThread hands over, not before it: a second retransformation, only to look,
 * would cost every start-up about 3 ms. Any other failure stops start-up with the exception.
 */
public final class GmpAgent {
    /** {@code -Dgmp.preempt.stats=true}: print what the preemption-poll transformer did, at exit. */
    static final String PREEMPT_STATS_PROPERTY = "gmp.preempt.stats";

    private GmpAgent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        AgentSettings settings;
        try {
            settings = AgentSettings.parse(arguments, System.getProperties(), Runtime.getRuntime().availableProcessors());
        } catch (AgentSettings.BadSetting e) {
            // An exception escaping premain aborts the JVM with a dump; one clear line instead.
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        // Before anything of the scheduler runs: its classes must be the agent's own version.
        String skew;
        try {
            skew = VersionSkew.problem(AgentRelease.current().version());
        } catch (Throwable e) { // a jar without its JFR events, a broken release.properties: a broken agent jar
            System.err.println("loom-gmp: the agent failed to start: " + e);
            System.exit(1);
            return;
        }
        if (skew != null) {
            if (VersionSkew.report(skew, settings.strict(), System.err) != 0) {
                System.exit(1);
            }
            return; // nothing installed: the JVM runs as without the agent
        }
        try {
            install(settings, instrumentation);
        } catch (UnsupportedJdk e) {
            // install has taken back what it had put in place: the JVM runs as without the agent.
            if (UnsupportedJdkPolicy.report(e.getMessage(), settings.strict(), AgentJar.path(), System.err) != 0) {
                System.exit(1);
            }
        } catch (Throwable e) {
            System.err.println("loom-gmp: the agent failed to start: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void install(AgentSettings settings, Instrumentation instrumentation) throws Exception {
        Class<?> virtualThread = Class.forName("java.lang.VirtualThread", false, null);
        checkClass(virtualThread, instrumentation); // nothing is in place yet

        Module self = GmpAgent.class.getModule();
        instrumentation.redefineModule(Object.class.getModule(), Set.of(),
                Map.of("jdk.internal.access", Set.of(self), "jdk.internal.misc", Set.of(self)),
                Map.of("java.lang", Set.of(self)),
                Set.of(), Map.of());

        GmpScheduler scheduler = GmpScheduler.builder()
                .procs(settings.parallelism())
                .maxCarriers(settings.maxPoolSize())
                .timeSlice(settings.timeSlice())
                .keepAlive(settings.keepAlive())
                .latencySample(settings.latencySample())
                .name("gmp")
                .build();
        Rollback rollback = new Rollback(instrumentation, scheduler);
        boolean timers;
        try {
            timers = putVirtualThreadsOn(scheduler, settings.timers(), virtualThread, instrumentation, rollback);
        } catch (Throwable e) {
            try {
                rollback.undo();
            } catch (IllegalStateException undoFailed) {
                undoFailed.addSuppressed(e);
                throw undoFailed;
            }
            throw e;
        }

        // VirtualThread is rewritten: from here on every new virtual thread runs on GMP.
        GmpState.install(scheduler);
        // The JDK's own windows on the scheduler show GMP: the scheduler MXBean and jcmd's
        // Thread.vthread_scheduler. Their classes load only when used; they are rewritten then.
        instrumentation.addTransformer(new VirtualThreadSchedulerImplsRewriter(System.err), true);
        instrumentation.addTransformer(new JcmdSchedulerRewriter(System.err), true);
        answerSpinHeuristic(instrumentation);
        if (settings.preempt()) {
            PreemptionPolls polls = new PreemptionPolls(settings.preemptInclude(), settings.preemptExclude(), instrumentation);
            instrumentation.addTransformer(polls, false);
            if (Boolean.getBoolean(PREEMPT_STATS_PROPERTY)) { // a diagnostic: see docs/performance.md, "Start-up cost"
                Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.println(polls.stats()), "loom-gmp-preempt-stats"));
            }
        }

        if (settings.schedtraceMillis() > 0) {
            SchedTrace.start(scheduler, settings.schedtraceMillis(), System.err);
        }
        // A run-time image without java.management has no MBean server for a console to see.
        if (settings.mxbean() && ModuleLayer.boot().findModule("java.management").isPresent()) {
            SchedulerMXBeanRegistration.Starter.start(scheduler, System.err);
        }
        if (settings.verbose()) {
            System.err.println(startupLine(AgentRelease.current(), settings.withTimers(timers)));
        }
        warnOfTransitionsOff();
    }

    /** Step 9 of the class comment. */
    private static void warnOfTransitionsOff() {
        try {
            if (JvmtiTransitions.off(JvmtiTransitions.runtimeArguments())) {
                System.err.println(JvmtiTransitions.WARNING);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Only the warning is lost: the flag itself is HotSpot's, in force either way.
            System.err.println("loom-gmp: warning: cannot tell whether JVMTI virtual-thread transitions are off"
                    + " (jdk.internal.misc.VM.getRuntimeArguments(): " + e + ")");
        }
    }

    /**
     * Step 2 of the class comment: VirtualThread's fields are those the rewrite expects, and the
     * JVM lets it be retransformed.
     *
     * @throws UnsupportedJdk saying what differs, if not
     */
    static void checkClass(Class<?> virtualThread, Instrumentation instrumentation) throws UnsupportedJdk {
        String problem = VirtualThreadRewriter.fieldProblem(virtualThread);
        if (problem == null && !instrumentation.isModifiableClass(virtualThread)) {
            problem = "java.lang.VirtualThread cannot be retransformed";
        }
        if (problem != null) {
            throw new UnsupportedJdk(problem);
        }
    }

    /**
     * Step 4 of the class comment: defines the hook with {@code scheduler} and rewrites
     * VirtualThread, recording in {@code rollback} what it puts in place (the caller takes it back
     * if this throws).
     *
     * @param timersAsked the {@code timers} setting
     * @return whether virtual threads' timeouts are GMP timers
     * @throws UnsupportedJdk if VirtualThread could not be rewritten; it is then as it was
     */
    private static boolean putVirtualThreadsOn(GmpScheduler scheduler, boolean timersAsked, Class<?> virtualThread,
                                               Instrumentation instrumentation, Rollback rollback) throws Exception {
        String timersProblem = timersAsked ? VirtualThreadRewriter.timersFieldProblem(virtualThread) : null;
        boolean timers = timersAsked && timersProblem == null;
        SchedulerHook.define(ContinuationExecutor.on(scheduler), timers, new VirtualThreadSchedulerView.Maker(scheduler));
        rollback.hookDefined();

        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(timers);
        rollback.addTransformer(rewriter); // stays registered unless taken back: see VirtualThreadRewriter
        rewrite(instrumentation, rewriter, virtualThread);
        if (timers && rewriter.lastTimersProblem() != null) {
            timersProblem = rewriter.lastTimersProblem();
            timers = false;
        }
        if (timersProblem != null) {
            System.err.println("loom-gmp: warning: " + timersProblem + " on JDK " + Runtime.version()
                    + ": virtual threads' timeouts stay on the JDK's timer threads (timers=false)");
        }
        return timers;
    }

    /**
     * Retransforms VirtualThread with {@code rewriter}, registered, and checks that it was
     * rewritten: at least the constructor's site (the rewriter rewrites the whole or nothing).
     *
     * @throws UnsupportedJdk saying why, if it was not; VirtualThread is then as it was
     */
    static void rewrite(Instrumentation instrumentation, VirtualThreadRewriter rewriter, Class<?> virtualThread)
            throws UnsupportedJdk {
        try {
            instrumentation.retransformClasses(virtualThread);
        } catch (UnmodifiableClassException | RuntimeException | LinkageError | InternalError e) {
            // UnsupportedOperationException, VerifyError, ClassFormatError...: the JVM keeps the class as it was.
            throw new UnsupportedJdk("the JVM refused the rewritten java.lang.VirtualThread: " + e);
        }
        if (rewriter.lastFailure() != null) {
            throw new UnsupportedJdk("rewriting java.lang.VirtualThread failed: " + rewriter.lastFailure());
        }
        if (rewriter.lastShapeProblem() != null) {
            throw new UnsupportedJdk(rewriter.lastShapeProblem());
        }
        int sites = rewriter.lastRewrites();
        if (sites < 1) {
            throw new UnsupportedJdk("rewrote " + sites + " sites of java.lang.VirtualThread, expected at least the"
                    + " constructor's read of DEFAULT_SCHEDULER" + (sites < 0 ? " (the JVM did not hand the class to the rewriter)" : ""));
        }
    }

    /** {@code loom-gmp 0.1.0 agent on JDK 25.0.1+8-LTS (Eclipse Adoptium): parallelism=2,...}. */
    static String startupLine(AgentRelease release, AgentSettings inForce) {
        return "loom-gmp " + release.version() + " agent on JDK " + Runtime.version() + " ("
                + System.getProperty("java.vm.vendor") + "): " + inForce.inForce();
    }

    /** See step 6 of the class comment. */
    private static void answerSpinHeuristic(Instrumentation instrumentation) throws Exception {
        Module self = GmpAgent.class.getModule();
        instrumentation.redefineModule(Object.class.getModule(), Set.of(), Map.of(),
                Map.of("java.util.concurrent", Set.of(self)), Set.of(), Map.of());
        QueuedWorkHook.define();
        ForkJoinWorkerThreadRewriter rewriter = new ForkJoinWorkerThreadRewriter();
        instrumentation.addTransformer(rewriter, true);
        instrumentation.retransformClasses(Class.forName("java.util.concurrent.ForkJoinWorkerThread", false, null));
        if (rewriter.lastFailure() != null || rewriter.lastRewrites() != 1) {
            System.err.println("loom-gmp: warning: could not rewrite ForkJoinWorkerThread."
                    + ForkJoinWorkerThreadRewriter.METHOD + "() on JDK " + Runtime.version() + " ("
                    + (rewriter.lastFailure() != null ? rewriter.lastFailure() : rewriter.lastRewrites() + " sites")
                    + "): virtual threads blocking in SynchronousQueue, LinkedTransferQueue or Exchanger"
                    + " will spin before parking even when their carrier has queued work");
        }
    }

    /**
     * The running JDK's VirtualThread is not the one the agent knows how to rewrite; the message
     * says what differs and what the agent supports, for {@link UnsupportedJdkPolicy}.
     */
    static final class UnsupportedJdk extends Exception {
        UnsupportedJdk(String problem) {
            super(why(problem, AgentRelease.current()));
        }

        private static String why(String problem, AgentRelease release) {
            return problem + "; the loom-gmp " + release.version() + " agent supports " + release.supportedJdksText()
                    + "'s java.lang.VirtualThread";
        }
    }
}
