package io.loomgmp.benchmarks.saturation;

import io.loomgmp.benchmarks.report.ReadmeSection;
import io.loomgmp.benchmarks.runner.Machine;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs the saturation benchmark and writes its report: what {@code ./loomgmp bench --saturation}
 * runs. Real HTTP servers on virtual threads, loaded over loopback far past what 2 cores serve,
 * GMP beside the JDK's ForkJoinPool in the same run, cell after cell ({@link Plan}, {@link CellRunner});
 * a progress line per cell on standard output; then {@link SaturationReport}'s Markdown and CSV,
 * and with {@code --doc} the section of docs/performance.md.
 *
 * <p>The first server calibrates the CPU loop and every later one is given its figure, so that a
 * request of a class is the same work in every cell of the run. The open-loop cells take their
 * rate from ForkJoinPool's best closed-loop {@code cpu} figure on the same server in this run.
 */
public final class SaturationRunner {
    private final SaturationOptions options;
    private final PrintStream progress;

    SaturationRunner(SaturationOptions options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
    }

    public static void main(String[] args) throws InterruptedException {
        Optional<SaturationOptions> options;
        try {
            options = SaturationOptions.parse(List.of(args));
        } catch (SaturationOptions.UsageException e) {
            System.err.println("saturation: " + e.getMessage());
            System.err.println(SaturationOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.isEmpty()) {
            System.out.println(SaturationOptions.USAGE);
            return;
        }
        try {
            System.exit(new SaturationRunner(options.get(), System.out).run());
        } catch (IOException e) {
            System.err.println("saturation: " + e);
            System.exit(1);
        }
    }

    /** @return the exit status: 0; 1 if a cell failed; 2 if the run cannot start */
    int run() throws IOException, InterruptedException {
        long start = System.nanoTime();
        if (!Files.isRegularFile(options.agent())) {
            System.err.println("saturation: no agent jar at " + options.agent());
            return 2;
        }
        String wrkVersion;
        try {
            wrkVersion = Wrk.version(options.wrk());
        } catch (IOException e) {
            System.err.println("saturation: cannot run wrk ('" + options.wrk() + "'): " + e.getMessage());
            return 2;
        }
        List<Cell> cells = Plan.cells(options.profile(), options.shapes(), options.server());
        if (cells.isEmpty()) {
            System.err.println("saturation: no cell to run for these filters");
            return 2;
        }
        Files.createDirectories(options.out().toAbsolutePath().getParent());
        cleanLogs(options.logs());
        CellRunner runner = new CellRunner(new CellRunner.Setup(Path.of(System.getProperty("java.home"), "bin", "java"),
                System.getProperty("java.class.path"), options.agent(), options.wrk(), Wrk.writeScript(options.logs()),
                options.logs(), options.profile().warmupSeconds, options.windowSeconds()));
        double loadAtStart = loadAverage();
        double maxLoad = loadAtStart;
        progress.printf(Locale.ROOT, "saturation: %d cells (%s), about %s on 2 cores; load average %.2f; each cell's output in %s%n",
                cells.size(), profileText(), minutes(estimate(cells)), loadAtStart, options.logs());
        OptionalDouble steps = options.stepsPerMicro();
        Map<String, Double> capacity = new HashMap<>();
        List<CellResult> results = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            Cell cell = cells.get(i);
            double load = loadAverage();
            maxLoad = Math.max(maxLoad, load);
            CellResult result;
            try {
                result = runner.run(cell, i + 1, steps, capacity.getOrDefault(cell.server(), 0.0), load);
            } catch (CellRunner.CellFailure e) {
                System.err.printf("saturation: [%d/%d] %s%n", i + 1, cells.size(), e.getMessage());
                System.err.println("saturation: the run stopped; each cell's output is in " + options.logs());
                return 1;
            }
            if (steps.isEmpty()) {
                steps = OptionalDouble.of(result.stepsPerMicro());
            }
            if (cell.shape() == Shape.CPU && cell.scheduler().equals("fjp")) {
                capacity.merge(cell.server(), result.classes().get(0).requestsPerSecond(), Math::max);
            }
            results.add(result);
            progress.println(progressLine(i + 1, cells.size(), result, Duration.ofNanos(System.nanoTime() - start), load));
        }
        double loadAtEnd = loadAverage();
        String took = minutes(Duration.ofNanos(System.nanoTime() - start));
        SaturationReport.RunInfo info = new SaturationReport.RunInfo(
                Machine.cpuModel(Path.of("/proc/cpuinfo")) + ", " + Runtime.getRuntime().availableProcessors() + " cores, JDK "
                        + Runtime.version() + " (" + System.getProperty("java.vm.vendor") + "), " + System.getProperty("os.name")
                        + " " + System.getProperty("os.version"),
                profileText(), commit(), agentText(), wrkVersion, LocalDate.now().toString(),
                String.format(Locale.ROOT, "%.2f at the start, %.2f at the end, %.2f at most at a cell's start (1-minute)",
                        loadAtStart, loadAtEnd, Math.max(maxLoad, loadAtEnd)),
                options.command(), took, steps.orElse(Double.NaN));
        if (!write(results, info, options.out(), options.csv(), options.doc(), progress)) {
            return 1;
        }
        progress.println("saturation: total " + took);
        return 0;
    }

    /**
     * Writes the report's Markdown to {@code out} and its CSV to {@code csv}, then, when given,
     * the section of {@code doc} between the saturation markers, with links from it to both.
     *
     * @return false if {@code doc} has no section to rewrite (it is left as it was; the report is written)
     */
    static boolean write(List<CellResult> results, SaturationReport.RunInfo info, Path out, Path csv, Optional<Path> doc,
                         PrintStream progress) throws IOException {
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, SaturationReport.markdown(results, info, csv.getFileName().toString()));
        Files.writeString(csv, SaturationReport.csv(results));
        progress.println("saturation: wrote " + out + " and " + csv);
        if (doc.isEmpty()) {
            return true;
        }
        Path docDir = doc.get().toAbsolutePath().getParent();
        String updated;
        try {
            updated = ReadmeSection.replace(Files.readString(doc.get()), SaturationReport.BEGIN, SaturationReport.END,
                    SaturationReport.section(results, info, link(docDir, out), link(docDir, csv)));
        } catch (IllegalArgumentException noSection) {
            System.err.println("saturation: " + doc.get() + " left as it was: " + noSection.getMessage());
            return false;
        }
        Files.writeString(doc.get(), updated);
        progress.println("saturation: updated the saturation section of " + doc.get());
        return true;
    }

    private String profileText() {
        return options.profile().label + " run (" + options.profile().warmupSeconds + " s warm-up, "
                + options.windowSeconds() + " s measured per cell)";
    }

    /**
     * "[ 3/18] cpu vthread 1024 conns gmp: 1,612 req/s p99 812 ms 0/0; CPU 1,180 µs/req (1.71 cores) (0:52, load 2.31)":
     * per class its answers per second, p99 and timeouts/errors, then the cell's CPU.
     */
    static String progressLine(int done, int total, CellResult result, Duration elapsed, double load) {
        String classes = "";
        for (int i = 0; i < result.classes().size(); i++) {
            LoadResult r = result.classes().get(i);
            classes += (i == 0 ? "" : "; ") + (result.classes().size() > 1 ? result.cell().classes().get(i).target() + " " : "")
                    + SaturationReport.number(r.requestsPerSecond()) + " req/s, p99 "
                    + (r.requests() == 0 ? "none" : SaturationReport.number(r.p99Micros() / 1e3) + " ms")
                    + ", to/err " + r.timeouts() + "/" + r.errors()
                    + (result.classes().size() > 1 ? ", work " + SaturationReport.number(result.workCores(i))
                            + String.format(Locale.ROOT, " cores (%.0f %%)", result.workShare(i) * 100) : "");
        }
        double cpu = result.cpuPerRequestMicros();
        return String.format(Locale.ROOT, "[%2d/%d] %s: %s; CPU %s µs/req (%.2f cores)   (%d:%02d, load %.2f)", done, total,
                result.cell().name(), classes, Double.isFinite(cpu) ? SaturationReport.number(cpu) : "—", result.cores(),
                elapsed.toMinutes(), elapsed.toSecondsPart(), load);
    }

    /**
     * About how long the cells take on 2 cores: the JVM's start and stop, the warm-up, the window,
     * and the hogs' drain (measured: about 3 s a cell beside its warm-up and window, 8 s more for
     * the hogs).
     */
    Duration estimate(List<Cell> cells) {
        long seconds = 0;
        for (Cell cell : cells) {
            seconds += 3 + options.profile().warmupSeconds + options.windowSeconds() + (cell.shape() == Shape.HOGS ? 8 : 0);
        }
        return Duration.ofSeconds(seconds);
    }

    static String minutes(Duration duration) {
        return duration.toMinutes() + " min " + String.format(Locale.ROOT, "%02d s", duration.toSecondsPart());
    }

    /** The 1-minute load average (/proc/loadavg), or NaN where there is none. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** Deletes the logs of an earlier run (the cells' numbered logs), so that the directory shows this one. */
    private static void cleanLogs(Path logs) throws IOException {
        Files.createDirectories(logs);
        try (Stream<Path> files = Files.list(logs)) {
            for (Path file : files.filter(f -> f.getFileName().toString().matches("\\d\\d-.*\\.log")).toList()) {
                Files.delete(file);
            }
        }
    }

    private static String link(Path fromDir, Path to) {
        return fromDir.relativize(to.toAbsolutePath()).toString().replace('\\', '/');
    }

    /** The agent jar: its path and the start of its SHA-256, so that two runs can tell their agents apart. */
    private String agentText() throws IOException {
        try (InputStream in = Files.newInputStream(options.agent())) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[65_536];
            int n;
            while ((n = in.read(buffer)) > 0) {
                sha.update(buffer, 0, n);
            }
            return "`" + options.agent() + "` (SHA-256 " + HexFormat.of().formatHex(sha.digest()).substring(0, 12) + ")";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The commit of the checkout this runner's jar was built in, "-dirty" if it has uncommitted changes. */
    private static String commit() {
        Path jar = Path.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)[0]).toAbsolutePath();
        Path dir = Files.isDirectory(jar) ? jar : jar.getParent();
        String head = git(dir, "rev-parse", "--short=12", "HEAD");
        if (head.isEmpty()) {
            return "unknown (not a git checkout)";
        }
        return head + (git(dir, "status", "--porcelain", "--untracked-files=no").isEmpty() ? "" : "-dirty");
    }

    private static String git(Path dir, String... args) {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(args));
        try {
            Process git = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 ? out.lines().collect(Collectors.joining(" ")) : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
