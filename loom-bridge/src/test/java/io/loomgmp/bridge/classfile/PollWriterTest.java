package io.loomgmp.bridge.classfile;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The raw-bytes poll inserter: real class files come out verifiable, with a guarded poll on every
 * loop (in place of a {@code goto} back-edge, else at the loop's header); the shapes javac does not emit but the writer
 * must still get right (a header at offset 0, in a constructor, with stack items, an exception
 * handler as a header, code near 64 KiB) load in HotSpot, verify, and poll when the flag is up.
 */
public class PollWriterTest {
    /** The poll these tests insert: {@code invokestatic TestPoll.poll()V}, behind {@code TestPoll.pending}. */
    static final String POLL_OWNER = "io/loomgmp/bridge/classfile/TestPoll";
    static final String POLL_NAME = "poll";
    static final String FLAG_OWNER = POLL_OWNER;
    static final String FLAG_NAME = "pending";

    static byte[] insert(byte[] original) {
        BackEdgeScan.Result scan = BackEdgeScan.scan(original);
        return PollWriter.insert(original, scan, scan.looping(), POLL_OWNER, POLL_NAME, FLAG_OWNER, FLAG_NAME);
    }

    static Map<String, GuardedPolls.Shape> shapes(byte[] classBytes) {
        return GuardedPolls.byMethod(classBytes, POLL_OWNER, POLL_NAME, FLAG_OWNER, FLAG_NAME, true);
    }

    @Test
    void theJdksUtilClassesVerifyWithAGuardedPollOnEachLoop() throws IOException {
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        int written = 0;
        int unsupported = 0;
        int fullFrames = 0;
        try (Stream<Path> files = Files.walk(jrt.getPath("/modules/java.base/java/util"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                byte[] original = Files.readAllBytes(file);
                BackEdgeScan.Result scan = BackEdgeScan.scan(original);
                if (scan.looping().isEmpty()) {
                    continue;
                }
                byte[] polled;
                try {
                    polled = insert(original);
                } catch (UnsupportedShape e) {
                    unsupported++;
                    continue;
                }
                assertEquals(List.of(), ClassFile.of().verify(polled), file.toString());
                Map<String, GuardedPolls.Shape> shapes = shapes(polled);
                for (BackEdgeScan.Method method : scan.looping()) {
                    assertEquals(GuardedPolls.Shape.polled(method.headers(), method.tails(), true),
                            shapes.get(method.nameAndType()), file + "." + method.nameAndType());
                }
                assertEquals(scan.looping().size(), shapes.values().stream().filter(shape -> shape.calls() > 0).count(),
                        file + ": polls only where there are loops");
                assertSameCodeBesidesThePolls(original, polled, file.toString());
                written++;
            }
        }
        assertTrue(written > 300 && unsupported < written / 20, written + " written, " + unsupported + " left to the ClassFile API");
    }

    @Test
    void aBranchThatWouldOverflowIsLeftToTheClassFileApi() {
        byte[] wide = branchThatWouldOverflow();
        assertThrows(UnsupportedShape.class, () -> insert(wide));
    }

    /** A forward ifeq of offset 32767 over a loop: its 16-bit offset overflows once the loop's poll is in. */
    public static byte[] branchThatWouldOverflow() {
        return ClassFile.of().build(ClassDesc.of("com.acme.Wide"), type -> type
                .withMethodBody("run", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, code -> {
                    Label top = code.newLabel();
                    Label end = code.newLabel();
                    code.iconst_0().istore(0).iload(0).ifeq(end).labelBinding(top);
                    for (int i = 0; i < 32_760; i++) {
                        code.nop();
                    }
                    code.iload(0).ifne(top).labelBinding(end).return_();
                }));
    }

    @Test
    void shapesJavacDoesNotEmitLoadVerifyAndPoll() throws Exception {
        byte[] original = oddShapes();
        byte[] polled = insert(original);
        assertEquals(List.of(), ClassFile.of().verify(polled));
        assertOddShapesPolled(original, polled, true);
        // The frame copies: at the header's own instruction, 12 bytes after the header's frame.
        // A header at 0 has a frame there, explicit (javac writes one too): the verifier wants one
        // at every branch target. It stays at 0, now the poll's, and its copy goes at 12.
        assertEquals(List.of(0), frameOffsets(original, "countDownAtZero"));
        assertEquals(List.of(0, 12), frameOffsets(polled, "countDownAtZero"));
        assertEquals(List.of(0, 12), frameOffsets(polled, ConstantDescs.INIT_NAME));
        assertEquals(1, stackMaxOf(original, "handlerLoop"));
        assertEquals(2, stackMaxOf(polled, "handlerLoop"), "the guard's int on top of the exception");
        runOddShapes(polled, POLL_OWNER);
    }

    @Test
    void theClassFileApiPathWritesTheSameGuardedPolls() throws Exception {
        // The odd shapes (a header at 0, in a constructor before super(), with one and two stack
        // items, an exception handler as a header, nested loops sharing a header) through the
        // ClassFile API, as a shape the raw writer leaves alone would go.
        byte[] original = oddShapes();
        Set<String> all = new HashSet<>();
        for (BackEdgeScan.Method method : BackEdgeScan.methodsWithBackEdges(original)) {
            all.add(method.nameAndType());
        }
        byte[] polled = ClassFileApiPolls.insert(original, all, POLL_OWNER, POLL_NAME, FLAG_OWNER, FLAG_NAME);
        assertEquals(List.of(), ClassFile.of().verify(polled));
        assertOddShapesPolled(original, polled, false);
        runOddShapes(polled, POLL_OWNER); // HotSpot verifies and runs them
    }

    /** The odd shapes below, in one class {@code com.acme.Odd}. */
    public static byte[] oddShapes() {
        return ClassFile.of().build(ClassDesc.of("com.acme.Odd"), type -> type
                .withMethodBody("countDownAtZero", INT_INT, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                        PollWriterTest::headerAtZero)
                .withMethodBody("twoOnTheStack", INT_INT, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                        PollWriterTest::twoStackItemsAtTheHeader)
                .withMethodBody("oneOnTheStack", INT_INT, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                        PollWriterTest::oneStackItemAtTheHeader)
                .withMethodBody("handlerLoop", INT_INT, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                        PollWriterTest::handlerAsHeader)
                .withMethodBody("nested", INT_INT, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC,
                        PollWriterTest::nestedSharingAHeader)
                .withMethodBody("instanceAtZero", INT_INT, ClassFile.ACC_PUBLIC, PollWriterTest::headerAtZero)
                .withMethodBody(ConstantDescs.INIT_NAME, MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int),
                        ClassFile.ACC_PUBLIC, PollWriterTest::constructorLoopBeforeSuper));
    }

    /**
     * The odd shapes, polled with {@code TestPoll} by the raw writer ({@code padded}) or the
     * ClassFile API path.
     */
    static void assertOddShapesPolled(byte[] original, byte[] polled, boolean padded) {
        Map<String, GuardedPolls.Shape> shapes = padded ? shapes(polled)
                : GuardedPolls.byMethod(polled, POLL_OWNER, POLL_NAME, FLAG_OWNER, FLAG_NAME, true);
        assertEquals(GuardedPolls.Shape.polled(1, 0, padded), shapes.get("countDownAtZero(I)I"));
        assertEquals(GuardedPolls.Shape.polled(1, 0, padded), shapes.get("twoOnTheStack(I)I"));
        assertEquals(GuardedPolls.Shape.polled(1, 0, padded), shapes.get("oneOnTheStack(I)I"));
        assertEquals(GuardedPolls.Shape.polled(0, 1, padded), shapes.get("handlerLoop(I)I"), "a goto back to the handler");
        assertEquals(GuardedPolls.Shape.polled(1, 2, padded), shapes.get("nested(I)I"),
                "the inner loop at its header, the two gotos back to the outer one each in their place");
        assertEquals(GuardedPolls.Shape.polled(1, 0, padded), shapes.get("instanceAtZero(I)I"));
        assertEquals(GuardedPolls.Shape.polled(1, 0, padded), shapes.get("<init>(I)V"));
        if (padded) {
            assertSameCodeBesidesThePolls(original, polled, "com.acme.Odd");
        }
    }

    /**
     * Loads the polled odd shapes (HotSpot verifies them: they are not the JDK's) and runs each
     * with the flag down, then up: the same results, and with {@code TestPoll} as the poll
     * ({@code pollOwner}), a call each turn only with the flag up.
     */
    public static void runOddShapes(byte[] polled, String pollOwner) throws Exception {
        Class<?> odd = new Loader(Map.of("com/acme/Odd", polled)).loadClass("com.acme.Odd");
        Map<String, Integer> expected = Map.of("countDownAtZero", 0, "twoOnTheStack", 7, "oneOnTheStack", 7,
                "handlerLoop", 5, "nested", 21);
        for (int pending : new int[] {0, 1}) {
            TestPoll.pending = pending;
            TestPoll.calls = 0;
            try {
                for (Map.Entry<String, Integer> method : expected.entrySet()) {
                    assertEquals(method.getValue(), odd.getMethod(method.getKey(), int.class).invoke(null, 7), method.getKey());
                }
                Object instance = odd.getConstructor(int.class).newInstance(7);
                assertEquals(0, odd.getMethod("instanceAtZero", int.class).invoke(instance, 7));
            } finally {
                TestPoll.pending = 0;
            }
            if (!pollOwner.equals(POLL_OWNER)) {
                return; // another poll and flag: the results alone
            }
            if (pending == 0) {
                assertEquals(0, TestPoll.calls, "the flag down: no call gets past the guard");
            } else {
                assertTrue(TestPoll.calls >= 6 * 7, "the flag up: a call each turn, " + TestPoll.calls);
            }
        }
    }

    @Test
    void codeNear64KiBIsPolledIfItFitsAndRefusedIfNot() throws Exception {
        byte[] fits = loopOfLength(0xFFFF - PollWriter.POLL_BYTES);
        byte[] polled = insert(fits);
        assertEquals(0xFFFF, codeLengthOf(polled, "loop"));
        assertEquals(List.of(), ClassFile.of().verify(polled));
        assertEquals(GuardedPolls.Shape.polled(1, 0, true), shapes(polled).get("loop()V"));
        Class<?> loaded = new Loader(Map.of("com/acme/Long", polled)).loadClass("com.acme.Long");
        loaded.getMethod("loop").invoke(null);

        byte[] tooLong = loopOfLength(0xFFFF - PollWriter.POLL_BYTES + 1);
        UnsupportedShape refused = assertThrows(UnsupportedShape.class, () -> insert(tooLong));
        assertTrue(refused.getMessage().contains("64 KiB"), refused.getMessage());
    }

    @Test
    void linesLocalsAndExceptionRangesCoverThePollAsTheyCoveredTheHeader() throws IOException {
        byte[] original;
        try (var in = PollWriterTest.class.getClassLoader().getResourceAsStream("example/app/LoopShapes.class")) {
            original = in.readAllBytes();
        }
        byte[] polled = insert(original);
        assertEquals(List.of(), ClassFile.of().verify(polled));
        assertSameCodeBesidesThePolls(original, polled, "LoopShapes");
        for (MethodModel method : ClassFile.of().parse(polled).methods()) {
            CodeAttribute code = (CodeAttribute) method.code().orElseThrow();
            if (!code.findAttribute(Attributes.lineNumberTable()).isPresent()) {
                fail("LoopShapes is compiled with line numbers");
            }
        }
    }

    // --- the odd shapes, each a static (or instance) int m(int n) with n = 7

    private static final MethodTypeDesc INT_INT = MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_int);

    /** {@code top: iinc n -1; iload n; ifgt top; iload n; ireturn}: the loop header is offset 0, with the implicit frame. */
    private static void headerAtZero(CodeBuilder code) {
        int n = code.parameterSlot(0);
        Label top = code.newLabel();
        code.labelBinding(top).iinc(n, -1).iload(n).ifgt(top).iload(n).ireturn();
    }

    /** {@code Odd(int n)}: counts n down before {@code super()} (a flexible constructor body), from offset 0, this uninitialised. */
    private static void constructorLoopBeforeSuper(CodeBuilder code) {
        Label top = code.newLabel();
        code.labelBinding(top).iinc(1, -1).iload(1).ifgt(top)
                .aload(0).invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void).return_();
    }

    /** Two ints on the stack at the header (a full_frame): {@code [x, x]}, x counting up to n. */
    private static void twoStackItemsAtTheHeader(CodeBuilder code) {
        Label top = code.newLabel();
        code.iconst_0().dup().labelBinding(top)
                .pop().iconst_1().iadd().dup().dup().iload(0).if_icmplt(top)
                .pop().ireturn();
    }

    /** One int on the stack at the header (a same_locals_1_stack_item_frame): x counting up to n. */
    private static void oneStackItemAtTheHeader(CodeBuilder code) {
        Label top = code.newLabel();
        code.iconst_0().labelBinding(top)
                .iconst_1().iadd().dup().iload(0).if_icmplt(top)
                .ireturn();
    }

    /**
     * An exception handler that is a loop header: its frame has the exception on the stack, so
     * the guard's int makes the stack one deeper there than it ever was.
     */
    private static void handlerAsHeader(CodeBuilder code) {
        Label tryStart = code.newLabel();
        Label tryEnd = code.newLabel();
        Label handler = code.newLabel();
        Label done = code.newLabel();
        // The stack is never deeper than 1 before the polls; entered with the exception, then
        // once more with null, so n - 2 is returned.
        code.labelBinding(tryStart).aconst_null().athrow().labelBinding(tryEnd)
                .labelBinding(handler) // stack: [Throwable]
                .iinc(0, -1).ifnull(done)
                .aconst_null().goto_(handler)
                .labelBinding(done).iload(0).ireturn()
                .exceptionCatch(tryStart, tryEnd, handler, ConstantDescs.CD_Throwable);
    }

    /** Nested loops; a continue of the outer one from the inner gives the outer header two back-edges. Returns n * (n - 1) / 2. */
    private static void nestedSharingAHeader(CodeBuilder code) {
        Label outer = code.newLabel();
        Label inner = code.newLabel();
        Label innerEnd = code.newLabel();
        Label done = code.newLabel();
        // locals: 0 n, 1 i, 2 j, 3 sum
        code.iconst_0().istore(1).iconst_0().istore(3)
                .labelBinding(outer).iload(1).iload(0).if_icmpge(done)
                .iconst_0().istore(2)
                .labelBinding(inner).iload(2).iload(1).if_icmpge(innerEnd)
                .iinc(3, 1).iinc(2, 1)
                .iload(2).iload(1).if_icmplt(inner) // back to inner
                .iinc(1, 1).goto_(outer) // continue outer from inside
                .labelBinding(innerEnd).iinc(1, 1).goto_(outer)
                .labelBinding(done).iload(3).ireturn();
    }

    /** A class whose {@code public static void loop()} has {@code length} bytes of code, a short loop at the end. */
    private static byte[] loopOfLength(int length) {
        int padding = length - 12;
        return ClassFile.of().build(ClassDesc.of("com.acme.Long"), type -> type
                .withMethodBody("loop", ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, code -> {
                    Label top = code.newLabel();
                    for (int i = 0; i < padding; i++) {
                        code.nop();
                    }
                    code.iconst_0().istore(0).labelBinding(top);
                    code.iinc(0, 1).iload(0).bipush(10).if_icmplt(top).return_();
                }));
    }

    // --- helpers

    /**
     * The original code's instructions, in order, are exactly the polled code's without the polls,
     * each with the same line and the same local variables in scope and the same exception
     * handlers covering it; each poll's instructions have the line, locals and handlers of the
     * header instruction they precede.
     */
    static void assertSameCodeBesidesThePolls(byte[] original, byte[] polled, String what) {
        Map<String, List<String>> before = describe(original, false);
        Map<String, List<String>> after = describe(polled, true);
        assertEquals(before.keySet(), after.keySet(), what);
        for (String method : before.keySet()) {
            assertEquals(before.get(method), after.get(method), what + "." + method);
        }
    }

    /**
     * Per method, one line per instruction: its opcode (a branch's with its target's index in
     * this list, not its offset), line, locals in scope and handlers covering it; with
     * {@code skipPolls}, a poll's instructions are left out after checking that they share the
     * line, locals and handlers of the instruction after them.
     */
    private static Map<String, List<String>> describe(byte[] classBytes, boolean skipPolls) {
        Map<String, List<String>> result = new TreeMap<>();
        for (MethodModel method : ClassFile.of().parse(classBytes).methods()) {
            if (method.code().isEmpty()) {
                continue;
            }
            CodeAttribute code = (CodeAttribute) method.code().get();
            GuardedPolls.Listing listing = GuardedPolls.listing(code);
            List<Instruction> instructions = listing.instructions();
            List<Integer> bcis = listing.offsets();
            boolean[] poll = new boolean[instructions.size()];
            if (skipPolls) {
                for (int i = 0; i + 2 < instructions.size(); i++) {
                    if (instructions.get(i) instanceof FieldInstruction field && field.owner().asInternalName().equals(FLAG_OWNER)
                            && field.name().equalsString(FLAG_NAME)) {
                        int target = code.labelToBci(((BranchInstruction) instructions.get(i + 1)).target());
                        if (target > bcis.get(i)) { // at a header: up to over
                            for (int j = i; bcis.get(j) < target; j++) {
                                poll[j] = true;
                            }
                        } else { // in place of a goto: up to the goto, which stays
                            for (int j = i; instructions.get(j).opcode() != Opcode.GOTO; j++) {
                                poll[j] = true;
                            }
                        }
                    }
                }
            }
            Map<Integer, Integer> kept = new java.util.HashMap<>(); // bci -> index among the kept instructions
            int index = 0;
            for (int i = 0; i < instructions.size(); i++) {
                kept.put(bcis.get(i), index); // a poll's instructions: the index of the header after them
                index += poll[i] ? 0 : 1;
            }
            List<String> lines = new ArrayList<>();
            String pollContext = null;
            for (int i = 0; i < instructions.size(); i++) {
                Instruction instruction = instructions.get(i);
                int bci = bcis.get(i);
                String context = " line " + lineAt(code, bci) + " locals " + localsAt(code, bci) + " handlers " + handlersAt(code, bci, kept);
                if (poll[i]) {
                    assertTrue(pollContext == null || pollContext.equals(context), "one context over a poll");
                    pollContext = context;
                    continue;
                }
                if (pollContext != null) {
                    assertEquals(context, pollContext, method.methodName() + ": the poll before instruction " + kept.get(bci));
                    pollContext = null;
                }
                String operand = instruction instanceof BranchInstruction branch ? " -> " + kept.get(code.labelToBci(branch.target()))
                        : instruction instanceof java.lang.classfile.instruction.TableSwitchInstruction
                          || instruction instanceof java.lang.classfile.instruction.LookupSwitchInstruction ? " switch" : "";
                lines.add(instruction.opcode() + operand + context);
            }
            result.put(method.methodName().stringValue() + method.methodType().stringValue(), lines);
        }
        return result;
    }

    private static int lineAt(CodeAttribute code, int bci) {
        int line = -1;
        int from = -1;
        for (var table : code.findAttributes(Attributes.lineNumberTable())) {
            for (var entry : table.lineNumbers()) {
                if (entry.startPc() <= bci && entry.startPc() >= from) {
                    from = entry.startPc();
                    line = entry.lineNumber();
                }
            }
        }
        return line;
    }

    private static String localsAt(CodeAttribute code, int bci) {
        List<String> names = new ArrayList<>();
        for (var table : code.findAttributes(Attributes.localVariableTable())) {
            for (var local : table.localVariables()) {
                if (local.startPc() <= bci && bci < local.startPc() + local.length()) {
                    names.add(local.slot() + ":" + local.name().stringValue());
                }
            }
        }
        names.sort(null);
        return names.toString();
    }

    private static String handlersAt(CodeAttribute code, int bci, Map<Integer, Integer> kept) {
        List<String> handlers = new ArrayList<>();
        for (var handler : code.exceptionHandlers()) {
            if (code.labelToBci(handler.tryStart()) <= bci && bci < code.labelToBci(handler.tryEnd())) {
                handlers.add(kept.get(code.labelToBci(handler.handler())) + ":" + handler.catchType().map(c -> c.asInternalName()).orElse("any"));
            }
        }
        return handlers.toString();
    }

    /** The offsets of the frames of {@code method}'s StackMapTable. */
    private static List<Integer> frameOffsets(byte[] classBytes, String method) {
        CodeAttribute code = code(classBytes, method);
        return code.findAttribute(Attributes.stackMapTable()).orElseThrow().entries().stream()
                .map(frame -> code.labelToBci(frame.target())).toList();
    }

    private static int stackMaxOf(byte[] classBytes, String method) {
        return code(classBytes, method).maxStack();
    }

    private static int codeLengthOf(byte[] classBytes, String method) {
        return code(classBytes, method).codeLength();
    }

    private static CodeAttribute code(byte[] classBytes, String method) {
        return ClassFile.of().parse(classBytes).methods().stream().filter(m -> m.methodName().equalsString(method))
                .findFirst().map(m -> (CodeAttribute) m.code().orElseThrow()).orElseThrow();
    }

    /** Defines the given classes itself, everything else through the test's loader (TestPoll). */
    static final class Loader extends ClassLoader {
        private final Map<String, byte[]> classes;

        Loader(Map<String, byte[]> classes) {
            super(PollWriterTest.class.getClassLoader());
            this.classes = classes;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = classes.get(name.replace('.', '/'));
            if (bytes == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, bytes, 0, bytes.length);
        }
    }
}
