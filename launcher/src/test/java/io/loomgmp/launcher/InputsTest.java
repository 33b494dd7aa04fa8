package io.loomgmp.launcher;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The launcher's up-to-date check on a small checkout of three modules: app needs lib (its pom
 * names lib's artifactId), other is unrelated. A jar is stale when a file it is built from has
 * other contents than Maven recorded, whatever the files' times say.
 */
class InputsTest {
    @TempDir
    Path root;
    private Path jar;

    @BeforeEach
    void checkout() throws IOException {
        write("pom.xml", "<project><artifactId>parent</artifactId><modules>app lib other</modules></project>");
        write(".mvn/jvm.config", "-Xss4m");
        write("app/pom.xml", "<project><parent><artifactId>parent</artifactId></parent><artifactId>app-artifact</artifactId>"
                + "<dependencies><dependency><artifactId>lib-artifact</artifactId></dependency>"
                + "<!-- <dependency><artifactId>other-artifact</artifactId></dependency> --></dependencies></project>");
        write("app/src/main/java/App.java", "class App {}");
        write("app/src/test/java/AppTest.java", "class AppTest {}");
        write("lib/pom.xml", "<project><parent><artifactId>parent</artifactId></parent><artifactId>lib-artifact</artifactId></project>");
        write("lib/src/main/resources/lib.properties", "a=1");
        write("other/pom.xml", "<project><parent><artifactId>parent</artifactId></parent><artifactId>other-artifact</artifactId></project>");
        write("other/src/main/java/Other.java", "class Other {}");
        jar = write("app/target/app.jar", "a jar");
    }

    @Test
    void theModulesAreTheOnesItsPomNamesAndTheirsButNotThoseInComments() throws IOException {
        assertEquals(Set.of("app", "lib"), Inputs.modules(root, "app"));
        assertEquals(Set.of("lib"), Inputs.modules(root, "lib"));
    }

    @Test
    void aJarIsStaleWhenMissingOrWithoutARecord() throws IOException {
        assertStale("app/target/app.jar has no record of the files it was built from (app/target/loomgmp-inputs.txt)");
        Files.delete(jar);
        assertStale("app/target/app.jar does not exist");
    }

    @Test
    void aJarIsUpToDateAsRecordedWhatEverItsOwnOrOtherModulesOrTestsTimesSay() throws IOException {
        Inputs.write(root, "app");
        assertStale(null);
        write("other/src/main/java/Other.java", "class Other { int changed; }");
        write("app/src/test/java/AppTest.java", "class AppTest { int changed; }");
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(3600)));
        assertStale(null);
    }

    @Test
    void aFileRewrittenWithTheSameContentsIsNotAChange() throws IOException {
        Inputs.write(root, "app");
        Path source = root.resolve("app/src/main/java/App.java");
        Files.setLastModifiedTime(source, FileTime.from(Instant.now().plusSeconds(60)));
        assertStale(null);
    }

    @Test
    void aChangeToAnyFileItIsBuiltFromMakesItStaleAndIsNamed() throws IOException {
        Inputs.write(root, "app");
        assertStaleAfter("lib/src/main/resources/lib.properties", "a=2", "lib/src/main/resources/lib.properties changed since app/target/app.jar was built");
        assertStaleAfter("pom.xml", "<project><artifactId>parent</artifactId><modules>app lib</modules></project>", "pom.xml changed since app/target/app.jar was built");
        assertStaleAfter(".mvn/jvm.config", "-Xss8m", ".mvn/jvm.config changed since app/target/app.jar was built");
        assertStaleAfter("app/src/main/java/App.java", "class App { }", "app/src/main/java/App.java changed since app/target/app.jar was built");
    }

    @Test
    void aFileAddedOrDeletedMakesItStale() throws IOException {
        Inputs.write(root, "app");
        Path added = write("lib/src/main/java/New.java", "class New {}");
        assertStale("lib/src/main/java/New.java is new since app/target/app.jar was built");
        Files.delete(added);
        assertStale(null);
        Files.delete(root.resolve("app/src/main/java/App.java"));
        assertStale("app/src/main/java/App.java was deleted since app/target/app.jar was built");
    }

    @Test
    void aForgottenRecordMakesItStaleSoThatAFailedBuildIsNotTakenForAGoodOne() throws IOException {
        Inputs.write(root, "app");
        Inputs.forget(root, "app");
        assertStale("app/target/app.jar has no record of the files it was built from (app/target/loomgmp-inputs.txt)");
    }

    /** Changes {@code file} to {@code contents}, checks, then puts the contents back (at a new time). */
    private void assertStaleAfter(String file, String contents, String reason) throws IOException {
        Path path = root.resolve(file);
        String before = Files.readString(path);
        Files.writeString(path, contents);
        Files.setLastModifiedTime(path, FileTime.from(Instant.now().plusSeconds(1)));
        assertStale(reason);
        Files.writeString(path, before);
        Files.setLastModifiedTime(path, FileTime.from(Instant.now().plusSeconds(2)));
        assertStale(null);
    }

    private void assertStale(String reason) throws IOException {
        assertEquals(Optional.ofNullable(reason), Inputs.staleReason(root, "app", jar));
    }

    private Path write(String file, String contents) throws IOException {
        Path path = root.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, contents);
        return path;
    }
}
