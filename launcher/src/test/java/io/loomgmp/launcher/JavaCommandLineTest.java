package io.loomgmp.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a java command line loads its classes from, read as the java launcher reads it. */
class JavaCommandLineTest {
    @TempDir
    Path dir;

    private JavaCommandLine parse(String jdkJavaOptions, String classpathVariable, String... args) throws Exception {
        return JavaCommandLine.parse(List.of(args), jdkJavaOptions, classpathVariable, dir);
    }

    @Test
    void theJarOfDashJarIsTheClassPathAndItsArgumentsAreNotJavas() throws Exception {
        JavaCommandLine java = parse(null, null, "-cp", "ignored.jar", "-Xmx1g", "-jar", "app.jar", "-cp", "not.jar");
        assertEquals(List.of("app.jar"), java.classPath());
    }

    @Test
    void everySpellingOfTheClassPathAndTheLastOneWins() throws Exception {
        assertEquals(List.of("a.jar", "b"), parse(null, null, "-cp", "a.jar:b", "Main").classPath());
        assertEquals(List.of("a.jar"), parse(null, null, "-classpath", "a.jar", "Main").classPath());
        assertEquals(List.of("c.jar"), parse(null, null, "--class-path=a.jar", "--class-path", "c.jar", "Main").classPath());
        assertEquals(List.of("."), parse(null, null, "-cp", ":", "Main").classPath().subList(0, 1));
    }

    @Test
    void theClassPathVariableCountsOnlyWhenNoClassPathIsGiven() throws Exception {
        assertEquals(List.of("env.jar"), parse(null, "env.jar", "Main").classPath());
        assertEquals(List.of("given.jar"), parse(null, "env.jar", "-cp", "given.jar", "Main").classPath());
    }

    @Test
    void theMainClassEndsJavasOptions() throws Exception {
        JavaCommandLine java = parse(null, null, "-cp", "a.jar", "Main", "-cp", "b.jar", "--add-modules", "x");
        assertEquals(List.of("a.jar"), java.classPath());
        assertEquals(List.of(), java.moduleOptions());
    }

    @Test
    void theModulePathAndTheOptionsThatShapeTheModuleGraph() throws Exception {
        JavaCommandLine java = parse(null, null, "-p", "mods:more", "--upgrade-module-path=up", "--add-modules", "a,b",
                "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--limit-modules=java.base", "-m", "app/app.Main");
        assertEquals(List.of("mods", "more", "up"), java.modulePath());
        assertEquals(List.of("--add-modules a,b", "--limit-modules java.base"), java.moduleOptions());
    }

    @Test
    void argumentFilesAreReadWithJavasQuotingCommentsAndEscapes() throws Exception {
        Files.writeString(dir.resolve("args"), """
                # a comment line
                -cp 'with space.jar':"b.jar"   # a comment after
                --add-modules "a\\
                   ,b"
                """);
        JavaCommandLine java = parse(null, null, "@args", "Main");
        assertEquals(List.of("with space.jar", "b.jar"), java.classPath());
        assertEquals(List.of("--add-modules a,b"), java.moduleOptions());
    }

    @Test
    void jdkJavaOptionsComeFirstAndMayNameAnArgumentFileToo() throws Exception {
        Files.writeString(dir.resolve("opts"), "--add-modules jdk.httpserver");
        JavaCommandLine java = parse("-cp env.jar @opts", null, "Main");
        assertEquals(List.of("env.jar"), java.classPath());
        assertEquals(List.of("--add-modules jdk.httpserver"), java.moduleOptions());
        assertEquals(List.of("given.jar"), parse("-cp env.jar", null, "-cp", "given.jar", "Main").classPath());
    }

    @Test
    void aDoubleAtIsAnArgumentAndDisablingArgumentFilesStopsTheExpansion() throws Exception {
        assertEquals(List.of("@lib.jar"), parse(null, null, "-cp", "@@lib.jar", "Main").classPath());
        assertEquals(List.of("@notafile"), parse(null, null, "--disable-@files", "-cp", "@notafile", "Main").classPath());
    }

    @Test
    void anArgumentFileThatCannotBeReadIsAnErrorNamingIt() {
        JavaCommandLine.ArgFileException e = assertThrows(JavaCommandLine.ArgFileException.class,
                () -> parse(null, null, "@missing", "Main"));
        assertTrue(e.getMessage().startsWith("cannot read the java argument file missing: "), e.getMessage());
    }

    @Test
    void splitKeepsQuotedWhiteSpaceAndEscapesOnlyInQuotes() {
        assertEquals(List.of("a b", "c\\d", "e\tf", "g#h"), JavaCommandLine.split("'a b' c\\d \"e\\tf\" g#h # comment"));
        assertEquals(List.of(), JavaCommandLine.split("  # only a comment\n"));
    }
}
