package io.loomgmp.bridge;

import java.io.PrintStream;

/**
 * A {@link JdkClassRewriter} for a JDK class that loads only when it is used (by JMX, by jcmd),
 * registered at start-up and run when that class loads, long after {@code premain}: nobody is
 * there to check its outcome, so it says itself, once, on standard error, when the class does not
 * have the expected shape or the rewrite fails, and leaves the class as it is. Only what the
 * patch adds is lost; the JVM goes on.
 */
abstract class LazyJdkClassRewriter extends JdkClassRewriter {
    private final PrintStream warnings;
    private volatile boolean warned;

    LazyJdkClassRewriter(String internalName, PrintStream warnings) {
        super(internalName);
        this.warnings = warnings;
    }

    /** The rewrite; a result with no sites means the shape was not found ({@link #problem} says why). */
    abstract Rewrite rewrite(byte[] classBytes);

    /** What is lost when the class is left alone, for the warning. */
    abstract String lost();

    /** Why the last {@link #rewrite} found no site; set by it. */
    String problem = "its shape differs";

    @Override
    final Rewrite apply(byte[] classBytes) {
        try {
            Rewrite rewrite = rewrite(classBytes);
            if (rewrite.sites() == 0) {
                warnOnce(problem);
            }
            return rewrite;
        } catch (Throwable failure) {
            warnOnce(String.valueOf(failure));
            return new Rewrite(null, 0);
        }
    }

    private void warnOnce(String why) {
        if (!warned) {
            warned = true;
            try {
                warnings.println("loom-gmp: warning: left " + className() + " alone on JDK " + Runtime.version()
                        + " (" + why + "): " + lost());
            } catch (Throwable ignored) {
                // nowhere to say it
            }
        }
    }
}
