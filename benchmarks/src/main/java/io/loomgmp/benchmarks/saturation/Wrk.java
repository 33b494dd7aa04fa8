package io.loomgmp.benchmarks.saturation;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The closed-loop load generator: Debian's wrk 4.1.0, a C program in a process of its own, one
 * process per request class (a mixed shape runs several at once, started and stopped together).
 *
 * <p>{@code -t}{@value #THREADS}: one thread, because the machine has 2 cores and wrk shares them
 * with the server; one event loop drives hundreds of connections. {@code --timeout}
 * {@value #TIMEOUT_SECONDS} s: wrk keeps waiting for an answer however long it takes (it never
 * abandons a request), and counts as a timeout an answer that came later than this and leaves it
 * out of its latencies; with a timeout this long, a starving class shows as high latency and few
 * answers, not as a count of timeouts whose latency nobody sees. The script
 * ({@code report.lua}) prints the {@link LoadResult} line.
 */
final class Wrk {
    static final int THREADS = 1;
    static final int TIMEOUT_SECONDS = 30;
    private static final String SCRIPT = "report.lua";

    private Wrk() {
    }

    /** Writes the script into {@code dir} (wrk reads it from a file); its path. */
    static Path writeScript(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path script = dir.resolve(SCRIPT);
        try (InputStream in = Wrk.class.getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IOException(SCRIPT + " is missing beside " + Wrk.class.getName() + " in the jar");
            }
            Files.write(script, in.readAllBytes());
        }
        return script;
    }

    /** wrk on 127.0.0.1:{@code port}{@code target} for {@code seconds} over {@code connections} connections. */
    static List<String> command(String wrk, Path script, int connections, int seconds, int port, String target) {
        return List.of(wrk, "-t" + THREADS, "-c" + connections, "-d" + seconds + "s", "--timeout", TIMEOUT_SECONDS + "s",
                "-s", script.toAbsolutePath().toString(),
                "http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + port + target);
    }

    /** "wrk 4.1.0 [epoll] ...", the first line of {@code wrk -v}. */
    static String version(String wrk) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(wrk, "-v").redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        // wrk -v prints its version, then its usage, and exits with 1: the first line is all there is to read.
        return output.lines().findFirst().orElse("").replace("Copyright (C) 2012 Will Glozer", "").strip();
    }
}
