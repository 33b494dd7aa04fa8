package io.loomgmp.bridge.agent;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;

/**
 * A transformer that rewrites one class of the JDK (boot loader) and keeps the outcome of its
 * last run for the agent to check: the JVM swallows a transformer's exceptions. Once it has
 * rewritten its class it must stay registered for the life of the JVM: a later retransformation of
 * the class (a profiler, another agent) starts from the JDK's original bytes and would silently
 * undo the rewrite.
 */
abstract class JdkClassRewriter implements ClassFileTransformer {
    /** The rewritten bytes and the number of sites changed in them. */
    record Rewrite(byte[] bytes, int sites) {
    }

    private final String internalName;
    private volatile int lastRewrites = -1;
    private volatile Throwable lastFailure;

    JdkClassRewriter(String internalName) {
        this.internalName = internalName;
    }

    /** The class this rewrites, with dots ({@code java.lang.VirtualThread}). */
    String className() {
        return internalName.replace('/', '.');
    }

    /** Rewrites the class's bytes; a result with no sites leaves the class as it is. */
    abstract Rewrite apply(byte[] classBytes);

    @Override
    public final byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                                  ProtectionDomain domain, byte[] classBytes) {
        if (loader != null || !internalName.equals(className)) {
            return null;
        }
        try {
            Rewrite rewrite = apply(classBytes);
            lastRewrites = rewrite.sites();
            return rewrite.sites() == 0 ? null : rewrite.bytes();
        } catch (Throwable e) {
            lastFailure = e;
            return null;
        }
    }

    /** Sites changed by the last run, or -1 if it has not run. */
    int lastRewrites() {
        return lastRewrites;
    }

    /** What the last run threw, or null. */
    Throwable lastFailure() {
        return lastFailure;
    }
}
