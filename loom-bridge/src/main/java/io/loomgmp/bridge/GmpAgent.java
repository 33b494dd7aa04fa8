package io.loomgmp.bridge;

import io.loomgmp.dispatcher.GmpScheduler;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;

/**
 * {@code -javaagent:loom-gmp-agent.jar[=arguments]}: puts every virtual thread of the JVM on one
 * GMP scheduler. Reached from {@link AgentEntry} once the JDK is known to be 25 or newer.
 * <ol>
 *   <li>Read the settings ({@link AgentSettings}); a bad value stops start-up with one line.</li>
 *   <li>Check that {@code java.lang.VirtualThread} has the fields the rewrite expects; if not,
 *       stop with a line naming the JDK version, rather than leave ForkJoinPool in place.</li>
 *   <li>Open {@code java.lang} and export {@code jdk.internal.access} to the agent's module
 *       (through Instrumentation: the user passes no {@code --add-opens}).</li>
 *   <li>Build the scheduler, define the hook in {@code java.lang} with it
 *       ({@link SchedulerHook}), then retransform VirtualThread ({@link VirtualThreadRewriter}),
 *       which checks the code's shape on the bytes the JVM hands it (a mismatch stops start-up
 *       as above), and check that exactly the expected sites were rewritten: the constructor's read of the
 *       default scheduler and, unless {@code timers=false}, {@code schedule}, so that virtual
 *       threads' timeouts become timers of GMP's Ps. Should that method have another shape, one
 *       warning line says so and the JDK's timer threads stay in use.</li>
 *   <li>Register {@link VirtualThreadSchedulerImplsRewriter} and {@link JcmdSchedulerRewriter}, so
 *       that the JDK's {@code VirtualThreadSchedulerMXBean} and {@code jcmd Thread.vthread_scheduler}
 *       describe (and the MXBean's {@code setParallelism} resizes) GMP. Their classes load only
 *       when management or jcmd is used, and are rewritten then; a shape they do not know costs
 *       one warning line and leaves the JDK's view.</li>
 *   <li>Answer the JDK's spin heuristic for GMP carriers: define {@link QueuedWorkHook} and
 *       retransform {@code ForkJoinWorkerThread} ({@link ForkJoinWorkerThreadRewriter}). Should
 *       that JDK method have another shape, one warning line says what is lost, and start-up
 *       goes on: it is a speed-up, not a correctness matter.</li>
 *   <li>Unless {@code preempt=false}, register {@link PreemptionPolls}, so that every application
 *       class loaded from then on gets a preemption poll at each loop back-edge. It is not a
 *       retransforming transformer: classes already loaded (the agent's own, the JDK's) keep
 *       their bytes.</li>
 *   <li>Unless {@code mxbean=false}, start {@link SchedulerMXBeanRegistration}, which registers
 *       the scheduler's MXBean once the platform MBean server exists (creating it here would
 *       cost every application about 0.3 s of start-up).</li>
 * </ol>
 * VirtualThread is loaded but not yet initialised when this runs; its static initialiser still
 * creates the JDK's ForkJoinPool later, which stays unused and starts no thread.
 */
public final class GmpAgent {
    /** {@code -Dgmp.preempt.stats=true}: print what the preemption-poll transformer did, at exit. */
    static final String PREEMPT_STATS_PROPERTY = "gmp.preempt.stats";

    private GmpAgent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        try {
            install(arguments, instrumentation);
        } catch (AgentSettings.BadSetting | UnsupportedJdk e) {
            // An exception escaping premain aborts the JVM with a dump; one clear line instead.
            System.err.println(e.getMessage());
            System.exit(1);
        } catch (Throwable e) {
            System.err.println("loom-gmp: the agent failed to start: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void install(String arguments, Instrumentation instrumentation) throws Exception {
        AgentSettings settings = AgentSettings.parse(arguments, System.getProperties(),
                Runtime.getRuntime().availableProcessors());

        Class<?> virtualThread = Class.forName("java.lang.VirtualThread", false, null);
        String problem = VirtualThreadRewriter.fieldProblem(virtualThread);
        if (problem == null && !instrumentation.isModifiableClass(virtualThread)) {
            problem = "java.lang.VirtualThread cannot be retransformed";
        }
        if (problem != null) {
            throw new UnsupportedJdk(problem);
        }

        Module self = GmpAgent.class.getModule();
        instrumentation.redefineModule(Object.class.getModule(), Set.of(),
                Map.of("jdk.internal.access", Set.of(self)),
                Map.of("java.lang", Set.of(self), "java.util.concurrent", Set.of(self)),
                Set.of(), Map.of());

        GmpScheduler scheduler = GmpScheduler.builder()
                .procs(settings.parallelism())
                .maxCarriers(settings.maxPoolSize())
                .timeSlice(settings.timeSlice())
                .keepAlive(settings.keepAlive())
                .latencySample(settings.latencySample())
                .name("gmp")
                .build();
        boolean timers = settings.timers();
        String timersProblem = timers ? VirtualThreadRewriter.timersFieldProblem(virtualThread) : null;
        timers &= timersProblem == null;
        SchedulerHook.define(ContinuationExecutor.on(scheduler), timers, new VirtualThreadSchedulerView.Maker(scheduler));
        Gmp.install(scheduler);
        // The JDK's own windows on the scheduler show GMP: the scheduler MXBean and jcmd's
        // Thread.vthread_scheduler. Their classes load only when used; they are rewritten then.
        instrumentation.addTransformer(new VirtualThreadSchedulerImplsRewriter(System.err), true);
        instrumentation.addTransformer(new JcmdSchedulerRewriter(System.err), true);

        // The rewriter checks the rest of the shape on the bytes the JVM hands it.
        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(timers);
        instrumentation.addTransformer(rewriter, true); // stays registered: see VirtualThreadRewriter
        instrumentation.retransformClasses(virtualThread);
        if (rewriter.lastFailure() != null) {
            throw new UnsupportedJdk("rewriting java.lang.VirtualThread failed: " + rewriter.lastFailure());
        }
        if (rewriter.lastShapeProblem() != null) {
            throw new UnsupportedJdk(rewriter.lastShapeProblem());
        }
        if (timers && rewriter.lastTimersProblem() != null) {
            timersProblem = rewriter.lastTimersProblem();
            timers = false;
        }
        if (timersProblem != null) {
            System.err.println("loom-gmp: warning: " + timersProblem + " on JDK " + Runtime.version()
                    + ": virtual threads' timeouts stay on the JDK's timer threads (timers=false)");
        }
        int expected = timers ? 2 : 1;
        if (rewriter.lastRewrites() != expected) {
            throw new UnsupportedJdk("rewrote " + rewriter.lastRewrites() + " sites of java.lang.VirtualThread, expected "
                    + expected + " (the constructor's read of DEFAULT_SCHEDULER" + (timers ? " and schedule)" : ")"));
        }
        answerSpinHeuristic(instrumentation);
        if (settings.preempt()) {
            PreemptionPolls polls = new PreemptionPolls(settings.preemptInclude(), settings.preemptExclude(), instrumentation);
            instrumentation.addTransformer(polls, false);
            if (Boolean.getBoolean(PREEMPT_STATS_PROPERTY)) { // a diagnostic: see README, "Start-up cost"
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
    }

    /** {@code loom-gmp 0.1.0 agent on JDK 25.0.1+8-LTS (Eclipse Adoptium): parallelism=2,...}. */
    static String startupLine(AgentRelease release, AgentSettings inForce) {
        return "loom-gmp " + release.version() + " agent on JDK " + Runtime.version() + " ("
                + System.getProperty("java.vm.vendor") + "): " + inForce.inForce();
    }

    /** See step 4 of the class comment. */
    private static void answerSpinHeuristic(Instrumentation instrumentation) throws Exception {
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

    /** The running JDK's VirtualThread is not the one the agent knows how to rewrite. */
    static final class UnsupportedJdk extends RuntimeException {
        UnsupportedJdk(String problem) {
            super("loom-gmp: unsupported JDK " + Runtime.version() + " (" + System.getProperty("java.vm.vendor")
                    + "): " + problem + ". The agent supports " + AgentRelease.current().supportedJdksText()
                    + "'s java.lang.VirtualThread;"
                    + " virtual threads would stay on ForkJoinPool, so the JVM does not start."
                    + " To run without loom-gmp, remove the -javaagent option: virtual threads then run"
                    + " on the JDK's default scheduler.");
        }
    }
}
