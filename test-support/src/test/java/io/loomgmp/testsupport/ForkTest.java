package io.loomgmp.testsupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ForkTest {
    /** The JVMs below run this module's test classes. */
    private static final String TEST_CLASSES = testClasses();

    @TempDir
    Path dir;

    private static List<String> main(Class<?> main, String... args) {
        List<String> arguments = new ArrayList<>(List.of("-cp", TEST_CLASSES, main.getName()));
        arguments.addAll(List.of(args));
        return arguments;
    }

    @Test
    void theExitCodeAndBothOutputsComeBackApartAndTheDirectoryIsTheOneAskedFor() throws Exception {
        Forked run = Fork.java(main(Echo.class, "3", "answer=42 ", "count=7")).directory(dir).run();
        assertEquals(3, run.exitCode(), run.toString());
        assertEquals("answer=42 \ncount=7\nuser.dir=" + dir.toRealPath() + "\n", run.stdout(), run.toString());
        assertEquals("on stderr\n", run.stderr(), run.toString());
        assertEquals(Fork.javaExecutable().toString(), run.command().getFirst());
        assertEquals("42", run.value("answer"));
        assertEquals(7, run.longValue("count"));
        AssertionError missing = assertThrows(AssertionError.class, () -> run.value("absent"));
        assertTrue(missing.getMessage().contains("no line absent=... in the output") && missing.getMessage().contains("count=7")
                && missing.getMessage().contains("on stderr"), missing.getMessage());
    }

    @Test
    void aProcessThatNeverEndsIsKilledWithItsChildAndTheTestFailsAtTheBound() {
        Duration bound = Duration.ofSeconds(10);
        long start = System.nanoTime();
        Forked[] ended = new Forked[1];
        AssertionError failure = assertThrows(AssertionError.class,
                () -> ended[0] = Fork.java(main(SleepForever.class, TEST_CLASSES)).bound(bound).run(),
                () -> "the sleeper ended on its own\n" + ended[0]);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        String message = failure.getMessage();
        assertTrue(message.contains("did not finish within 10 s: killed"), message);
        assertTrue(took.compareTo(bound) >= 0, "failed after " + took + ", before the bound");
        // The bound, then SIGKILL and the wait for the processes to go: far less than another bound.
        assertTrue(took.compareTo(bound.multipliedBy(2)) < 0, "failed only after " + took + "\n" + message);
        // The sleeper had started its child and said so before the bound; both are gone.
        long child = pid(message, "child");
        long grandchild = pid(message, "grandchild");
        assertFalse(alive(child), "the forked JVM " + child + " is still running\n" + message);
        assertFalse(alive(grandchild), "the process it started, " + grandchild + ", is still running\n" + message);
        assertTrue(message.contains("--- stderr\nsleeping\n"), message);
    }

    @Test
    void theJvmOptionsVariablesDoNotReachTheProcessUnlessSetForIt() {
        // The pom sets them for this test JVM; other modules' test JVMs never have them.
        for (String name : Fork.JVM_OPTIONS_VARIABLES) {
            assertTrue(System.getenv(name) != null, name + " is not set: test-support's pom sets it for surefire");
        }
        Forked run = Fork.java(main(PrintEnvironment.class)).environment("LOOMGMP_TEST_SUPPORT_SET", "yes").run();
        assertEquals(0, run.exitCode(), run.toString());
        assertEquals("null", run.value("env.JAVA_TOOL_OPTIONS"), run.toString());
        assertEquals("null", run.value("env.JDK_JAVA_OPTIONS"), run.toString());
        assertEquals("null", run.value("env._JAVA_OPTIONS"), run.toString());
        assertEquals("", run.value("leaked"), run.toString());
        assertEquals("yes", run.value("env.LOOMGMP_TEST_SUPPORT_SET"), run.toString());
        assertEquals("", run.stderr(), "a JVM that picked up an option says so\n" + run);

        // Set explicitly, one does reach it (and the JVM says so).
        Forked chosen = Fork.java(main(PrintEnvironment.class))
                .environment("JAVA_TOOL_OPTIONS", "-Dtestsupport.leaked=chosen").run();
        assertEquals("chosen", chosen.value("leaked"), chosen.toString());
        assertTrue(chosen.stderr().contains("Picked up JAVA_TOOL_OPTIONS"), chosen.toString());
    }

    @Test
    void aMissingPropertyIsNamedInTheError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Required.path("loomgmp.no.such.property"));
        assertEquals("system property loomgmp.no.such.property is not set: run the test through Maven"
                + " (the module's pom sets it for surefire or failsafe)", e.getMessage());
        assertEquals(System.getProperty("java.home"), Required.property("java.home"));
    }

    @Test
    void aCommandThatCannotStartIsAnErrorNamingIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Fork.command(List.of(dir.resolve("no-such-program").toString())).run());
        assertTrue(e.getMessage().contains("no-such-program"), e.getMessage());
    }

    private static long pid(String message, String name) {
        Matcher m = Pattern.compile("^" + name + "=(\\d+)$", Pattern.MULTILINE).matcher(message);
        assertTrue(m.find(), "no " + name + "=<pid> in the output\n" + message);
        return Long.parseLong(m.group(1));
    }

    private static boolean alive(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        return handle.isPresent() && handle.get().isAlive();
    }

    private static String testClasses() {
        try {
            return Path.of(ForkTest.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code Echo <exit code> <line...>}: prints the lines and its directory, a line on stderr, and exits. */
    public static final class Echo {
        public static void main(String[] args) {
            for (int i = 1; i < args.length; i++) {
                System.out.println(args[i]);
            }
            System.out.println("user.dir=" + System.getProperty("user.dir"));
            System.err.println("on stderr");
            System.exit(Integer.parseInt(args[0]));
        }
    }

    /**
     * {@code SleepForever [class path]}: with a class path, starts another SleepForever first and
     * prints both pids. Its class path is the test classes alone: it uses nothing of the module's.
     */
    public static final class SleepForever {
        public static void main(String[] args) throws Exception {
            if (args.length > 0) {
                Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", args[0], SleepForever.class.getName())
                        .inheritIO().start();
                System.out.println("grandchild=" + child.pid());
                System.out.println("child=" + ProcessHandle.current().pid());
                System.out.flush();
                System.err.println("sleeping");
            }
            while (true) {
                Thread.sleep(60_000);
            }
        }
    }

    /** Prints the options variables as it sees them, and the properties the pom's values of them would have set. */
    public static final class PrintEnvironment {
        public static void main(String[] args) {
            for (String name : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "LOOMGMP_TEST_SUPPORT_SET")) {
                System.out.println("env." + name + "=" + System.getenv(name));
            }
            System.out.println("leaked=" + String.join(",", Stream.of("testsupport.leaked", "testsupport.leaked.launcher",
                    "testsupport.leaked.underscore").map(System::getProperty).filter(Objects::nonNull).toList()));
        }
    }
}
