package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.classfile.ClassPatch;
import io.loomgmp.bridge.classfile.UnsupportedShape;

import java.io.PrintStream;

/**
 * A {@link JdkClassRewriter} of one static method of a JDK class that loads only when it is used
 * (by JMX, by jcmd), registered at start-up and run when that class loads, long after
 * {@code premain}: nobody is there to check its outcome, so it says itself, once, on standard
 * error, when the class does not have the expected shape or the rewrite fails, and leaves the
 * class as it is. Only what the patch adds is lost; the JVM goes on.
 */
abstract class LazyJdkClassRewriter extends JdkClassRewriter {
    private final String method;
    private final String descriptor;
    private final PrintStream warnings;
    private volatile boolean warned;

    /** Rewrites the static {@code method} with {@code descriptor} of {@code internalName}. */
    LazyJdkClassRewriter(String internalName, String method, String descriptor, PrintStream warnings) {
        super(internalName);
        this.method = method;
        this.descriptor = descriptor;
        this.warnings = warnings;
    }

    /**
     * The rewrite of {@code target} in {@code patch}.
     *
     * @throws UnsupportedShape saying why, if the method has another shape
     */
    abstract Rewrite rewrite(ClassPatch patch, ClassPatch.Method target);

    /** What is lost when the class is left alone, for the warning. */
    abstract String lost();

    @Override
    final Rewrite apply(byte[] classBytes) {
        try {
            ClassPatch patch = ClassPatch.of(classBytes);
            ClassPatch.Method target = patch.method(method, descriptor, true);
            if (target == null) {
                throw new UnsupportedShape("no static " + method + descriptor);
            }
            return rewrite(patch, target);
        } catch (Throwable failure) { // Unsupported, or bytes the patch cannot read
            warnOnce(failure instanceof UnsupportedShape ? failure.getMessage() : String.valueOf(failure));
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
