package io.loomgmp.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Debian packages the tests and the saturation benchmark need ({@code --install-packages}):
 * installed with apt-get, as root, and only when asked.
 */
final class Packages {
    private Packages() {
    }

    /** Why apt-get cannot install packages here, or null when it can (root, apt-get). */
    static String whyNoAptInstall() {
        String uid = Processes.output(List.of("id", "-u"));
        uid = uid == null ? "?" : uid.strip();
        if (!uid.equals("0")) {
            return "you are not root (uid " + uid + "), and apt-get installs as root only";
        }
        if (Processes.onPath("apt-get") == null) {
            return "there is no apt-get here (not Debian or Ubuntu)";
        }
        return null;
    }

    /**
     * {@code apt-get update}, then {@code apt-get install} of {@code packages}, quietly; on failure
     * apt-get's log is printed and false returned.
     */
    static boolean aptInstall(List<String> packages) {
        Path log;
        try {
            log = Files.createTempFile("loomgmp-apt", ".log");
        } catch (IOException e) {
            throw new Stop(1, "cannot create a temporary file: " + e.getMessage());
        }
        try {
            List<String> install = new ArrayList<>(List.of("apt-get", "install", "-y", "-qq", "--no-install-recommends"));
            install.addAll(packages);
            for (List<String> command : List.of(List.of("apt-get", "update", "-qq"), install)) {
                ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
                builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
                if (builder.start().waitFor() != 0) {
                    System.err.print(Files.readString(log));
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            throw new Stop(1, "cannot run apt-get: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Stop(1, "interrupted while apt-get ran");
        } finally {
            try {
                Files.deleteIfExists(log);
            } catch (IOException ignored) {
                // a temporary file left behind
            }
        }
    }
}
