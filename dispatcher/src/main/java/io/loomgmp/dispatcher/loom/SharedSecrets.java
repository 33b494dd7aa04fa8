package io.loomgmp.dispatcher.loom;

/**
 * Where {@code GmpScheduler}'s static initialiser leaves the dispatcher's {@link DispatcherAccess}
 * for {@link LoomSupport} (the JDK's shared-secrets pattern). A class of its own, so that
 * installing the access does not initialise {@link LoomSupport}, whose initialiser reads it. For
 * the dispatcher only; {@code module-info} exports this package to {@code io.loomgmp.bridge}
 * alone.
 */
public final class SharedSecrets {
    private static final String IMPLEMENTATION = "io.loomgmp.dispatcher.DispatcherAccessImpl";
    private static DispatcherAccess dispatcherAccess; // written and read under the class lock

    private SharedSecrets() {
    }

    /**
     * Called once, by {@code GmpScheduler}'s static initialiser, with the dispatcher's own
     * implementation.
     *
     * @throws IllegalStateException if called again, or with any other implementation
     */
    public static synchronized void setDispatcherAccess(DispatcherAccess access) {
        Class<?> expected;
        try {
            expected = Class.forName(IMPLEMENTATION, false, SharedSecrets.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(IMPLEMENTATION + " not found", e);
        }
        if (access == null || access.getClass() != expected) {
            throw new IllegalStateException("only the dispatcher installs its access");
        }
        if (dispatcherAccess != null) {
            throw new IllegalStateException("dispatcher access already installed");
        }
        dispatcherAccess = access;
    }

    /** The installed access, or null before {@code GmpScheduler} has been initialised. */
    static synchronized DispatcherAccess dispatcherAccess() {
        return dispatcherAccess;
    }
}
