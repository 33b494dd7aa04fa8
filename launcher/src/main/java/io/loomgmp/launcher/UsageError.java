package io.loomgmp.launcher;

/**
 * Bad input to a command: {@link Main} prints {@code loomgmp: <message>}, the command's synopsis
 * and where its help is, and exits with status 2. Thrown before anything is built or run.
 */
final class UsageError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final String command;

    UsageError(String message, String command) {
        super(message, null, false, false);
        this.command = command;
    }
}
