package io.loomgmp.bridge.agent;

import io.loomgmp.dispatcher.GmpScheduler;

import java.io.PrintStream;
import java.security.CodeSource;

/**
 * Whether the loom-gmp classes the agent is about to run are all of the agent's own version. The
 * JVM appends the agent jar to the END of the class path, so when the application's class path
 * also holds loom-gmp's library jars ({@code io.loomgmp:dispatcher}, which {@code io.loomgmp:metrics}
 * brings, or {@code io.loomgmp:jfr-events}), their classes load instead of the agent's copies. Of
 * the same version they are the same classes; of another version the agent's code would run
 * against a scheduler it was not built with, and fail in ways nobody can foresee, perhaps only
 * under load. So the agent looks first: each package's version is the {@code Implementation-Version}
 * of the jar it came from, when that jar's {@code Implementation-Title} says it is loom-gmp's (every
 * loom-gmp jar has both). A package loaded from a directory, as in this project's own tests, or
 * from an application's uber-jar, whose manifest speaks of the application, cannot be told apart:
 * it passes.
 *
 * <p>What the agent then does is what it does on a JDK it cannot use ({@link UnsupportedJdkPolicy}):
 * by default one warning line, and the JVM runs without loom-gmp (a dependency bump must not keep
 * a fleet from starting); with {@code strict=true}, one line and exit status 1.
 */
final class VersionSkew {
    /** A class of {@code io.loomgmp:jfr-events} that is not an event (loading an event class costs more). */
    static final String JFR_EVENTS_CLASS = "io.loomgmp.jfr.Settings";

    private VersionSkew() {
    }

    /**
     * What does not fit, or null when every loom-gmp package the agent runs is of
     * {@code agentVersion} (or of no known version).
     */
    static String problem(String agentVersion) throws ClassNotFoundException {
        // The JFR events' package by name: this module does not read it, the dispatcher does.
        Class<?> jfrEvents = Class.forName(JFR_EVENTS_CLASS, false, GmpScheduler.class.getClassLoader());
        for (Class<?> probe : new Class<?>[] {GmpScheduler.class, jfrEvents}) {
            String version = loomGmpVersion(probe.getPackage());
            if (version != null && !version.equals(agentVersion)) {
                return "the class path holds " + probe.getPackageName() + " " + version + " (from " + origin(probe)
                        + "), which loads before the loom-gmp " + agentVersion + " agent's own classes";
            }
        }
        return null;
    }

    /**
     * Prints the one line: the refusal if {@code strict}, else the warning.
     *
     * @return the status to exit with (1) if {@code strict}; else 0: the agent steps aside
     */
    static int report(String problem, boolean strict, PrintStream err) {
        if (strict) {
            err.println("loom-gmp: version skew: " + problem + ". The JVM does not start, as strict=true asks."
                    + " Keep every io.loomgmp artifact at the agent's version, or set strict=false (the agent then"
                    + " warns and steps aside).");
            return 1;
        }
        err.println("loom-gmp: warning: version skew: " + problem + ". The JVM runs without loom-gmp: virtual"
                + " threads run on the JDK's default scheduler. Keep every io.loomgmp artifact at the agent's version;"
                + " strict=true (-Dgmp.strict=true) makes the agent refuse to start instead.");
        return 0;
    }

    /** The package's version if its jar says it is one of loom-gmp's, else null. */
    static String loomGmpVersion(Package pkg) {
        String title = pkg.getImplementationTitle();
        return title != null && title.startsWith("loom-gmp") ? pkg.getImplementationVersion() : null;
    }

    private static String origin(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        return source != null && source.getLocation() != null ? source.getLocation().getPath() : "an unknown location";
    }
}
