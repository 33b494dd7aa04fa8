package io.loomgmp.benchmarks.saturation;

import io.loomgmp.benchmarks.saturation.Cell.LoadClass;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Runs one cell: starts its server JVM (with the agent for GMP), checks that its virtual threads
 * run on the scheduler the cell names, warms it up with the cell's own load (discarded), waits for
 * the requests the warm-up left to end, then measures: the server's CPU time read from its stats
 * port just before the load generators start and just after they end, the generators' results,
 * and the scheduler check again over the requests. Then it stops the server.
 *
 * <p>Closed loop: the warm-up and the window are two runs of wrk per class, all classes' wrk
 * processes started together. Open loop: one client JVM does both (its JIT warms up with it), and
 * says when its window begins.
 */
final class CellRunner {
    /**
     * The longest wait for the warm-up's leftover requests. 100 hogs of 150 ms on average are 15 s of
     * CPU: about 8 s on 2 idle cores, 20 s measured on GMP on a busy machine (it shares the cores
     * among them all, and its polled loop runs slower while preemptions are pending).
     */
    static final Duration DRAIN_LIMIT = Duration.ofSeconds(60);
    /** Beyond a generator's own run time, the longest wait for it to end before it is destroyed. */
    static final Duration GENERATOR_GRACE = Duration.ofSeconds(60);

    /** What every cell of a run shares. */
    record Setup(Path java, String classPath, Path agent, String wrk, Path script, Path logs, int warmupSeconds,
                 int windowSeconds) {
    }

    /** A cell that could not be measured, or that ran on the wrong scheduler: the run stops. */
    static final class CellFailure extends Exception {
        private static final long serialVersionUID = 1L;

        CellFailure(String message) {
            super(message);
        }
    }

    private final Setup setup;

    CellRunner(Setup setup) {
        this.setup = setup;
    }

    /**
     * Runs {@code cell}, the {@code number}th of the run.
     *
     * @param stepsPerMicro the calibration to give the server, or empty to let it calibrate
     * @param capacity      for an open-loop cell: ForkJoinPool's closed-loop requests per second on this server
     */
    CellResult run(Cell cell, int number, OptionalDouble stepsPerMicro, double capacity, double loadAverage)
            throws IOException, InterruptedException, CellFailure {
        String name = String.format("%02d-%s", number, cell.name().replaceAll("[^A-Za-z0-9.+-]+", "-"));
        List<String> command = ServerProcess.command(setup.java(), setup.classPath(),
                cell.scheduler().equals("gmp") ? Optional.of(setup.agent()) : Optional.empty(), cell.server(), stepsPerMicro);
        try (ServerProcess server = ServerProcess.start(command, setup.logs().resolve(name + "-server.log"))) {
            if (!server.scheduler().equals(cell.scheduler())) {
                throw new CellFailure(cell.name() + ": the server's virtual threads run on " + server.scheduler() + ", not "
                        + cell.scheduler() + (cell.scheduler().equals("gmp") ? " (is " + setup.agent() + " a loom-gmp agent for this JDK?"
                        + " The server's output: " + server.output().lines().findFirst().orElse("none") + ")" : ""));
            }
            return cell.openLoop() ? openLoop(cell, name, server, capacity, loadAverage)
                    : closedLoop(cell, name, server, loadAverage);
        }
    }

    private CellResult closedLoop(Cell cell, String name, ServerProcess server, double loadAverage)
            throws IOException, InterruptedException, CellFailure {
        wrk(cell, name + "-warmup", server, setup.warmupSeconds());
        Optional<Duration> drain = server.awaitIdle(DRAIN_LIMIT);
        ServerStats.Snapshot before = server.stats();
        long start = System.nanoTime();
        List<LoadResult> results = wrk(cell, name, server, setup.windowSeconds());
        long wall = System.nanoTime() - start;
        ServerStats.Snapshot after = server.stats();
        check(cell, after);
        return new CellResult(cell, results, workSteps(cell, before, after), after.cpuNanos() - before.cpuNanos(), wall,
                after.requests() - before.requests(),
                0, drain.map(Duration::toMillis).orElse(-1L), server.stepsPerMicro(), loadAverage);
    }

    /** Runs one wrk per class, all at once, for {@code seconds}; their results. */
    private List<LoadResult> wrk(Cell cell, String name, ServerProcess server, int seconds)
            throws IOException, InterruptedException, CellFailure {
        List<LoggedProcess> generators = new ArrayList<>();
        try {
            for (int i = 0; i < cell.classes().size(); i++) {
                LoadClass load = cell.classes().get(i);
                generators.add(LoggedProcess.start(Wrk.command(setup.wrk(), setup.script(), load.connections(), seconds,
                        server.port(), load.target()), setup.logs().resolve(name + "-wrk" + i + ".log")));
            }
            List<LoadResult> results = new ArrayList<>();
            for (LoggedProcess generator : generators) {
                results.add(result(cell, generator, generator.awaitOutput(Duration.ofSeconds(seconds).plus(GENERATOR_GRACE))));
            }
            return results;
        } finally {
            for (LoggedProcess generator : generators) {
                generator.close();
            }
        }
    }

    private CellResult openLoop(Cell cell, String name, ServerProcess server, double capacity, double loadAverage)
            throws IOException, InterruptedException, CellFailure {
        if (!(capacity > 0)) {
            throw new CellFailure(cell.name() + ": no ForkJoinPool capacity measured on " + cell.server() + " to take its rate from");
        }
        double rate = cell.fraction() * capacity;
        LoadClass load = cell.classes().get(0);
        OpenLoopClient.Settings settings = new OpenLoopClient.Settings(server.port(), load.target(), rate, load.connections(),
                setup.warmupSeconds(), setup.windowSeconds(), Wrk.TIMEOUT_SECONDS);
        List<String> command = new ArrayList<>(List.of(setup.java().toString(), "-cp", setup.classPath(),
                OpenLoopClient.class.getName()));
        command.addAll(settings.arguments());
        try (LoggedProcess client = LoggedProcess.start(command, setup.logs().resolve(name + "-client.log"))) {
            Duration runs = Duration.ofSeconds(setup.warmupSeconds() + setup.windowSeconds() + Wrk.TIMEOUT_SECONDS);
            if (client.awaitLine(OpenLoopClient.WINDOW::equals, runs.plus(GENERATOR_GRACE)).isEmpty()) {
                throw new CellFailure(cell.name() + ": the open-loop client never began its window; the end of its output ("
                        + client.log() + "):\n" + ServerProcess.tail(client.output(), 20));
            }
            ServerStats.Snapshot before = server.stats();
            long start = System.nanoTime();
            LoadResult result = result(cell, client, client.awaitOutput(runs.plus(GENERATOR_GRACE)));
            long wall = System.nanoTime() - start;
            ServerStats.Snapshot after = server.stats();
            check(cell, after);
            return new CellResult(cell, List.of(result), workSteps(cell, before, after), after.cpuNanos() - before.cpuNanos(), wall,
                    after.requests() - before.requests(), rate, 0, server.stepsPerMicro(), loadAverage);
        }
    }

    /** Each class's work done between the two reads of the server's stats. */
    private static List<Long> workSteps(Cell cell, ServerStats.Snapshot before, ServerStats.Snapshot after) {
        return cell.classes().stream().map(c -> after.workSteps(c.target()) - before.workSteps(c.target())).toList();
    }

    private static LoadResult result(Cell cell, LoggedProcess generator, String output) throws CellFailure {
        try {
            return LoadResult.parseOutput(output);
        } catch (IllegalArgumentException e) {
            throw new CellFailure(cell.name() + ": " + e.getMessage() + " (exit status "
                    + generator.exitValue().map(String::valueOf).orElse("none: still running") + "); the end of its output ("
                    + generator.log() + "):\n" + ServerProcess.tail(output, 20));
        }
    }

    private static void check(Cell cell, ServerStats.Snapshot stats) throws CellFailure {
        String wrong = stats.wrongScheduler(cell.scheduler());
        if (wrong != null) {
            throw new CellFailure(cell.name() + ": not measured on " + cell.scheduler() + ": " + wrong);
        }
    }
}
