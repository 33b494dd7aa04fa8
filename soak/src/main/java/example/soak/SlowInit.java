package example.soak;

/**
 * A class whose initialiser blocks until its {@link InitGate} lets it finish: the virtual thread
 * that runs the initialiser, and every one that waits for it, is pinned to its carrier (class
 * initialisation cannot unmount) and blocked, so sysmon must hand their Ps to other carriers.
 * The application class loader never initialises it: each gate defines a copy of its own.
 */
final class SlowInit {
    static final int VALUE;

    static {
        // A gate is a loader of its own, so this is another run-time package: hold() is public.
        ((InitGate) SlowInit.class.getClassLoader()).hold();
        VALUE = 42;
    }

    private SlowInit() {
    }
}
