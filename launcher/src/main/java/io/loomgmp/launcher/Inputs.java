package io.loomgmp.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a jar that {@code ./loomgmp} runs is built from, and whether that changed since Maven built it.
 *
 * <p>The launcher does not decide what to recompile: Maven does. It only needs to know, cheaply,
 * whether to call Maven at all. So Maven's {@code package} phase (the parent pom's
 * {@code loomgmp-inputs} execution, which runs this file as a source file: no module has to be
 * built first) writes {@value #STAMP} in the module: the SHA-256 of every file the jar is built
 * from. Before it runs the jar, the launcher hashes the same files again and calls Maven when one
 * was changed, added or deleted since. Contents, not modification times: a {@code git checkout}
 * that restores a file, or a copy that keeps old times, is judged by what the file says. The
 * record keeps each file's size and modification time too, as git's index does, only so that a
 * file exactly as recorded is not read again: one whose size or time differs is hashed, and judged
 * by its hash. That keeps the check to a few milliseconds before each {@code ./loomgmp run}.
 *
 * <p>The files: the root pom, {@code .mvn/jvm.config} and {@code .mvn/wrapper/}, then the pom and
 * {@code src/main} of the module and of every project module its pom names (its dependencies, any
 * scope, and theirs): the modules {@code ./mvnw -pl <module> -am} builds. The poms are the one list
 * of which module needs which.
 *
 * <p>Known gap: the record is written in the package phase, before a later plugin of the same
 * phase (the shade of loom-bridge and benchmarks) has made the jar; if that plugin fails, the
 * record says "up to date" for the old jar. The launcher's own builds delete the record first
 * ({@link #forget}), so only a failed manual {@code ./mvnw} can leave that state.
 *
 * <p>Self-contained (the JDK only), because Maven runs it from source.
 */
final class Inputs {
    /** Where a module's record is, relative to the module. */
    static final String STAMP = "target/loomgmp-inputs.txt";

    private static final String HEADER = "# the files this module's jar was built from, with their SHA-256, size and"
            + " time: written by its Maven package phase, compared by ./loomgmp before it runs the jar";

    /** A file as recorded: its SHA-256, and the size and time that let a check skip reading it. */
    record Digest(String sha256, long size, long modified) {
        /** The same contents (the size and the time are only the shortcut to it). */
        boolean sameContents(Digest other) {
            return sha256.equals(other.sha256);
        }
    }

    private static final Pattern ARTIFACT_ID = Pattern.compile("<artifactId>([^<$]+)</artifactId>");

    private Inputs() {
    }

    /**
     * Maven's entry point, {@code java Inputs.java ROOT MODULE_DIR}: writes MODULE_DIR's
     * {@value #STAMP} for the files it is built from now.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java Inputs.java <checkout> <module directory>");
            System.exit(2);
        }
        Path root = Path.of(args[0]).toAbsolutePath().normalize();
        String module = root.relativize(Path.of(args[1]).toAbsolutePath().normalize()).toString();
        write(root, module);
    }

    /** Writes {@code module}'s record of its inputs as they are now (replacing it in one move). */
    static void write(Path root, String module) throws IOException {
        StringBuilder text = new StringBuilder(HEADER).append('\n');
        of(root, module, Map.of()).forEach((file, digest) -> text.append(digest.sha256()).append(' ').append(digest.size())
                .append(' ').append(digest.modified()).append("  ").append(file).append('\n'));
        Path stamp = root.resolve(module).resolve(STAMP);
        Files.createDirectories(stamp.getParent());
        Path partial = stamp.resolveSibling(stamp.getFileName() + ".partial");
        Files.writeString(partial, text);
        Files.move(partial, stamp, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Deletes {@code module}'s record: a build that fails before writing a new one leaves it stale. */
    static void forget(Path root, String module) throws IOException {
        Files.deleteIfExists(root.resolve(module).resolve(STAMP));
    }

    /**
     * Why {@code jar}, built by {@code module}, must be built again, or empty when every file it is
     * built from is as Maven last packaged it. Paths in the reason are relative to {@code root}.
     */
    static Optional<String> staleReason(Path root, String module, Path jar) throws IOException {
        String jarName = relative(root, jar);
        if (!Files.isRegularFile(jar)) {
            return Optional.of(jarName + " does not exist");
        }
        Path stamp = root.resolve(module).resolve(STAMP);
        SortedMap<String, Digest> then = new TreeMap<>();
        try {
            for (String line : Files.readAllLines(stamp)) {
                int gap = line.indexOf("  ");
                String[] fields = gap > 0 ? line.substring(0, gap).split(" ") : new String[0];
                if (!line.startsWith("#") && fields.length == 3) {
                    then.put(line.substring(gap + 2),
                            new Digest(fields[0], Long.parseLong(fields[1]), Long.parseLong(fields[2])));
                }
            }
        } catch (NoSuchFileException e) {
            return Optional.of(jarName + " has no record of the files it was built from (" + relative(root, stamp) + ")");
        }
        SortedMap<String, Digest> now = of(root, module, then);
        Set<String> files = new TreeSet<>(then.keySet());
        files.addAll(now.keySet());
        for (String file : files) {
            Digest was = then.get(file);
            Digest is = now.get(file);
            if (was == null) {
                return Optional.of(file + " is new since " + jarName + " was built");
            } else if (is == null) {
                return Optional.of(file + " was deleted since " + jarName + " was built");
            } else if (!was.sameContents(is)) {
                return Optional.of(file + " changed since " + jarName + " was built");
            }
        }
        return Optional.empty();
    }

    /**
     * Every file {@code module}'s jar is built from, relative to {@code root}, with its digest; a
     * file whose size and time are those {@code known} has is taken as known, without reading it.
     */
    static SortedMap<String, Digest> of(Path root, String module, Map<String, Digest> known) throws IOException {
        List<Path> tops = new ArrayList<>(List.of(root.resolve("pom.xml"), root.resolve(".mvn/jvm.config"),
                root.resolve(".mvn/wrapper")));
        for (String each : modules(root, module)) {
            tops.add(root.resolve(each).resolve("pom.xml"));
            tops.add(root.resolve(each).resolve("src/main"));
        }
        SortedMap<String, Digest> digests = new TreeMap<>();
        for (Path top : tops) {
            if (!Files.exists(top)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(top)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    String name = relative(root, file);
                    long size = Files.size(file);
                    long modified = Files.getLastModifiedTime(file).toMillis();
                    Digest recorded = known.get(name);
                    digests.put(name, recorded != null && recorded.size() == size && recorded.modified() == modified
                            ? recorded
                            : new Digest(sha256(file), size, modified));
                }
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        return digests;
    }

    /** {@code module} and the project modules it needs, as {@code -am} adds them: from the poms. */
    static Set<String> modules(Path root, String module) throws IOException {
        Map<String, String> dirByArtifact = new TreeMap<>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).toList()) {
                List<String> ids = artifactIds(dir.resolve("pom.xml"));
                if (!ids.isEmpty()) {
                    dirByArtifact.put(ids.getFirst(), dir.getFileName().toString());
                }
            }
        }
        Set<String> found = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>(List.of(module));
        while (!todo.isEmpty()) {
            String next = todo.pop();
            if (found.add(next) && Files.isRegularFile(root.resolve(next).resolve("pom.xml"))) {
                for (String id : artifactIds(root.resolve(next).resolve("pom.xml"))) {
                    String dir = dirByArtifact.get(id);
                    if (dir != null && !found.contains(dir)) {
                        todo.add(dir);
                    }
                }
            }
        }
        return found;
    }

    /**
     * The artifactIds a pom names after its parent: its own first, then its dependencies' (and
     * its plugins', which name no project module).
     */
    private static List<String> artifactIds(Path pom) throws IOException {
        String text = Files.readString(pom, StandardCharsets.UTF_8).replaceAll("(?s)<!--.*?-->", "");
        int parent = text.indexOf("</parent>");
        Matcher m = ARTIFACT_ID.matcher(text);
        List<String> ids = new ArrayList<>();
        while (m.find(parent < 0 ? 0 : parent)) {
            ids.add(m.group(1).strip());
            parent = m.end();
        }
        return ids;
    }

    private static String relative(Path root, Path file) {
        return root.relativize(file.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }

    /**
     * A file's SHA-256. The digest is made only for a file that is read: loading the security
     * providers costs a check that reads no file about 15 ms.
     */
    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JDK has SHA-256", e);
        }
    }
}
