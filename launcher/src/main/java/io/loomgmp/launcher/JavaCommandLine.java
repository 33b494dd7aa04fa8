package io.loomgmp.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a {@code java} command line loads its classes from, read as the {@code java} launcher reads
 * it: {@code JDK_JAVA_OPTIONS} first, then the arguments, with each {@code @argfile} in either expanded (until
 * {@code --disable-@files}), the options that take a value in the next argument or after
 * {@code =}, {@code -jar} (whose jar is the class path, {@code -cp} ignored), the
 * {@code CLASSPATH} variable when no class path is given, and the first argument that is not an
 * option (the main class, a source file, or {@code -m}): the application's arguments follow it.
 *
 * <p>An AOT cache holds the classes of the class path and the module path as they were when it was
 * trained, so {@link AotCache} fingerprints those entries; the options that shape the module graph
 * are part of the fingerprint too.
 *
 * @param classPath the class path entries, as given (relative paths stay relative)
 * @param modulePath the module path entries ({@code --module-path}, {@code -p},
 *        {@code --upgrade-module-path}), as given
 * @param moduleOptions the options that shape the module graph ({@code --add-modules X}, ...), in order
 */
record JavaCommandLine(List<String> classPath, List<String> modulePath, List<String> moduleOptions) {
    /** Options whose value is the next argument (or follows {@code =}): that value is not the main class. */
    private static final Set<String> WITH_VALUE = Set.of("-cp", "-classpath", "--class-path", "-p", "--module-path",
            "--upgrade-module-path", "--add-modules", "--limit-modules", "--add-reads", "--add-exports", "--add-opens",
            "--patch-module", "--enable-native-access", "--source", "-d", "--describe-module");
    /** The options, of those, that decide which modules the JVM resolves: a cache fits one module graph. */
    private static final Set<String> MODULE_GRAPH = Set.of("--add-modules", "--limit-modules", "--patch-module");

    /** A {@code @argfile} that cannot be read: {@code java} would stop too. */
    static final class ArgFileException extends Exception {
        private static final long serialVersionUID = 1L;

        ArgFileException(String message) {
            super(message);
        }
    }

    /**
     * Reads {@code args} as {@code java} would, after the options in {@code jdkJavaOptions} (the
     * variable, or null) and with {@code classpathVariable} (CLASSPATH, or null) as the default
     * class path; {@code @argfile}s are read relative to {@code dir}.
     */
    static JavaCommandLine parse(List<String> args, String jdkJavaOptions, String classpathVariable, Path dir)
            throws ArgFileException {
        List<String> given = new ArrayList<>();
        if (jdkJavaOptions != null) {
            given.addAll(split(jdkJavaOptions)); // java expands an @argfile named there too
        }
        given.addAll(args);
        List<String> all = new ArrayList<>();
        boolean expand = true;
        for (String arg : given) {
            if (expand && arg.startsWith("@") && !arg.startsWith("@@")) {
                Path file = dir.resolve(arg.substring(1));
                try {
                    all.addAll(split(Files.readString(file)));
                } catch (IOException e) {
                    throw new ArgFileException("cannot read the java argument file " + arg.substring(1) + ": " + e.getMessage());
                }
            } else {
                all.add(expand && arg.startsWith("@@") ? arg.substring(1) : arg);
            }
            if (arg.equals("--disable-@files")) {
                expand = false;
            }
        }
        String classPath = classpathVariable;
        List<String> modulePath = new ArrayList<>();
        List<String> moduleOptions = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            String arg = all.get(i);
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0 && WITH_VALUE.contains(arg.substring(0, eq))) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else if (WITH_VALUE.contains(arg)) {
                value = i + 1 < all.size() ? all.get(++i) : "";
            } else if (arg.equals("-jar")) {
                classPath = i + 1 < all.size() ? all.get(i + 1) : "";
                break; // -jar ignores -cp; the jar's arguments follow
            } else if (arg.equals("-m") || arg.equals("--module") || arg.startsWith("--module=") || !arg.startsWith("-")) {
                break; // the main module, class or source file: the application's arguments follow
            }
            if (value == null) {
                continue;
            }
            switch (name) {
                case "-cp", "-classpath", "--class-path" -> classPath = value;
                case "-p", "--module-path", "--upgrade-module-path" -> modulePath.addAll(entries(value));
                default -> {
                    if (MODULE_GRAPH.contains(name)) {
                        moduleOptions.add(name + " " + value);
                    }
                }
            }
        }
        return new JavaCommandLine(classPath == null ? List.of() : entries(classPath), List.copyOf(modulePath),
                List.copyOf(moduleOptions));
    }

    /** A path list's entries; an empty entry is the current directory, as java takes it. */
    private static List<String> entries(String pathList) {
        if (pathList.isEmpty()) {
            return List.of();
        }
        List<String> entries = new ArrayList<>();
        for (String entry : pathList.split(java.io.File.pathSeparator, -1)) {
            entries.add(entry.isEmpty() ? "." : entry);
        }
        return entries;
    }

    /**
     * The arguments of an {@code @argfile} (or of {@code JDK_JAVA_OPTIONS}), as {@code java} splits
     * them: on white space; single or double quotes keep white space in an argument; in quotes a
     * backslash escapes the next character ({@code \n}, {@code \t}, {@code \r}, {@code \f} as
     * such); {@code #} outside quotes starts a comment to the end of the line; a backslash at the end
     * of a line inside quotes continues the argument on the next line, without its leading white space.
     */
    static List<String> split(String text) {
        List<String> args = new ArrayList<>();
        StringBuilder arg = new StringBuilder();
        boolean inArg = false;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && i + 1 < text.length()) {
                    char next = text.charAt(++i);
                    if (next == '\n' || next == '\r') {
                        if (next == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                            i++;
                        }
                        while (i + 1 < text.length() && (text.charAt(i + 1) == ' ' || text.charAt(i + 1) == '\t')) {
                            i++;
                        }
                    } else {
                        arg.append(switch (next) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            case 'f' -> '\f';
                            default -> next;
                        });
                    }
                } else {
                    arg.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                inArg = true;
            } else if (Character.isWhitespace(c)) {
                if (inArg) {
                    args.add(arg.toString());
                    arg.setLength(0);
                    inArg = false;
                }
            } else if (c == '#' && !inArg) {
                while (i + 1 < text.length() && text.charAt(i + 1) != '\n') {
                    i++;
                }
            } else {
                arg.append(c);
                inArg = true;
            }
        }
        if (inArg) {
            args.add(arg.toString());
        }
        return args;
    }
}
