package io.loomgmp.launcher;

/**
 * A command ends here with {@link #status}: {@link Main} prints {@code loomgmp: <message>} (when
 * there is one) to standard error and exits with it. For failures that are not usage errors (a
 * missing tool: 2, a failed build or install: 1) and for a child's status.
 */
final class Stop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int status;

    Stop(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    /** Ends with {@code status} and nothing more to say (the child said it). */
    static Stop with(int status) {
        return new Stop(status, null);
    }
}
