package io.loomgmp.trace;

/** A failure the user can act on; its message is the one line {@link Main} prints. */
final class TraceException extends Exception {
    private static final long serialVersionUID = 1L;

    TraceException(String message) {
        super(message);
    }

    TraceException(String message, Throwable cause) {
        super(message, cause);
    }
}
