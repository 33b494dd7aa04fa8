package io.loomgmp.bridge.agent;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.LaunchingConnector;
import io.loomgmp.bridge.probe.CarrierProbe;
import io.loomgmp.bridge.probe.YieldingVirtualThreadsProbe;
import io.loomgmp.testsupport.Fork;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code -XX:+UnlockExperimentalVMOptions -XX:-DoJVMTIVirtualThreadTransitions}, which removes the
 * JVMTI tax any agent brings and which benchmarks of other schedulers use: the agent warns in one
 * line, wherever the flags come from, and one of the reasons it names is checked here: a debugger
 * cannot reliably suspend and inspect virtual threads with them (docs/compatibility.md).
 */
class JvmtiTransitionsIT {
    private static final List<String> FAST = List.of("-XX:+UnlockExperimentalVMOptions", "-XX:-DoJVMTIVirtualThreadTransitions");
    /** How long the debugger suspends and inspects virtual threads, per JVM. */
    private static final Duration INSPECTING = Duration.ofSeconds(3);

    @Test
    void theAgentWarnsInOneLineWhenTheTransitionsAreOff() throws IOException {
        Forked jvm = ForkedJvm.withAgent(null, FAST, CarrierProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals(JvmtiTransitions.WARNING + "\n", jvm.stderr(), jvm.toString());
        assertTrue(jvm.value("ofVirtual").startsWith("gmp-M"), jvm.toString());

        // From an @argfile too: the agent reads the JVM's own, expanded, arguments.
        Path argfile = Files.createTempFile("fast", ".args");
        Files.writeString(argfile, String.join("\n", FAST) + "\n");
        Forked fromFile = ForkedJvm.withAgent(null, List.of("@" + argfile), CarrierProbe.class);
        assertEquals(JvmtiTransitions.WARNING + "\n", fromFile.stderr(), fromFile.toString());

        // Turned back on later on the command line: on, and nothing said.
        List<String> backOn = new ArrayList<>(FAST);
        backOn.add("-XX:+DoJVMTIVirtualThreadTransitions");
        Forked on = ForkedJvm.withAgent(null, backOn, CarrierProbe.class);
        assertEquals("", on.stderr(), on.toString());
    }

    /**
     * What the flags cost, checked rather than quoted. A debugger (JDWP, includevirtualthreads=y,
     * as IDEs ask) suspends virtual threads that mount and unmount all the time and reads their
     * stacks: under the agent alone it lists them all and every attempt works; with the flags
     * HotSpot skips the transition protocol that holds a virtual thread still for the debugger,
     * and the debugger misses some of them or its attempts fail (JDWP errors, stacks that change
     * under the reader). Should a JDK change either, this fails
     * and docs/compatibility.md must change with it.
     */
    @Test
    void aDebuggerCanSuspendVirtualThreadsReliablyOnlyWithTheTransitionsOn() throws Exception {
        Inspections withTransitions = inspectUnderADebugger(List.of());
        assertEquals(YieldingVirtualThreadsProbe.COUNT, withTransitions.threads(), withTransitions.toString());
        assertTrue(withTransitions.succeeded() > 0, withTransitions.toString());
        assertEquals(0, withTransitions.failed(), withTransitions.toString());

        // With the flags the debugger loses its hold one way or the other, as timing has it: on an
        // idle machine most suspends fail; beside a CPU hog it listed 1 of the 4 threads instead.
        Inspections fast = inspectUnderADebugger(FAST);
        System.out.println("debugger, transitions on: " + withTransitions + "; off: " + fast);
        assertTrue(fast.failed() > 0 || fast.threads() < YieldingVirtualThreadsProbe.COUNT,
                "with the flags the debugger misses virtual threads or fails to hold them: " + fast);
    }

    /** Suspend, read every frame, resume: how often that worked and failed, over how many virtual threads. */
    record Inspections(int threads, int succeeded, int failed, String firstFailure) {
    }

    /** Inspects the probe's virtual threads for {@link #INSPECTING}, in a JVM with the agent and {@code jvmArgs}. */
    private static Inspections inspectUnderADebugger(List<String> jvmArgs) throws Exception {
        LaunchingConnector launch = Bootstrap.virtualMachineManager().defaultConnector();
        Map<String, Connector.Argument> arguments = launch.defaultArguments();
        arguments.get("home").setValue(System.getProperty("java.home"));
        arguments.get("options").setValue("-javaagent:" + ForkedJvm.AGENT_JAR + " " + String.join(" ", jvmArgs)
                + " -cp " + ForkedJvm.TEST_CLASSES);
        arguments.get("main").setValue(YieldingVirtualThreadsProbe.class.getName() + " 120");
        arguments.get("includevirtualthreads").setValue("y");
        VirtualMachine vm = launch.launch(arguments);
        try {
            drain(vm.process().getInputStream());
            drain(vm.process().getErrorStream());
            vm.resume();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (vm.allThreads().stream().noneMatch(t -> t.name().equals(YieldingVirtualThreadsProbe.READY))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the probe was not ready within 60 s");
                }
                Thread.sleep(20);
            }
            Thread.sleep(200); // the yielding threads are running
            List<ThreadReference> yielding = vm.allThreads().stream()
                    .filter(t -> t.name().startsWith(YieldingVirtualThreadsProbe.PREFIX)).toList();
            if (yielding.isEmpty()) {
                return new Inspections(0, 0, 0, "the debugger lists none of the virtual threads");
            }
            int succeeded = 0;
            int failed = 0;
            String firstFailure = null;
            long end = System.nanoTime() + INSPECTING.toNanos();
            for (int i = 0; System.nanoTime() < end; i++) {
                ThreadReference thread = yielding.get(i % yielding.size());
                try {
                    thread.suspend();
                    int frames = thread.frameCount();
                    for (int f = 0; f < frames; f++) {
                        thread.frame(f).location();
                    }
                    succeeded++;
                } catch (RuntimeException e) { // JDWP's errors, IndexOutOfBounds when the stack shrank
                    failed++;
                    firstFailure = firstFailure == null ? e.toString() : firstFailure;
                } finally {
                    try {
                        thread.resume();
                    } catch (RuntimeException ignored) {
                        // counted above
                    }
                }
            }
            return new Inspections(yielding.size(), succeeded, failed, firstFailure);
        } finally {
            vm.process().destroyForcibly();
        }
    }

    /** The debuggee blocks if nobody reads what it prints. */
    private static void drain(InputStream stream) {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                stream.transferTo(OutputStream.nullOutputStream());
            } catch (IOException ignored) {
                // the debuggee was killed
            }
        });
    }
}
