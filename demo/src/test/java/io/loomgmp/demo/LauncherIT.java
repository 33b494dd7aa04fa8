package io.loomgmp.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's own checks, which run before anything is built: the up-to-date check of the
 * jars it runs, the JDK it accepts, the test command's plan for the packages its tests need (with
 * and without --install-packages, as root and as a user who is not), its help, {@code run}'s
 * options (the agent's arguments, the AOT cache), and a launcher linked from a directory on the
 * PATH and run from anywhere.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the launcher's checks use Linux's tools and users")
class LauncherIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root")).toAbsolutePath().normalize();
    private static final String JAVA_HOME = System.getProperty("java.home");
    private static final int NOBODY = 65534;

    @TempDir
    Path tmp;

    record Run(int exitCode, String stdout, String stderr) {
    }

    private Run bash(Map<String, String> env, String... command) throws Exception {
        return bashIn(ROOT, env, command);
    }

    /** Runs {@code command} from {@code dir}, bounded in time; its output and errors apart. */
    private Run bashIn(Path dir, Map<String, String> env, String... command) throws Exception {
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().remove("LOOMGMP_CHROMIUM"); // the browser the tests give, or none
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail(String.join(" ", command) + " did not finish in 2 minutes\n" + Files.readString(err));
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    // ---------------------------------------------------------------- up-to-date check
    // The check itself (a jar against the digests Maven recorded) is launcher's InputsTest; here,
    // that the records this build wrote say its jars are up to date.

    @Test
    void theLauncherRunsTheJarsThisBuildMadeWithoutRebuildingThem() throws Exception {
        Run run = bash(Map.of(), "bash", ROOT.resolve("loomgmp").toString(), "run", "-version");
        assertEquals(0, run.exitCode(), run.stderr());
        assertFalse(run.stderr().contains("loomgmp: building"), "the jars are newer than their sources:\n" + run.stderr());
        assertTrue(run.stderr().contains("version \"25"), run.stderr());
    }

    // ---------------------------------------------------------------- the JDK

    @Test
    void aNewerJdkIsNotTakenAndSaysWhy() throws Exception {
        Path fake = fakeJdk(26);
        Run run = bash(Map.of("JAVA_HOME", fake.toString()), "bash", "-c",
                ". \"$1\" && echo \"$JAVA_HOME\"", "bash", ROOT.resolve(".mvn/find-jdk25.sh").toString());
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("JAVA_HOME=" + fake + " is not taken: JDK 26, newer than the JDK 25 loom-gmp supports"),
                run.stderr());
        String found = run.stdout().strip();
        assertFalse(found.equals(fake.toString()), "took the JDK 26");
        assertTrue(Files.isExecutable(Path.of(found, "bin", "java")), "found " + found);
    }

    @Test
    void theLauncherSupportsTheJdksTheAgentSupports() throws Exception {
        Run run = bash(Map.of(), "bash", "-c", ". \"$1\" && echo \"$loomgmp_supported_jdk\"",
                "bash", ROOT.resolve(".mvn/find-jdk25.sh").toString());
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(System.getProperty("loomgmp.supported.jdk"), run.stdout().strip(),
                ".mvn/find-jdk25.sh and the parent pom's loomgmp.supported.jdk");
    }

    @Test
    void aJdkIsToldByItsReleaseFileWithoutStartingIt() throws Exception {
        Path fake = fakeJdk(26);
        // A java that would say 25, and a release file that says 26: the file is believed.
        Files.writeString(fake.resolve("bin/java"), "#!/bin/sh\necho '    java.specification.version = 25' >&2\n");
        Files.writeString(fake.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"26.0.1\"\nJAVA_VERSION_DATE=\"2026-10-20\"\n");
        Run run = bash(Map.of("JAVA_HOME", fake.toString()), "bash", "-c",
                ". \"$1\" && echo \"$JAVA_HOME\"", "bash", ROOT.resolve(".mvn/find-jdk25.sh").toString());
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("JAVA_HOME=" + fake + " is not taken: JDK 26, newer"), run.stderr());
    }

    /** A JDK home whose java says it is {@code feature}: enough for the launcher's look. */
    private Path fakeJdk(int feature) throws IOException {
        Path home = tmp.resolve("jdk-" + feature);
        for (String tool : List.of("java", "javac")) {
            Path file = home.resolve("bin").resolve(tool);
            Files.createDirectories(file.getParent());
            Files.writeString(file, "#!/bin/sh\necho '    java.specification.version = " + feature + "' >&2\n");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return home;
    }

    // ---------------------------------------------------------------- the test command's plan

    private static final String NO_CHROMIUM = "no Chromium (none on the PATH, LOOMGMP_CHROMIUM unset): the trace.html"
            + " browser tests will be SKIPPED";
    private static final String NO_TMUX = "no tmux on the PATH: the live console's terminal test (TopIT) will be SKIPPED";
    private static final String HOW_TO_GET_THEM = "to run them: ./loomgmp test --install-packages (as root on Debian or"
            + " Ubuntu), or apt-get install chromium tmux, or LOOMGMP_CHROMIUM=<path>";

    @Test
    void withoutTheFlagAUserWhoIsNotRootIsToldWhatIsMissingWhichTestsAreSkippedAndHowToGetThem() throws Exception {
        Run run = testPlan(true, pathWithout(), "--check");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains(NO_CHROMIUM), run.stderr());
        assertTrue(run.stderr().contains(NO_TMUX), run.stderr());
        assertTrue(run.stderr().contains(HOW_TO_GET_THEM), run.stderr());
        assertFalse(run.stderr().contains("install Debian's"), run.stderr());
        assertTrue(run.stderr().contains("would run: ./mvnw -B verify"), run.stderr());
        assertFalse(run.stderr().contains("-Dloomgmp.chromium"), run.stderr());
    }

    @Test
    void withoutTheFlagRootIsToldTooAndNothingIsInstalled() throws Exception {
        Assumptions.assumeTrue(isRoot(), "not root: the test above covers this user");
        Run run = testPlan(false, pathWithout(), "--check");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains(NO_CHROMIUM), run.stderr());
        assertTrue(run.stderr().contains(NO_TMUX), run.stderr());
        assertTrue(run.stderr().contains(HOW_TO_GET_THEM), run.stderr());
        assertFalse(run.stderr().contains("install Debian's"), "installs only with --install-packages:\n" + run.stderr());
        assertTrue(run.stderr().contains("would run: ./mvnw -B verify"), run.stderr());
    }

    @Test
    void withTheFlagRootWouldInstallDebiansChromiumAndTmux() throws Exception {
        Assumptions.assumeTrue(isRoot(), "not root: the test below covers this user");
        Path path = pathWithout();
        Assumptions.assumeTrue(Files.isExecutable(path.resolve("apt-get")), "no apt-get on this machine");
        Run run = testPlan(false, path, "--install-packages", "--check");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("would install Debian's chromium for the trace.html browser tests"), run.stderr());
        assertTrue(run.stderr().contains("would install Debian's tmux for the live console's terminal test"),
                run.stderr());
        assertFalse(run.stderr().contains("SKIPPED"), run.stderr());
        assertTrue(run.stderr().contains("would run: ./mvnw -B verify"), run.stderr());
    }

    @Test
    void withTheFlagAUserWhoIsNotRootIsRefusedAndToldWhy() throws Exception {
        for (String[] arguments : List.of(new String[] {"--check", "--install-packages"}, new String[] {"--install-packages"})) {
            Run run = testPlan(true, pathWithout(), arguments);
            assertEquals(2, run.exitCode(), String.join(" ", arguments) + ": " + run);
            assertTrue(run.stderr().contains("--install-packages cannot install chromium tmux: you are not root (uid "),
                    run.stderr());
            assertTrue(run.stderr().contains("apt-get installs as root only"), run.stderr());
            assertFalse(run.stderr().contains("would run"), run.stderr());
            assertFalse(run.stderr().contains("running ./mvnw"), run.stderr());
        }
    }

    @Test
    void withTheFlagButNoAptGetRootIsRefusedAndToldWhy() throws Exception {
        Assumptions.assumeTrue(isRoot(), "not root: refused for that already");
        Run run = testPlan(false, pathWithout("apt-get"), "--install-packages", "--check");
        assertEquals(2, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("--install-packages cannot install chromium tmux: there is no apt-get here"),
                run.stderr());
    }

    /** {@code ./loomgmp test ARGS} with {@code path} as the PATH; as nobody when {@code notRoot} and this is root. */
    private Run testPlan(boolean notRoot, Path path, String... arguments) throws Exception {
        List<String> command = new ArrayList<>();
        if (notRoot && isRoot()) {
            // Run as nobody: the path a developer who is not root takes.
            Assumptions.assumeTrue(readableByAll(ROOT), "the checkout is not readable by other users: " + ROOT);
            command.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        }
        command.addAll(List.of("bash", ROOT.resolve("loomgmp").toString(), "test"));
        command.addAll(List.of(arguments));
        return bash(Map.of("PATH", path.toString(), "JAVA_HOME", JAVA_HOME, "HOME", tmp.toString()),
                command.toArray(String[]::new));
    }

    @Test
    void aBrowserNamedButMissingIsAnError() throws Exception {
        Run run = bash(Map.of("LOOMGMP_CHROMIUM", tmp.resolve("no-such-browser").toString()),
                "bash", ROOT.resolve("loomgmp").toString(), "test", "--check");
        assertEquals(2, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("LOOMGMP_CHROMIUM=" + tmp.resolve("no-such-browser") + " is not an executable"),
                run.stderr());
    }

    // ---------------------------------------------------------------- help

    private static final List<String> USER_COMMANDS = List.of("run", "top", "trace", "jfc", "version");
    private static final List<String> EVALUATOR_COMMANDS = List.of("demo", "bench", "soak");
    private static final List<String> CONTRIBUTOR_COMMANDS = List.of("build", "test");

    @Test
    void helpListsEveryCommandUnderWhoRunsIt() throws Exception {
        Run run = launcher("help");
        assertEquals(0, run.exitCode(), run.stderr());
        String out = run.stdout();
        int users = out.indexOf("\nFor users:\n");
        int evaluators = out.indexOf("\nFor evaluators:\n");
        int contributors = out.indexOf("\nFor contributors:\n");
        assertTrue(users >= 0 && users < evaluators && evaluators < contributors, out);
        assertCommandsIn(out.substring(users, evaluators), USER_COMMANDS, out);
        assertCommandsIn(out.substring(evaluators, contributors), EVALUATOR_COMMANDS, out);
        assertCommandsIn(out.substring(contributors), CONTRIBUTOR_COMMANDS, out);
        assertEquals(out, launcher().stdout(), "./loomgmp alone prints the help");
    }

    private static void assertCommandsIn(String section, List<String> commands, String help) {
        int from = 0;
        for (String command : commands) {
            int at = section.indexOf("\n  ./loomgmp " + command + " ", from) + 1;
            if (at == 0) {
                at = section.indexOf("\n  ./loomgmp " + command + "\n", from) + 1;
            }
            assertTrue(at > from, command + " not listed in its place in\n" + help);
            from = at;
        }
    }

    @Test
    void eachCommandsHelpGivesItsSynopsisAndWhatItWritesAndDashDashHelpIsTheSame() throws Exception {
        for (String command : Stream.of(USER_COMMANDS, EVALUATOR_COMMANDS, CONTRIBUTOR_COMMANDS).flatMap(List::stream).toList()) {
            Run help = launcher("help", command);
            assertEquals(0, help.exitCode(), command + ": " + help.stderr());
            assertTrue(help.stdout().startsWith("usage: ./loomgmp " + command), help.stdout());
            assertTrue(help.stdout().contains("Writes") || help.stdout().contains("writes"),
                    "help " + command + " does not say what it writes:\n" + help.stdout());
            assertTrue(help.stdout().contains("Example"), "help " + command + " has no example:\n" + help.stdout());
            if (!command.equals("soak")) { // soak --help is the soak's own
                Run dashDashHelp = launcher(command, "--help");
                assertEquals(0, dashDashHelp.exitCode(), command + " --help: " + dashDashHelp.stderr());
                assertEquals(help.stdout(), dashDashHelp.stdout(), command + " --help and help " + command);
            }
        }
        assertTrue(launcher("help", "soak").stdout().contains("./loomgmp soak --help prints them"));
    }

    /**
     * The figures the docs quote word for word (README, CONTRIBUTING, docs/performance.md): when
     * this fails, the launcher's times changed, and the docs must change with them.
     */
    @Test
    void theHelpGivesTheMeasuredTimesTheDocsQuote() throws Exception {
        String bench = launcher("help", "bench").stdout();
        for (String figure : List.of("about 73 min on 2 cores (the last published run took 64 min 34 s)", "--quick",
                "about 7.5 min", "about 2 min", "about 6 min with the default")) {
            assertTrue(bench.contains(figure), "help bench lacks '" + figure + "':\n" + bench);
        }
        for (String figure : List.of("--saturation HTTP servers loaded far past capacity (about 12 min; --quick about 2.5 min)",
                "per cell: about 12 min on 2 cores", "fewer connection levels: about 2.5 min",
                "to show that it runs: under a minute")) {
            assertTrue(bench.contains(figure), "help bench lacks '" + figure + "':\n" + bench);
        }
        String test = launcher("help", "test").stdout();
        assertTrue(test.contains("6 to 10 minutes on 2 cores"), test);
        String demo = launcher("help", "demo").stdout();
        assertTrue(demo.contains("about 30 s") && demo.contains("--small about 20 s"), demo);
        assertTrue(launcher("help", "soak").stdout().contains("default 10 min"));
    }

    @Test
    void helpOfAnUnknownCommandIsAnErrorNamingTheCommands() throws Exception {
        Run run = launcher("help", "frobnicate");
        assertEquals(2, run.exitCode(), run.toString());
        assertEquals("loomgmp: no command 'frobnicate'; the commands are: run top trace jfc version demo bench soak build"
                + " test help", run.stderr().strip());
        assertEquals("", run.stdout());
        Run unknown = launcher("frobnicate");
        assertEquals(2, unknown.exitCode(), unknown.toString());
        assertTrue(unknown.stderr().startsWith("loomgmp: unknown command 'frobnicate'; the commands are: run top"),
                unknown.stderr());
    }

    // ---------------------------------------------------------------- bench

    @Test
    void benchPublishNamesTheDocItRewritesAndNeedsAWholeRun() throws Exception {
        Run run = launcher("bench", "--publish", "Skynet");
        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.stderr().contains("--publish needs a whole run (no REGEX, --procs, --smoke or --first-seconds): only that may replace the"
                + " table in docs/performance.md"), run.stderr());
        assertTrue(Files.isRegularFile(ROOT.resolve("docs/performance.md")), "the doc bench --publish rewrites");
        assertTrue(launcher("help", "bench").stdout().contains("benchmarks/results/ and the benchmark table in docs/performance.md"));
        Run procs = launcher("bench", "--publish", "--procs", "2,8");
        assertEquals(2, procs.exitCode(), procs.toString());
        assertTrue(procs.stderr().contains("--publish needs a whole run"), procs.stderr());
    }

    @Test
    void benchProcsNeedsAListOfNumbersBeforeBuildingAnything() throws Exception {
        for (List<String> bad : List.of(List.of("--procs"), List.of("--procs", "two"), List.of("--procs", "2,,8"),
                List.of("--procs", "--quick"))) {
            List<String> args = new ArrayList<>(List.of("bench"));
            args.addAll(bad);
            Run run = launcher(args.toArray(String[]::new));
            assertEquals(2, run.exitCode(), args + ": " + run);
            assertTrue(run.stderr().contains("--procs takes numbers of Ps separated by commas, e.g. --procs 2,8,32"),
                    args + ": " + run.stderr());
            assertFalse(run.stderr().contains("building"), args + " built something: " + run.stderr());
        }
    }

    @Test
    void benchStartupHandsItsArgumentsToTheStartUpBenchmark() throws Exception {
        Run help = launcher("bench", "--startup", "--help");
        assertEquals(0, help.exitCode(), help.toString());
        assertTrue(help.stdout().contains("run.sh") && help.stdout().contains("--runs N"), "run.sh's help: " + help.stdout());
        Run bad = launcher("bench", "--startup", "--no-such-option");
        assertEquals(2, bad.exitCode(), bad.toString());
        assertTrue(bad.stderr().contains("--no-such-option"), bad.stderr());
        Run late = launcher("bench", "--quick", "--startup");
        assertEquals(2, late.exitCode(), late.toString());
        assertTrue(late.stderr().contains("--startup comes first"), late.stderr());
    }

    @Test
    void benchSaturationChecksItsOptionsBeforeBuildingAnything() throws Exception {
        Map<List<String>, String> refused = Map.of(
                List.of("--fast"), "unknown option '--fast' for bench --saturation",
                List.of("--shape", "tiny"), "bench --saturation: no shape 'tiny'; the shapes are: cpu handoff mixed hogs+sleeper open",
                List.of("--shape", "cpu,*"), "no shape '*'",
                List.of("--server", "tomcat"), "bench --saturation: no server 'tomcat'; the servers are: vthread jetty",
                List.of("--duration", "0"), "--duration takes whole seconds from 1 to 600, not '0'",
                List.of("--duration", "2.5"), "--duration takes whole seconds from 1 to 600, not '2.5'",
                List.of("--duration"), "bench --saturation: --duration needs a value",
                List.of("--agent", tmp.resolve("none.jar").toString()), "is not a file: name a loom-gmp agent jar",
                List.of("--quick", "--smoke"), "bench --saturation takes one of --quick and --smoke",
                List.of("--quick", "--publish"), "bench --saturation --publish needs a whole default run");
        for (Map.Entry<List<String>, String> bad : refused.entrySet()) {
            List<String> args = new ArrayList<>(List.of("bench", "--saturation"));
            args.addAll(bad.getKey());
            Run run = launcher(args.toArray(String[]::new));
            assertEquals(2, run.exitCode(), args + ": " + run);
            assertTrue(run.stderr().contains(bad.getValue()), args + ": " + run.stderr());
            assertTrue(run.stderr().contains("./loomgmp bench --saturation [--quick | --smoke]"), "the synopsis: " + run.stderr());
            assertFalse(run.stderr().contains("building"), args + " built something: " + run.stderr());
        }
        Run late = launcher("bench", "--quick", "--saturation");
        assertEquals(2, late.exitCode(), late.toString());
        assertTrue(late.stderr().contains("--saturation comes first"), late.stderr());
        Run both = launcher("bench", "--saturation", "--startup");
        assertEquals(2, both.exitCode(), both.toString());
        assertTrue(both.stderr().contains("--startup and --saturation are two benchmarks"), both.stderr());
        Run help = launcher("bench", "--saturation", "--help");
        assertEquals(0, help.exitCode(), help.toString());
        assertEquals(launcher("help", "bench").stdout(), help.stdout());
    }

    @Test
    void benchSaturationWithoutWrkSaysWhatToRunAndInstallsItOnlyWhenAskedAsRoot() throws Exception {
        Path path = pathWithout("wrk");
        Map<String, String> env = Map.of("PATH", path.toString(), "JAVA_HOME", JAVA_HOME, "HOME", tmp.toString());
        Run missing = bash(env, "bash", ROOT.resolve("loomgmp").toString(), "bench", "--saturation", "--quick");
        assertEquals(2, missing.exitCode(), missing.toString());
        assertTrue(missing.stderr().contains("bench --saturation needs wrk (Debian's wrk 4.1.0), and there is none on the PATH:"
                + " run ./loomgmp bench --saturation --install-packages (as root on Debian or Ubuntu; it runs apt-get install"
                + " wrk), or install wrk yourself"), missing.stderr());
        assertFalse(missing.stderr().contains("installing"), "installs only with --install-packages: " + missing.stderr());
        assertFalse(missing.stderr().contains("building"), missing.stderr());

        List<String> asUser = new ArrayList<>();
        if (isRoot()) {
            Assumptions.assumeTrue(readableByAll(ROOT), "the checkout is not readable by other users: " + ROOT);
            asUser.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        }
        asUser.addAll(List.of("bash", ROOT.resolve("loomgmp").toString(), "bench", "--saturation", "--install-packages"));
        Run refused = bash(env, asUser.toArray(String[]::new));
        assertEquals(2, refused.exitCode(), refused.toString());
        assertTrue(refused.stderr().contains("--install-packages cannot install wrk: you are not root (uid "), refused.stderr());
        assertFalse(refused.stderr().contains("building"), refused.stderr());
    }

    // ---------------------------------------------------------------- run

    @Test
    void runChecksItsOptionsBeforeStartingJava() throws Exception {
        Run none = launcher("run");
        assertEquals(2, none.exitCode(), none.toString());
        assertTrue(none.stderr().contains("'run' needs java arguments, e.g. ./loomgmp run -jar app.jar"), none.stderr());
        Run optionsOnly = launcher("run", "--agent-args", "verbose=true");
        assertEquals(2, optionsOnly.exitCode(), optionsOnly.toString());
        assertTrue(optionsOnly.stderr().contains("'run' needs java arguments"), optionsOnly.stderr());
        Run noValue = launcher("run", "--agent-args");
        assertEquals(2, noValue.exitCode(), noValue.toString());
        assertTrue(noValue.stderr().contains("--agent-args needs a value, e.g. --agent-args parallelism=4,verbose=true"),
                noValue.stderr());
        Run forgotten = launcher("run", "--agent-args", "-jar", "app.jar");
        assertEquals(2, forgotten.exitCode(), forgotten.toString());
        assertTrue(forgotten.stderr().contains("--agent-args takes K=V settings separated by commas"), forgotten.stderr());
        Run noCache = launcher("run", "--aot");
        assertEquals(2, noCache.exitCode(), noCache.toString());
        assertTrue(noCache.stderr().contains("--aot needs the AOT cache file"), noCache.stderr());
    }

    @Test
    void runPassesTheAgentArgumentsAfterTheAgentJar() throws Exception {
        Run run = launcher("run", "--agent-args", "parallelism=1,verbose=true", "--", "-version");
        assertEquals(0, run.exitCode(), run.stderr());
        // verbose=true: the agent's start-up line, with every setting in force.
        assertTrue(run.stderr().lines().anyMatch(line -> line.startsWith("loom-gmp ") && line.contains(" agent on JDK ")
                && line.contains("parallelism=1,") && line.contains("verbose=true")), run.stderr());
        assertTrue(run.stderr().contains("version \"25"), run.stderr());
    }

    /**
     * The caller's JDK_JAVA_OPTIONS and JAVA_TOOL_OPTIONS reach the application's JVM, once, and
     * not the launcher's own (where an agent named in them would start too).
     */
    @Test
    void runGivesJavasEnvironmentOptionsToTheApplicationOnly() throws Exception {
        Run run = bash(Map.of("JDK_JAVA_OPTIONS", "-Dfrom.jdk.java.options=yes", "JAVA_TOOL_OPTIONS", "-Dfrom.tool.options=yes"),
                "bash", ROOT.resolve("loomgmp").toString(), "run", "-XshowSettings:properties", "-version");
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(1, run.stderr().lines().filter(l -> l.startsWith("NOTE: Picked up JDK_JAVA_OPTIONS")).count(), run.stderr());
        assertEquals(1, run.stderr().lines().filter(l -> l.startsWith("Picked up JAVA_TOOL_OPTIONS")).count(), run.stderr());
        assertTrue(run.stderr().contains("from.jdk.java.options = yes") && run.stderr().contains("from.tool.options = yes"),
                run.stderr());
    }

    /**
     * --aot: the first run trains (without the agent, which JDK 25.0.3 cannot assemble a cache
     * with) and writes the cache and what it was made from, the next one runs with the agent on
     * it; a cache the JVM cannot use stops the JVM, saying so, rather than run without it; and a
     * cache made from another jar stops the launcher. Paths relative to the directory it is run from.
     */
    @Test
    void runWithAnAotCacheTrainsThenUsesItOrStopsWhenTheJvmCannot() throws Exception {
        Path work = Files.createDirectories(tmp.resolve("aot"));
        helloJar(work);
        Map<String, String> env = Map.of("JAVA_HOME", JAVA_HOME);
        String launcher = ROOT.resolve("loomgmp").toString();

        Run training = bashIn(work, env, "bash", launcher, "run", "--aot", "app.aot", "-cp", "hello.jar", "Hello");
        assertEquals(0, training.exitCode(), training.toString());
        assertTrue(training.stderr().contains("loomgmp: training: writing the AOT cache app.aot at exit"), training.stderr());
        assertTrue(training.stdout().contains("hello from VirtualThread"), training.stdout());
        assertFalse(training.stdout().contains("@gmp-M"), "the training run is without the agent: " + training.stdout());
        assertTrue(Files.isRegularFile(work.resolve("app.aot")), "no cache written:\n" + training);
        assertTrue(training.stderr().contains("loomgmp: wrote the AOT cache app.aot"), training.stderr());
        assertTrue(Files.readString(work.resolve("app.aot.inputs")).contains("class path entry hello.jar: "),
                "what the cache was made from: " + Files.readString(work.resolve("app.aot.inputs")));

        Run using = bashIn(work, env, "bash", launcher, "run", "--aot", "app.aot", "-Xlog:aot=info", "-cp", "hello.jar", "Hello");
        assertEquals(0, using.exitCode(), using.toString());
        assertTrue(using.stderr().contains("loomgmp: using the AOT cache app.aot"), using.stderr());
        assertTrue(using.stderr().contains("they get no preemption polls"), using.stderr());
        assertTrue(using.stdout().contains("Opened AOT cache app.aot"), using.stdout());
        assertTrue(using.stdout().contains("Using AOT-linked classes: true"), using.stdout());
        assertTrue(using.stdout().contains("hello from VirtualThread") && using.stdout().contains("@gmp-M"),
                "the run on the cache has the agent: " + using.stdout());

        // A cache made for a JVM without the agent (no java.instrument module): the JVM cannot use
        // it. Made by java itself, it has no inputs file: the launcher refuses it first.
        Run plain = bashIn(work, env, Path.of(JAVA_HOME, "bin", "java").toString(), "-XX:AOTCacheOutput=plain.aot",
                "-cp", "hello.jar", "Hello");
        assertEquals(0, plain.exitCode(), plain.toString());
        Run unchecked = bashIn(work, env, "bash", launcher, "run", "--aot", "plain.aot", "-cp", "hello.jar", "Hello");
        assertEquals(2, unchecked.exitCode(), unchecked.toString());
        assertTrue(unchecked.stderr().contains("the AOT cache plain.aot has no plain.aot.inputs, so it was not trained by"
                + " ./loomgmp run --aot"), unchecked.stderr());
        Files.copy(work.resolve("app.aot.inputs"), work.resolve("plain.aot.inputs"));
        Run refused = bashIn(work, env, "bash", launcher, "run", "--aot", "plain.aot", "-cp", "hello.jar", "Hello");
        assertEquals(1, refused.exitCode(), refused.toString());
        assertTrue(refused.stderr().contains("then delete plain.aot to train a new one"), refused.stderr());
        assertTrue((refused.stdout() + refused.stderr()).contains("Unable to use AOT cache"), refused.toString());
        assertFalse(refused.stdout().contains("hello from"), "ran without the cache: " + refused.stdout());

        // The application rebuilt: JDK 25.0.3 would run the old classes from the cache; the launcher stops.
        Files.writeString(work.resolve("Hello.java"), Files.readString(work.resolve("Hello.java")).replace("hello from", "hi from"));
        helloJar(work, false);
        Run stale = bashIn(work, env, "bash", launcher, "run", "--aot", "app.aot", "-cp", "hello.jar", "Hello");
        assertEquals(2, stale.exitCode(), stale.toString());
        assertTrue(stale.stderr().contains("loomgmp: the AOT cache app.aot does not fit this run: the class path entry"
                + " hello.jar changed since it was trained"), stale.stderr());
        assertEquals("", stale.stdout());
    }

    /** A jar in {@code dir}, hello.jar, whose main class Hello prints the thread a virtual thread runs on. */
    private static void helloJar(Path dir) throws Exception {
        helloJar(dir, true);
    }

    /** hello.jar from {@code dir}'s Hello.java, written first when {@code write}. */
    private static void helloJar(Path dir, boolean write) throws Exception {
        if (write) {
            Files.writeString(dir.resolve("Hello.java"), """
                    public class Hello {
                        public static void main(String[] args) throws Exception {
                            Thread.ofVirtual().start(() -> System.out.println("hello from " + Thread.currentThread())).join();
                        }
                    }
                    """);
        }
        for (List<String> tool : List.of(List.of("javac", "-d", "classes", "Hello.java"),
                List.of("jar", "--create", "--file", "hello.jar", "-C", "classes", "."))) {
            List<String> command = new ArrayList<>(tool);
            command.set(0, Path.of(JAVA_HOME, "bin", tool.getFirst()).toString());
            Process process = new ProcessBuilder(command).directory(dir.toFile()).inheritIO().start();
            assertTrue(process.waitFor(2, TimeUnit.MINUTES), command + " did not finish in 2 minutes");
            assertEquals(0, process.exitValue(), String.join(" ", command));
        }
    }

    // ---------------------------------------------------------------- through a symlink, from anywhere

    @Test
    void aLinkOnThePathRunsTheCheckoutFromAnyDirectoryWithPathsRelativeToIt() throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("link-bin"));
        Files.createSymbolicLink(bin.resolve("loomgmp"), ROOT.resolve("loomgmp"));
        Path work = Files.createDirectories(tmp.resolve("elsewhere"));
        helloJar(work);
        Map<String, String> env = Map.of("PATH", bin + ":" + System.getenv("PATH"), "JAVA_HOME", JAVA_HOME);

        Run help = bashIn(work, env, "bash", "-c", "loomgmp help");
        assertEquals(0, help.exitCode(), help.toString());
        assertTrue(help.stdout().contains("For users:"), help.stdout());
        Run jfc = bashIn(work, env, "bash", "-c", "loomgmp jfc always");
        assertEquals(0, jfc.exitCode(), jfc.toString());
        Path settings = Path.of(jfc.stdout().strip());
        assertTrue(Files.isRegularFile(settings), "not a file: " + settings);
        assertTrue(settings.toRealPath().startsWith(ROOT.toRealPath()), settings + " is not in the checkout " + ROOT);
        Run run = bashIn(work, env, "bash", "-c", "loomgmp run -cp hello.jar Hello");
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.stdout().contains("@gmp-M"), "hello.jar, relative to " + work + ", with the agent: " + run.stdout());
    }

    private Run launcher(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", ROOT.resolve("loomgmp").toString()));
        command.addAll(List.of(arguments));
        return bash(Map.of(), command.toArray(String[]::new));
    }

    private static boolean isRoot() throws Exception {
        Process id = new ProcessBuilder("id", "-u").start();
        return new String(id.getInputStream().readAllBytes()).strip().equals("0");
    }

    /** Whether every directory from / down to {@code dir} lets others in, and the launcher is readable. */
    private static boolean readableByAll(Path dir) throws IOException {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (!PosixFilePermissions.toString(Files.getPosixFilePermissions(p)).endsWith("x")) {
                return false;
            }
        }
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("loomgmp"))).charAt(6) == 'r';
    }

    /** A directory of links to every command in /usr/bin and /bin but the browsers, tmux and {@code also}. */
    private Path pathWithout(String... also) throws IOException {
        Path bin = Files.createTempDirectory(tmp, "bin");
        Files.createDirectories(bin);
        for (Path dir : List.of(tmp, bin)) { // the user who is not root must get in
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        for (String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
            if (!Files.isDirectory(Path.of(dir))) {
                continue;
            }
            try (Stream<Path> commands = Files.list(Path.of(dir))) {
                for (Path command : commands.toList()) {
                    String name = command.getFileName().toString();
                    if (name.startsWith("chromium") || name.startsWith("google-chrome") || name.equals("tmux")
                            || List.of(also).contains(name) || Files.exists(bin.resolve(name))) {
                        continue;
                    }
                    Files.createSymbolicLink(bin.resolve(name), command);
                }
            }
        }
        return bin;
    }
}
