package io.loomgmp.testsupport;

import java.util.List;

/**
 * How a process started by {@link Fork} ended: its exit code and what it printed. A probe prints
 * its findings as {@code key=value} lines, which {@link #value(String)} reads.
 *
 * @param command  the command that ran
 * @param exitCode its exit code
 * @param stdout   its standard output
 * @param stderr   its standard error
 */
public record Forked(List<String> command, int exitCode, String stdout, String stderr) {
    public Forked {
        command = List.copyOf(command);
    }

    /**
     * The value of the first line {@code key=value} of the standard output (without surrounding
     * blanks).
     *
     * @throws AssertionError showing the output, if there is no such line
     */
    public String value(String key) {
        String prefix = key + "=";
        return stdout.lines().filter(line -> line.startsWith(prefix)).map(line -> line.substring(prefix.length()).trim())
                .findFirst().orElseThrow(() -> new AssertionError("no line " + prefix + "... in the output\n" + this));
    }

    /** {@link #value(String)} as a {@code long}. */
    public long longValue(String key) {
        return Long.parseLong(value(key));
    }

    /** The command, the exit code and both outputs: the message of a failed assertion on this run. */
    @Override
    public String toString() {
        return String.join(" ", command) + "\nexit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
}
