package io.loomgmp.benchmarks.saturation;

import benchapp.CalibratedBurn;

import java.io.IOException;
import java.util.List;

/**
 * The server JVM of one saturation cell: {@code SaturationServer vthread|jetty [--steps-per-us X]},
 * started by the runner with {@code -javaagent:<agent jar>} for GMP and without it for the JDK's
 * ForkJoinPool.
 *
 * <p>It calibrates the CPU loop on its main thread, a platform thread, before any load (or takes
 * the runner's calibration, {@code --steps-per-us}, so that every cell of a run does the same work
 * per request), probes which scheduler its virtual threads run on, starts the server and the stats
 * port on 127.0.0.1, ephemeral ports, and prints one line on standard output:
 * {@code LISTENING port=P stats_port=S scheduler=gmp|fjp|other steps_per_us=X}. It serves until its
 * standard input ends (the runner closes it), then exits.
 */
public final class SaturationServer {
    static final String READY = "LISTENING";

    private SaturationServer() {
    }

    public static void main(String[] args) throws Exception {
        String kind = args.length > 0 ? args[0] : "";
        Double stepsPerMicro = null;
        if (args.length == 3 && args[1].equals("--steps-per-us")) {
            try {
                stepsPerMicro = Double.parseDouble(args[2]);
            } catch (NumberFormatException e) {
                stepsPerMicro = Double.NaN;
            }
        }
        if (!List.of("vthread", "jetty").contains(kind) || (args.length != 1 && stepsPerMicro == null)
                || (stepsPerMicro != null && !(stepsPerMicro > 0))) {
            System.err.println("usage: SaturationServer vthread|jetty [--steps-per-us X]");
            System.exit(2);
            return;
        }
        CalibratedBurn burn = stepsPerMicro != null ? CalibratedBurn.of(stepsPerMicro) : CalibratedBurn.calibrate();
        ServerStats stats = new ServerStats(ServerStats.probeScheduler(), burn.stepsPerMicro());
        Endpoints endpoints = new Endpoints(burn, stats);
        StatsPort statsPort = StatsPort.start(stats);
        int port = kind.equals("vthread") ? PlainServer.start(0, endpoints).port() : JettyServer.start(0, endpoints).port();
        System.out.println(READY + " port=" + port + " stats_port=" + statsPort.port() + " scheduler="
                + stats.snapshot().scheduler() + " steps_per_us=" + burn.stepsPerMicro());
        System.out.flush();
        serveUntilInputEnds();
    }

    private static void serveUntilInputEnds() throws IOException {
        while (System.in.read() >= 0) {
            // serve until the runner closes standard input
        }
        System.exit(0);
    }
}
