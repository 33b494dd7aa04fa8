package io.loomgmp.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code ./loomgmp test [--check] [--install-packages] [maven args]}: the whole suite, as CI runs
 * it. Installs what the tests need only when asked ({@code --install-packages}: Debian's chromium
 * for the trace.html browser tests, tmux for TopIT), else says what is missing, which tests that
 * skips and how to get it; runs {@code ./mvnw -B verify} as a child, and ends with the tests that
 * were skipped and why. {@code --check} only prints the plan.
 */
final class TestCommand {
    private static final Pattern CLASSNAME = Pattern.compile("classname=\"([^\"]*)\"");
    private static final Pattern MESSAGE = Pattern.compile("message=\"([^\"]*)\"");
    private static final Pattern CDATA = Pattern.compile("CDATA\\[(.*)");

    private final Checkout checkout;
    private final Help help;

    TestCommand(Checkout checkout, Help help) {
        this.checkout = checkout;
        this.help = help;
    }

    Stop run(List<String> args) {
        boolean check = false;
        boolean install = false;
        int i = 0;
        loop:
        for (; i < args.size(); i++) {
            switch (args.get(i)) {
                case "--check" -> check = true;
                case "--install-packages" -> install = true;
                case "-h", "--help" -> {
                    return Main.print(help.of("test"));
                }
                default -> {
                    break loop;
                }
            }
        }
        List<String> mavenArgs = args.subList(i, args.size());
        Path chromium = findChromium();
        List<String> packages = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        if (chromium == null) {
            if (!System.getProperty("os.name").equals("Linux")) {
                Main.say("no Chromium, and this is not Linux: the trace.html browser tests will be SKIPPED (they run on Linux only)");
            } else if (install) {
                packages.add("chromium");
            } else {
                Main.say("no Chromium (none on the PATH, LOOMGMP_CHROMIUM unset): the trace.html browser tests will be SKIPPED");
                missing.add("chromium");
            }
        }
        if (Processes.onPath("tmux") == null) {
            if (install) {
                packages.add("tmux");
            } else {
                Main.say("no tmux on the PATH: the live console's terminal test (TopIT) will be SKIPPED");
                missing.add("tmux");
            }
        }
        if (!missing.isEmpty()) {
            Main.say("to run them: ./loomgmp test --install-packages (as root on Debian or Ubuntu), or apt-get install "
                    + String.join(" ", missing)
                    + (missing.contains("chromium") ? ", or LOOMGMP_CHROMIUM=<path> for a Chromium elsewhere" : ""));
        }
        if (!packages.isEmpty()) {
            String names = String.join(" ", packages);
            String why = Packages.whyNoAptInstall();
            if (why != null) {
                throw new Stop(2, "--install-packages cannot install " + names + ": " + why + "; run it as root on Debian or"
                        + " Ubuntu, or install " + names + " yourself, or leave --install-packages out to run without the"
                        + " tests they serve");
            }
            String verb = check ? "would install" : "installing";
            for (String name : packages) {
                Main.say(verb + (name.equals("chromium") ? " Debian's chromium for the trace.html browser tests (apt-get, as root)"
                        : " Debian's tmux for the live console's terminal test (apt-get, as root)"));
            }
            if (!check) {
                if (!Packages.aptInstall(packages)) {
                    throw new Stop(1, "installing " + names + " failed (log above)");
                }
                if (packages.contains("chromium") && (chromium = findChromium()) == null) {
                    throw new Stop(1, "apt-get installed chromium, but no chromium is on the PATH");
                }
                if (packages.contains("tmux") && Processes.onPath("tmux") == null) {
                    throw new Stop(1, "apt-get installed tmux, but no tmux is on the PATH");
                }
            }
        } else if (install) {
            Main.say("--install-packages: nothing to install (chromium and tmux are there)");
        }
        List<String> maven = new ArrayList<>(List.of("./mvnw", "-B", "verify"));
        if (chromium != null) {
            String version = Processes.output(List.of(chromium.toString(), "--version"));
            Main.say("the trace.html browser tests use " + chromium + " ("
                    + (version == null ? "" : version.lines().findFirst().orElse("")) + ")");
            maven.add("-Dloomgmp.chromium=" + chromium); // named: a browser that fails to start fails the test
        }
        maven.addAll(mavenArgs);
        String took = Help.time("time_test");
        if (check) {
            Main.say("would run: " + String.join(" ", maven) + " (" + took + " on 2 cores)");
            return Stop.with(0);
        }
        Main.say("running " + String.join(" ", maven) + " (" + took + " on 2 cores)");
        Instant since = Instant.now();
        int status = Processes.run(maven, checkout.root(), Map.of());
        skippedSummary(since);
        return Stop.with(status);
    }

    /** The Chromium the trace viewer's browser test drives: LOOMGMP_CHROMIUM, else one on the PATH. */
    private static Path findChromium() {
        String named = System.getenv("LOOMGMP_CHROMIUM");
        if (named != null && !named.isEmpty()) {
            Path browser = Path.of(named);
            if (!Files.isRegularFile(browser) || !Files.isExecutable(browser)) {
                throw new Stop(2, "LOOMGMP_CHROMIUM=" + named + " is not an executable: name a Chromium binary, or unset it");
            }
            return browser;
        }
        for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
            Path found = Processes.onPath(name);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** The tests this run skipped (from the reports written since it started), a line per class and reason. */
    private void skippedSummary(Instant since) {
        List<String> lines;
        try {
            lines = skipped(checkout.root(), since);
        } catch (IOException | UncheckedIOException e) {
            Main.say("cannot read the test reports: " + e.getMessage());
            return;
        }
        if (lines.isEmpty()) {
            Main.say("no test was skipped");
        } else {
            Main.say("tests skipped in this run (count in class: reason):");
            lines.forEach(line -> Main.say("  " + line));
        }
    }

    /**
     * "N in Class: reason" for each class and reason of a skipped test, by class, from the test
     * reports under {@code root} written since {@code since}.
     */
    static List<String> skipped(Path root, Instant since) throws IOException {
        Map<String, Integer> counts = new TreeMap<>();
        List<Path> reports;
        try (Stream<Path> files = Files.walk(root)) {
            reports = files.filter(file -> file.getFileName().toString().startsWith("TEST-")
                            && file.getFileName().toString().endsWith(".xml")
                            && file.getParent().getFileName().toString().endsWith("-reports")
                            && file.toString().contains("/target/"))
                    .filter(file -> modifiedSince(file, since)).toList();
        }
        for (Path report : reports) {
            String testClass = "";
            for (String line : Files.readAllLines(report)) {
                if (line.contains("<testcase ")) {
                    Matcher m = CLASSNAME.matcher(line);
                    if (m.find()) {
                        testClass = m.group(1).substring(m.group(1).lastIndexOf('.') + 1);
                    }
                }
                if (line.contains("<skipped")) {
                    String why = "";
                    Matcher message = MESSAGE.matcher(line);
                    Matcher cdata = CDATA.matcher(line);
                    if (message.find()) {
                        why = message.group(1);
                    } else if (cdata.find()) {
                        why = cdata.group(1).replaceFirst("^[^:]*: (Assumption failed: )?", "");
                    }
                    counts.merge(testClass + ": " + why, 1, Integer::sum);
                }
            }
        }
        List<String> lines = new ArrayList<>();
        counts.forEach((classAndReason, count) -> lines.add(count + " in " + classAndReason));
        return lines;
    }

    private static boolean modifiedSince(Path file, Instant since) {
        try {
            return Files.getLastModifiedTime(file).compareTo(FileTime.from(since)) >= 0;
        } catch (IOException e) {
            return false;
        }
    }
}
