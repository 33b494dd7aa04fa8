package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.bridge.classfile.GuardedPolls.Shape;
import io.loomgmp.bridge.classfile.GuardedPolls;
import io.loomgmp.bridge.classfile.PollWriterTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PreemptionPollsTest {
    private static final String FIXTURE = "example/app/LoopShapes";
    /** The fixture's nest: LoopShapes and the types its stack maps merge. */
    private static final List<String> NEST = List.of(FIXTURE, FIXTURE + "$Shape", FIXTURE + "$Square", FIXTURE + "$Circle");
    /** Back-edges per method of the fixture, as javac emits them (checked against its bytecode below). */
    private static final Map<String, Integer> BACK_EDGES = Map.of(
            "forLoop", 1, "whileLoop", 1, "doWhile", 1, "nested", 2, "whileWithContinue", 2,
            "loopAroundTry", 1, "mergesApplicationTypes", 1, "noLoop", 0, "<init>", 0);
    /** Loops polled at their header per method: javac's do-while closes with a conditional back-edge. */
    private static final Map<String, Integer> GUARDS = Map.of(
            "forLoop", 0, "whileLoop", 0, "doWhile", 1, "nested", 0, "whileWithContinue", 0,
            "loopAroundTry", 0, "mergesApplicationTypes", 0, "noLoop", 0, "<init>", 0);
    /** Goto back-edges polled in their place per method: javac closes for and while loops with one. */
    private static final Map<String, Integer> TAILS = Map.of(
            "forLoop", 1, "whileLoop", 1, "doWhile", 0, "nested", 2, "whileWithContinue", 2,
            "loopAroundTry", 1, "mergesApplicationTypes", 1, "noLoop", 0, "<init>", 0);
    private static final ClassLoader APP = PreemptionPollsTest.class.getClassLoader();

    private final PreemptionPolls everyClass = new PreemptionPolls(List.of(), List.of(), null);

    @Test
    void exactlyTheLoopHeadersGetAGuardedPoll() throws IOException {
        Map<String, Shape> before = pollsByMethod(classBytes(FIXTURE));
        Map<String, Shape> after = pollsByMethod(transform(everyClass, APP, FIXTURE));
        assertEquals(BACK_EDGES.keySet(), before.keySet());
        for (String method : BACK_EDGES.keySet()) {
            assertEquals(Shape.unpolled(BACK_EDGES.get(method)), before.get(method), method + " before");
            // Every backward branch (by offset, not by the transformer's own label bookkeeping)
            // is part of a poll in place of a goto or goes to a guarded poll at a header, and
            // there is no poll or flag read anywhere else.
            assertEquals(Shape.polled(GUARDS.get(method), TAILS.get(method), true), after.get(method), method + " after");
        }
    }

    @Test
    void theInstrumentedClassVerifiesAndComputesTheSame() throws Exception {
        Map<String, byte[]> nest = new HashMap<>();
        for (String name : NEST) {
            byte[] polled = transform(everyClass, APP, name);
            nest.put(name, polled != null ? polled : classBytes(name));
            assertEquals(List.of(), ClassFile.of().verify(nest.get(name)), name);
        }
        Class<?> original = Class.forName(FIXTURE.replace('/', '.'));
        Class<?> instrumented = new NestLoader(nest).loadClass(FIXTURE.replace('/', '.'));
        assertTrue(instrumented.getClassLoader() instanceof NestLoader);
        for (Method method : original.getDeclaredMethods()) {
            method.setAccessible(true);
            Method twin = instrumented.getDeclaredMethod(method.getName(), method.getParameterTypes());
            twin.setAccessible(true);
            for (int n : new int[] {0, 1, 2, 7, 100}) {
                Object[] args = method.getParameterCount() == 1 ? new Object[] {n} : new Object[] {n, 3};
                assertEquals(method.invoke(null, args), twin.invoke(null, args), method.getName() + "(" + n + ")");
            }
        }
    }

    @Test
    void aClassWithoutBackEdgesIsNotRewritten() throws IOException {
        assertNull(transform(everyClass, APP, FIXTURE + "$Square"));
        assertNull(PreemptionPolls.instrument(classBytes(FIXTURE + "$Shape")));
    }

    @Test
    void aBranchThatWouldOverflowGoesThroughTheClassFileApi() {
        byte[] wide = PollWriterTest.branchThatWouldOverflow(); // one PollWriter leaves alone
        PreemptionPolls polls = new PreemptionPolls(List.of(), List.of(), null);
        byte[] polled = polls.transform(APP.getUnnamedModule(), APP, "com/acme/Wide", null, null, wide);
        assertNotNull(polled, "polled through the ClassFile API instead");
        assertTrue(polls.stats().contains("1 given polls (1 through the ClassFile API)"), polls.stats());
        assertEquals(List.of(), ClassFile.of().verify(polled));
        // One guarded poll, at the loop's header (the ClassFile API may turn a branch that
        // outgrows 16 bits into a branch around a goto_w: still one back-edge to the header).
        assertEquals(Shape.polled(1, 0, false), pollsByMethod(polled).get("run"));
    }

    @Test
    void truncatedOrCorruptedBytesNeverEscapeTheTransformer() throws IOException {
        byte[] whole = classBytes(FIXTURE);
        PreemptionPolls polls = new PreemptionPolls(List.of(), List.of(), null);
        for (int length = 0; length < whole.length; length++) {
            long failuresBefore = polls.failures();
            assertNull(polls.transform(APP.getUnnamedModule(), APP, FIXTURE, null, null, Arrays.copyOf(whole, length)),
                    "prefix of " + length);
            assertEquals(failuresBefore + 1, polls.failures(), "counted, prefix of " + length);
        }
        Random random = new Random(12);
        for (int trial = 0; trial < 3000; trial++) {
            byte[] corrupted = whole.clone();
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                corrupted[random.nextInt(corrupted.length)] = (byte) random.nextInt(256);
            }
            polls.transform(APP.getUnnamedModule(), APP, FIXTURE, null, null, corrupted); // returns, whatever the bytes
        }
    }

    @Test
    void noClassHierarchyIsNeededAndAFailureLeavesTheClassAlone() throws Exception {
        // A loader that hides the class files of the fixture's nest (Square and Circle, merged at a
        // join point): the original stack maps are kept, so nothing needs to be resolved.
        ClassLoader hiding = new ClassLoader(APP) {
            @Override
            public URL getResource(String name) {
                return name.startsWith(FIXTURE) ? null : super.getResource(name);
            }
        };
        byte[] polled = transform(everyClass, hiding, FIXTURE);
        assertNotNull(polled);
        assertEquals(List.of(), ClassFile.of().verify(polled));
        assertEquals(0, everyClass.failures());

        byte[] truncated = Arrays.copyOf(classBytes(FIXTURE), 200);
        assertNull(everyClass.transform(APP.getUnnamedModule(), APP, FIXTURE, null, null, truncated));
        assertEquals(1, everyClass.failures());
    }

    @Test
    void theJdksOwnLoopsKeepValidStackMapsWithPolls() throws IOException {
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        int polledClasses = 0;
        try (Stream<Path> files = Files.walk(jrt.getPath("/modules/java.base/java/util/concurrent"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                byte[] polled = PreemptionPolls.instrument(Files.readAllBytes(file));
                if (polled != null) {
                    assertEquals(List.of(), ClassFile.of().verify(polled), file.toString());
                    polledClasses++;
                }
            }
        }
        assertTrue(polledClasses > 50, polledClasses + " classes with polls");
    }

    @Test
    void whichClassesAreInstrumented() {
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        assertFalse(everyClass.selects(null, "java/util/ArrayList", null), "the JDK's boot classes");
        assertFalse(everyClass.selects(platform, "java/sql/Date", null), "the JDK's platform classes");
        assertFalse(everyClass.selects(APP, "io/loomgmp/dispatcher/Scheduling", null), "loom-gmp itself");
        assertFalse(everyClass.selects(APP, "io/loomgmp/benchmarks/Anything", null), "loom-gmp itself");
        assertFalse(everyClass.selects(APP, "com/acme/Main", Object.class), "a class being redefined");
        assertFalse(everyClass.selects(APP, null, null), "a class defined without a name");
        assertTrue(everyClass.selects(APP, "com/acme/Main", null));
        assertTrue(everyClass.selects(APP, "io/loomgmpx/Main", null), "the exclusion is io.loomgmp. only");

        PreemptionPolls scoped = new PreemptionPolls(List.of("com.acme.", "org.example.Main"),
                List.of("com.acme.generated.", "org.example.MainHelper"), null);
        assertTrue(scoped.selects(APP, "com/acme/Main", null));
        assertTrue(scoped.selects(APP, "com/acme/deep/er/Worker$1", null), "subpackages and nested classes");
        assertTrue(scoped.selects(APP, "org/example/Main", null));
        assertTrue(scoped.selects(APP, "org/example/Main$Loop", null), "a prefix is a prefix of the binary name");
        assertFalse(scoped.selects(APP, "com/acmex/Main", null), "com.acme. ends with a dot");
        assertFalse(scoped.selects(APP, "org/other/Main", null), "not included");
        assertFalse(scoped.selects(APP, "com/acme/generated/Proxy", null), "an exclusion wins over an inclusion");
        assertFalse(scoped.selects(APP, "org/example/MainHelper", null));
        assertFalse(scoped.selects(null, "com/acme/Main", null), "never the JDK, whatever is included");
    }

    @Test
    void onlyLoadersThatLinkToTheAgentsGmpGetPolls() throws IOException {
        assertTrue(PreemptionPolls.reachesGmp(APP));
        try (URLClassLoader child = new URLClassLoader(new URL[0], APP)) {
            assertTrue(PreemptionPolls.reachesGmp(child), "a child of the application loader delegates to it");
        }
        ClassLoader isolated = new ClassLoader(null) {
        };
        assertFalse(PreemptionPolls.reachesGmp(isolated));
        assertFalse(PreemptionPolls.reachesGmp(ClassLoader.getPlatformClassLoader()));
        assertNull(transform(everyClass, isolated, FIXTURE));
        assertEquals(0, everyClass.failures(), "not a failure: the class is not one to instrument");
    }

    @Test
    void aNamedModuleIsMadeToReadLoomGmp() throws IOException {
        Module named = ModuleLayer.boot().findModule("java.sql").orElseThrow(); // reads no unnamed module
        byte[] bytes = classBytes(FIXTURE);
        assertNull(everyClass.transform(named, APP, FIXTURE, null, null, bytes),
                "without Instrumentation the read edge cannot be added, so no poll");

        List<Object[]> redefinitions = new ArrayList<>();
        Instrumentation recording = (Instrumentation) Proxy.newProxyInstance(APP, new Class<?>[] {Instrumentation.class},
                (proxy, method, args) -> {
                    assertEquals("redefineModule", method.getName());
                    redefinitions.add(args);
                    return null;
                });
        PreemptionPolls polls = new PreemptionPolls(List.of(), List.of(), recording);
        assertNotNull(polls.transform(named, APP, FIXTURE, null, null, bytes));
        assertEquals(1, redefinitions.size());
        assertEquals(named, redefinitions.getFirst()[0]);
        assertEquals(Set.of(Gmp.class.getModule()), redefinitions.getFirst()[1], "extra reads: loom-gmp's module");
        assertEquals(0, polls.failures());
    }

    @Test
    void aMethodThatWouldOutgrowTheJitsLimitKeepsItsLoopsUnpolled() {
        // Code length = padding + 12 bytes; a poll adds 12 (getstatic, ifeq, invokestatic, 3 nops).
        int fits = PreemptionPolls.HUGE_METHOD_LIMIT - 12;
        assertEquals(1, pollsByMethod(PreemptionPolls.instrument(loopOfLength(fits))).get("loop").guards());
        assertTrue(PreemptionPolls.instrument(loopOfLength(fits + 1)) == null, "8001 bytes would never be compiled");
        assertEquals(1, pollsByMethod(PreemptionPolls.instrument(loopOfLength(9000))).get("loop").guards(),
                "already too large to compile: the poll costs nothing more");
    }

    @Test
    void aMethodThatWouldOutgrow64KiBKeepsItsLoopsUnpolledAndTheRestOfItsClassGetsPolls() {
        int padding = 0xFFFF - 12 - 12 + 1; // and 12 bytes of loop: one byte too many for a poll
        byte[] both = ClassFile.of().build(ClassDesc.of("com.acme.Generated"), type -> type
                .withMethodBody("huge", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, code -> {
                    for (int i = 0; i < padding; i++) {
                        code.nop();
                    }
                    countToTen(code);
                })
                .withMethodBody("loop", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, PreemptionPollsTest::countToTen));
        byte[] polled = PreemptionPolls.instrument(both);
        assertNotNull(polled);
        assertEquals(List.of(), ClassFile.of().verify(polled));
        Map<String, Shape> polls = pollsByMethod(polled);
        assertEquals(Shape.unpolled(1), polls.get("huge"), polls.toString());
        assertEquals(Shape.polled(1, 0, true), polls.get("loop"), polls.toString());
    }

    @Test
    void aClassInitialisersLoopsGetNoPolls() {
        // A virtual thread in <clinit> is pinned: a poll there could never yield.
        byte[] onlyInInitialiser = ClassFile.of().build(ClassDesc.of("com.acme.Table"), type -> type
                .withMethodBody(ConstantDescs.CLASS_INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_STATIC,
                        PreemptionPollsTest::countToTen));
        assertNull(PreemptionPolls.instrument(onlyInInitialiser), "nothing to poll but <clinit>");
        byte[] both = ClassFile.of().build(ClassDesc.of("com.acme.Table"), type -> type
                .withMethodBody(ConstantDescs.CLASS_INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_STATIC,
                        PreemptionPollsTest::countToTen)
                .withMethodBody("loop", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, PreemptionPollsTest::countToTen));
        Map<String, Shape> polls = pollsByMethod(PreemptionPolls.instrument(both));
        assertEquals(1, polls.get("loop").guards(), polls.toString());
        assertEquals(0, polls.get("<clinit>").calls(), polls.toString());
    }

    /** {@code static void m()}: a loop of ten turns, one back-edge. */
    private static void countToTen(CodeBuilder code) {
        Label top = code.newLabel();
        code.iconst_0().istore(0).labelBinding(top).iinc(0, 1).iload(0).bipush(10).if_icmplt(top).return_();
    }

    @Test
    void aClassFileWithoutStackMapsGetsPollsToo() throws Exception {
        // Version 49 (Java 5) has no StackMapTable: the JVM infers the types when it verifies.
        byte[] old = ClassFile.of().build(ClassDesc.of("com.acme.Old"), type -> type
                .withVersion(ClassFile.JAVA_5_VERSION, 0)
                .withMethodBody("sum", MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_int),
                        ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, PreemptionPollsTest::sumBelow));
        byte[] polled = PreemptionPolls.instrument(old);
        assertEquals(Shape.polled(1, 0, true), pollsByMethod(polled).get("sum"));
        assertEquals(ClassFile.JAVA_5_VERSION, ClassFile.of().parse(polled).majorVersion());
        Class<?> loaded = new NestLoader(Map.of("com/acme/Old", polled)).loadClass("com.acme.Old");
        assertEquals(45, loaded.getMethod("sum", int.class).invoke(null, 10));
    }

    // --- helpers

    /** Per method name: its back-edges, loop headers and guarded polls, read back by offsets alone. */
    private static Map<String, Shape> pollsByMethod(byte[] classBytes) {
        return GuardedPolls.byMethod(classBytes, PreemptionPolls.GMP_INTERNAL_NAME, PreemptionPolls.CHECKPOINT,
                PreemptionPolls.FLAG_OWNER_INTERNAL_NAME, PreemptionPolls.FLAG, false);
    }

    /** Whether {@code instruction} is a preemption poll ({@code invokestatic Gmp.checkpoint()V}). */
    static boolean isPoll(Instruction instruction) {
        return instruction instanceof InvokeInstruction invoke
                && invoke.opcode() == Opcode.INVOKESTATIC
                && invoke.owner().asInternalName().equals(PreemptionPolls.GMP_INTERNAL_NAME)
                && invoke.name().equalsString(PreemptionPolls.CHECKPOINT)
                && invoke.typeSymbol().equals(ConstantDescs.MTD_void);
    }

    private static byte[] transform(PreemptionPolls polls, ClassLoader loader, String internalName) throws IOException {
        return polls.transform(loader.getUnnamedModule(), loader, internalName, null, null, classBytes(internalName));
    }

    private static byte[] classBytes(String internalName) throws IOException {
        try (InputStream in = APP.getResourceAsStream(internalName + ".class")) {
            return Objects.requireNonNull(in, internalName).readAllBytes();
        }
    }

    /** {@code static int sum(int n)}: 0 + 1 + ... + (n - 1), with the test at the bottom. */
    private static void sumBelow(CodeBuilder code) {
        Label top = code.newLabel();
        Label test = code.newLabel();
        code.iconst_0().istore(1).iconst_0().istore(2).goto_(test)
                .labelBinding(top).iload(1).iload(2).iadd().istore(1).iinc(2, 1)
                .labelBinding(test).iload(2).iload(0).if_icmplt(top)
                .iload(1).ireturn();
    }

    /** A class whose {@code static void loop()} has one back-edge and {@code length} bytes of code. */
    private static byte[] loopOfLength(int length) {
        int padding = length - 12;
        return ClassFile.of().build(ClassDesc.of("com.acme.Huge"), type -> type
                .withMethodBody("loop", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, code -> {
                    Label top = code.newLabel();
                    code.iconst_0().istore(0).labelBinding(top);
                    for (int i = 0; i < padding; i++) {
                        code.nop();
                    }
                    code.iinc(0, 1).iload(0).bipush(10).if_icmplt(top).return_();
                }));
    }

    /** Defines the given classes itself (child first), everything else through the application loader. */
    private static final class NestLoader extends ClassLoader {
        private final Map<String, byte[]> classes; // internal name -> bytes

        NestLoader(Map<String, byte[]> classes) {
            super(APP);
            this.classes = classes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                byte[] bytes = classes.get(name.replace('.', '/'));
                if (bytes == null) {
                    return super.loadClass(name, resolve);
                }
                Class<?> loaded = findLoadedClass(name);
                return loaded != null ? loaded : defineClass(name, bytes, 0, bytes.length);
            }
        }
    }
}
