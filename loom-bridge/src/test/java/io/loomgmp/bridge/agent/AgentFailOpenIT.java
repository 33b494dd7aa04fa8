package io.loomgmp.bridge.agent;

import example.app.FailOpenProbe;
import io.loomgmp.bridge.probe.ReshapingAgent;
import io.loomgmp.testsupport.Fork;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent on a JDK 25 whose {@code java.lang.VirtualThread} has another shape, in a forked JVM:
 * {@link ReshapingAgent}, loaded first, changes the constructor that loom-gmp rewrites, as a patch
 * release or a vendor's build might. By default one warning line, and the JVM runs with nothing
 * of GMP in force ({@link FailOpenProbe} looks); with {@code strict} the JVM does not start. The
 * same probe with the class left as it is (the control) sees GMP in every one of its checks, so
 * none of them passes for want of looking.
 */
class AgentFailOpenIT {
    private static final String VERSION = System.getProperty("loomgmp.version");
    private static final String SUPPORTED = System.getProperty("loomgmp.supported.jdk");
    private static final String FORK_JOIN_CARRIER = "ForkJoinPool-1-worker-\\d+";
    private static final String GMP_CARRIER = "gmp-M\\d+";
    private static final List<String> CREATION_APIS = List.of("ofVirtual", "startVirtualThread",
            "newVirtualThreadPerTaskExecutor", "childOfVirtual", "afterSleep", "afterRetransform");
    /**
     * What the reshaped constructor shows loom-gmp's rewriter, as a regular expression: no read of
     * the field, which defaultScheduler() reads (and the JDK's other readers).
     */
    private static final String PROBLEM = Pattern.quote("expected one read of VirtualThread.DEFAULT_SCHEDULER in a"
            + " constructor, found 0 (methods reading it: [") + "[^]]*" + Pattern.quote("defaultScheduler()Ljava/util/concurrent/Executor;")
            + "[^]]*" + Pattern.quote("])");
    private static Path reshapingAgent;

    /** A jar with nothing but the manifest: the agent's class is on the class path, with the tests'. */
    @BeforeAll
    static void reshapingAgentJar() throws IOException {
        reshapingAgent = ForkedJvm.TEST_CLASSES.getParent().resolve("reshaping-agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", ReshapingAgent.class.getName());
        manifest.getMainAttributes().putValue("Can-Retransform-Classes", "true");
        try (OutputStream file = Files.newOutputStream(reshapingAgent); JarOutputStream jar = new JarOutputStream(file, manifest)) {
            jar.flush();
        }
    }

    private static Forked probe(String reshape, String agentArguments, String... jvmArgs) {
        List<String> command = new ArrayList<>();
        command.add("-javaagent:" + reshapingAgent + "=" + reshape);
        command.add("-javaagent:" + ForkedJvm.AGENT_JAR + (agentArguments == null ? "" : "=" + agentArguments));
        command.add("--add-opens=java.base/java.lang=ALL-UNNAMED"); // for the probe to read the hook
        command.addAll(List.of(jvmArgs));
        command.add("-cp");
        command.add(ForkedJvm.TEST_CLASSES.toString());
        command.add(FailOpenProbe.class.getName());
        return Fork.java(command).run();
    }

    private static String jdk() {
        return System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.vendor")
                + ", java.home " + System.getProperty("java.home") + ")";
    }

    /** What does not fit, as a regular expression. */
    private static String why() {
        return PROBLEM + Pattern.quote("; the loom-gmp " + VERSION + " agent supports JDK " + SUPPORTED + "'s java.lang.VirtualThread");
    }

    private static void assertLine(String regex, String stderr, Forked jvm) {
        assertTrue(stderr.matches(regex + "\n"), "expected one line matching\n" + regex + "\n" + jvm);
    }

    @Test
    void byDefaultOneWarningLineAndTheJvmRunsOnForkJoinPoolWithNothingOfGmpInForce() {
        for (Forked jvm : List.of(probe("constructor", null), probe("constructor", "verbose=true,parallelism=2"),
                probe("constructor", "strict=false", "-Dgmp.schedtrace=10"))) {
            assertEquals(0, jvm.exitCode(), jvm.toString());
            assertLine(Pattern.quote("loom-gmp: warning: unsupported JDK " + jdk() + ": ") + why() + Pattern.quote(". The JVM"
                    + " runs without loom-gmp: virtual threads run on the JDK's default scheduler. strict=true (-Dgmp.strict=true)"
                    + " makes the agent refuse to start instead."), jvm.stderr(), jvm);
            for (String api : CREATION_APIS) {
                assertTrue(jvm.value(api).matches(FORK_JOIN_CARRIER), api + " ran on " + jvm.value(api) + "\n" + jvm);
            }
            assertEquals("empty", jvm.value("gmpScheduler"), jvm.toString());
            assertEquals("none", jvm.value("gmpThreads"), "no scheduler, sysmon, schedtrace or MXBean thread\n" + jvm);
            assertEquals("scheduler:null,timers:null,mxbean:null", jvm.value("hook"), "the hook holds nothing\n" + jvm);
            assertEquals("false", jvm.value("polled"), "no preemption polls\n" + jvm);
            assertFalse(jvm.value("jdkMXBean").startsWith("io.loomgmp."), jvm.toString());
            // JcmdSchedulerRewriter, were it registered, would have the command call the empty hook, which throws.
            assertTrue(jvm.value("jcmd").startsWith("java.util.concurrent.ForkJoinPool@"), jvm.toString());
        }
    }

    @Test
    void withStrictTheJvmDoesNotStart() {
        for (Forked jvm : List.of(probe("constructor", "strict=true"), probe("constructor", null, "-Dgmp.strict=true"))) {
            assertEquals(1, jvm.exitCode(), jvm.toString());
            assertLine(Pattern.quote("loom-gmp: unsupported JDK " + jdk() + ": ") + why() + Pattern.quote(". The JVM does not"
                    + " start, as strict=true asks. To run without loom-gmp, set strict=false (the agent then warns and steps"
                    + " aside) or remove the option -javaagent:" + ForkedJvm.AGENT_JAR + " (and its arguments): virtual threads"
                    + " then run on the JDK's default scheduler."), jvm.stderr(), jvm);
            assertEquals("", jvm.stdout(), "the application never started");
        }
    }

    @Test
    void aBadSettingStillStopsStartUp() {
        for (Forked jvm : List.of(probe("constructor", "parallelism=abc"), probe("constructor", "strict=false,parallelism=abc"))) {
            assertEquals(1, jvm.exitCode(), jvm.toString());
            assertEquals("loom-gmp: bad value \"abc\" for agent argument parallelism: expected a whole number from 1 to 32767\n",
                    jvm.stderr(), jvm.toString());
            assertEquals("", jvm.stdout());
        }
    }

    @Test
    void theControlAVirtualThreadLeftAsItIsSeesGmpInEveryCheck() {
        Forked jvm = probe("none", null);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("", jvm.stderr(), jvm.toString());
        for (String api : CREATION_APIS) {
            assertTrue(jvm.value(api).matches(GMP_CARRIER), api + " ran on " + jvm.value(api) + "\n" + jvm);
        }
        assertEquals("present", jvm.value("gmpScheduler"));
        assertTrue(jvm.value("gmpThreads").contains("gmp-sysmon"), jvm.toString());
        assertEquals("scheduler:set,timers:set,mxbean:set", jvm.value("hook"));
        assertEquals("true", jvm.value("polled"), jvm.toString());
        assertEquals(VirtualThreadSchedulerView.class.getName(), jvm.value("jdkMXBean"));
        assertTrue(jvm.value("jcmd").startsWith("GmpScheduler[gmp, "), jvm.toString());
    }
}
