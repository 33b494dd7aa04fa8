package io.loomgmp.benchmarks.saturation;

import benchapp.CalibratedBurn;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * What both saturation servers answer, whatever parses their HTTP: the request classes of the
 * benchmark's shapes. Each answer's body carries the work's result, so the JIT cannot drop it.
 *
 * <ul>
 *   <li>{@code /cpu?us=N}: about N µs of CPU in {@link CalibratedBurn}'s loop, on the handler's thread;
 *   <li>{@code /handoff?us=N}: the same work done by one of {@link HandoffPool}'s workers, waited for;
 *   <li>{@code /sleep}: a child virtual thread that sleeps {@value #SLEEP_MILLIS} ms, joined
 *       (golang/go#51071's shape: a timer and a wake-up per request);
 *   <li>{@code /hog?ms=A..B}: a uniformly random A to B ms of CPU ({@code ms=N}: N ms);
 *   <li>{@code /stats}: {@link ServerStats.Snapshot#line()}. The runner reads it on the stats port
 *       instead ({@link StatsPort}), which no virtual thread serves.
 * </ul>
 */
final class Endpoints {
    static final int SLEEP_MILLIS = 1;
    /** No request class asks for more; a typo in a URL should not hold a core for minutes. */
    static final long MAX_MICROS = 10_000_000;

    private final CalibratedBurn burn;
    private final HandoffPool handoff;
    private final ServerStats stats;

    /** An HTTP status and its body, text/plain. */
    record Answer(int status, byte[] body) {
        static Answer ok(String text) {
            return new Answer(200, text.getBytes(StandardCharsets.US_ASCII));
        }

        static Answer error(int status, String why) {
            return new Answer(status, (why + "\n").getBytes(StandardCharsets.US_ASCII));
        }
    }

    Endpoints(CalibratedBurn burn, ServerStats stats) {
        this.burn = burn;
        this.stats = stats;
        this.handoff = HandoffPool.start(burn);
    }

    /** Answers {@code path} with its {@code query} (null when none), on the calling request thread. */
    Answer answer(String path, String query) {
        if (path.equals("/stats")) {
            return Answer.ok(stats.snapshot().line() + "\n");
        }
        stats.begin();
        try {
            return route(path, query);
        } catch (IllegalArgumentException e) {
            return Answer.error(400, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.error(503, "interrupted");
        } finally {
            stats.end();
        }
    }

    private Answer route(String path, String query) throws InterruptedException {
        long seed = System.nanoTime() ^ Thread.currentThread().threadId();
        return switch (path) {
            case "/cpu" -> Answer.ok(Long.toHexString(burn.burnMicros(micros(query, "us"), seed, work(path, query))) + "\n");
            case "/handoff" -> Answer.ok(Long.toHexString(handoff.submit(micros(query, "us"), seed, work(path, query))) + "\n");
            case "/sleep" -> {
                Thread child = Thread.ofVirtual().start(() -> {
                    try {
                        Thread.sleep(Duration.ofMillis(SLEEP_MILLIS));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                child.join();
                yield Answer.ok("slept\n");
            }
            case "/hog" -> {
                long[] range = millisRange(param(query, "ms"));
                long millis = ThreadLocalRandom.current().nextLong(range[0], range[1] + 1);
                yield Answer.ok(millis + " ms " + Long.toHexString(burn.burnMicros(millis * 1_000, seed, work(path, query))) + "\n");
            }
            default -> Answer.error(404, "no endpoint " + path);
        };
    }

    /** The count of work done for the request class {@code path?query}, as the load generators name it. */
    private LongAdder work(String path, String query) {
        return stats.workOf(query == null ? path : path + "?" + query);
    }

    /** The value of {@code name} in a query such as {@code us=1000&x=y}. */
    static String param(String query, String name) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith(name + "=")) {
                    return pair.substring(name.length() + 1);
                }
            }
        }
        throw new IllegalArgumentException("missing ?" + name + "=");
    }

    static long micros(String query, String name) {
        String value = param(query, name);
        long micros;
        try {
            micros = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + value + " is not a number");
        }
        if (micros < 0 || micros > MAX_MICROS) {
            throw new IllegalArgumentException(name + "=" + value + " is not within 0.." + MAX_MICROS);
        }
        return micros;
    }

    /** {@code "100..200"} to {100, 200}, {@code "150"} to {150, 150}. */
    static long[] millisRange(String value) {
        int dots = value.indexOf("..");
        try {
            long low = Long.parseLong(dots < 0 ? value : value.substring(0, dots));
            long high = dots < 0 ? low : Long.parseLong(value.substring(dots + 2));
            if (low < 0 || high < low || high * 1_000 > MAX_MICROS) {
                throw new IllegalArgumentException("ms=" + value + " is not a range within 0.." + MAX_MICROS / 1_000);
            }
            return new long[] {low, high};
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("ms=" + value + " is not N or A..B");
        }
    }
}
