package io.loomgmp.launcher;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Builds what a command runs when it is missing or its sources changed since Maven built it, so
 * that a {@code git pull} or an edit never runs an old agent. Whether to build is {@link Inputs}'
 * question (what Maven recorded when it packaged the jar); what to build again is Maven's:
 * {@code ./mvnw package -pl <modules> -am}, tests skipped, one progress line per module, the whole
 * log only when the build fails.
 */
final class Build {
    /** The lines of Maven's log that the launcher shows while it builds. */
    private static final Pattern PROGRESS = Pattern.compile("^\\[INFO\\] Building .*\\[[0-9]+/[0-9]+\\]|BUILD (SUCCESS|FAILURE)");

    private final Checkout checkout;

    Build(Checkout checkout) {
        this.checkout = checkout;
    }

    /** Builds the modules of {@code jars} when one of them is missing or stale, saying why first. */
    void ensureBuilt(Checkout.Jar... jars) {
        for (Checkout.Jar jar : jars) {
            Optional<String> reason = staleReason(jar);
            if (reason.isPresent()) {
                Main.say(reason.get());
                Set<String> modules = new LinkedHashSet<>();
                for (Checkout.Jar each : jars) {
                    modules.add(each.module);
                }
                build(List.copyOf(modules));
                return;
            }
        }
    }

    Optional<String> staleReason(Checkout.Jar jar) {
        try {
            return Inputs.staleReason(checkout.root(), jar.module, checkout.jar(jar));
        } catch (IOException e) {
            return Optional.of("cannot read what " + jar.path + " is built from (" + e.getMessage() + ")");
        }
    }

    /** {@code ./mvnw package} of {@code modules} and what they need; stops with status 1 if it fails. */
    void build(List<String> modules) {
        String list = String.join(",", modules);
        Main.say("building " + list + " with ./mvnw (tests skipped; ./loomgmp test runs them)");
        try {
            for (String module : modules) {
                Inputs.forget(checkout.root(), module); // a build that fails leaves them stale
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = List.of("./mvnw", "-B", "-ntp", "-DskipTests", "-Djcstress.skip=true",
                "-Dmaven.javadoc.skip=true", "-Dmaven.source.skip=true", "-pl", list, "-am", "package");
        List<String> log = new ArrayList<>();
        int status;
        try {
            Process maven = new ProcessBuilder(command).directory(checkout.root().toFile()).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.INHERIT).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(maven.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    log.add(line);
                    if (PROGRESS.matcher(line).find()) {
                        System.err.println("loomgmp:   " + line.replaceFirst("^\\[INFO\\] ", ""));
                    }
                }
            }
            status = maven.waitFor();
        } catch (IOException e) {
            throw new Stop(1, "cannot run ./mvnw in " + checkout.root() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Stop(1, "interrupted while building");
        }
        if (status != 0 || !log.contains("[INFO] BUILD SUCCESS")) {
            log.forEach(System.err::println);
            throw new Stop(1, "the build failed (log above)");
        }
    }
}
