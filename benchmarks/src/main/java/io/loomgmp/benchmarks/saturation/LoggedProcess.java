package io.loomgmp.benchmarks.saturation;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A process that the runner starts (a server JVM, wrk, the open-loop client), its standard output
 * and error merged and copied line by line into a log file by a thread of the runner, so that a
 * full pipe never blocks it and every cell leaves its evidence. The runner can wait for a line
 * (the server's {@code LISTENING}, the client's {@code WINDOW}) and, once the process has ended,
 * read all of them.
 */
final class LoggedProcess implements AutoCloseable {
    private final Process process;
    private final Path log;
    private final List<String> lines = new ArrayList<>();
    private final Thread pump;
    private boolean ended;

    private LoggedProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.pump = Thread.ofPlatform().name("output-of-" + process.pid()).daemon().start(this::pump);
    }

    /** Starts {@code command}; its output goes to {@code log} (appended, after a line naming the command). */
    static LoggedProcess start(List<String> command, Path log) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new LoggedProcess(process, log);
    }

    private void pump() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             PrintStream out = new PrintStream(Files.newOutputStream(log, StandardOpenOption.APPEND), true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = reader.readLine()) != null) {
                out.println(line);
                synchronized (this) {
                    lines.add(line);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            // the process was destroyed: its output ends here
        } finally {
            synchronized (this) {
                ended = true;
                notifyAll();
            }
        }
    }

    /** The first line that {@code wanted} accepts, waiting {@code limit} at most; empty if the output ended or the time ran out first. */
    synchronized Optional<String> awaitLine(Predicate<String> wanted, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        int checked = 0;
        while (true) {
            for (; checked < lines.size(); checked++) {
                if (wanted.test(lines.get(checked))) {
                    return Optional.of(lines.get(checked));
                }
            }
            long left = deadline - System.nanoTime();
            if (ended || left <= 0) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Waits for the process to end, {@code limit} at most (then destroys it); its output. */
    String awaitOutput(Duration limit) throws InterruptedException {
        if (!process.waitFor(limit.toNanos(), TimeUnit.NANOSECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        pump.join(10_000);
        return output();
    }

    synchronized String output() {
        return String.join("\n", lines);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Optional<Integer> exitValue() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    Process process() {
        return process;
    }

    Path log() {
        return log;
    }

    /** Destroys the process if it still runs, and waits for it. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        pump.join(10_000);
    }
}
