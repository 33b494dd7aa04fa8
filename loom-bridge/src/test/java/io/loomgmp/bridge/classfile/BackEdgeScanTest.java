package io.loomgmp.bridge.classfile;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The raw-bytes pre-scan of the preemption polls: what it finds, and that bad bytes raise only MalformedClassException. */
class BackEdgeScanTest {
    private static final String FIXTURE = "example/app/LoopShapes";

    @Test
    void findsTheLoopingMethodsOfJavacOutput() throws IOException {
        Map<String, Integer> found = byMethod(BackEdgeScan.methodsWithBackEdges(classBytes(FIXTURE)));
        assertEquals(Map.of("forLoop(I)I", 1, "whileLoop(I)I", 1, "doWhile(I)I", 1, "nested(I)I", 2,
                "whileWithContinue(I)I", 2, "loopAroundTry(I)I", 1, "mergesApplicationTypes(I)Ljava/lang/String;", 1), found,
                "noLoop and the constructor have none");
        assertEquals(Map.of("forLoop(I)I", List.of(0, 1), "whileLoop(I)I", List.of(0, 1), "doWhile(I)I", List.of(1, 0),
                "nested(I)I", List.of(0, 2), "whileWithContinue(I)I", List.of(0, 2), "loopAroundTry(I)I", List.of(0, 1),
                "mergesApplicationTypes(I)Ljava/lang/String;", List.of(0, 1)),
                planByMethod(BackEdgeScan.methodsWithBackEdges(classBytes(FIXTURE))),
                "javac closes a for or while loop with a goto, polled in its place; a do-while's conditional back-edge"
                        + " is polled at its header");
    }

    @Test
    void aClassWithOnlyForwardBranchesHasNoneAndIsLeftAlone() {
        byte[] forward = ClassFile.of().build(ClassDesc.of("com.acme.Forward"), type -> type
                .withMethodBody("sign", MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_int),
                        ClassFile.ACC_STATIC, code -> {
                            Label negative = code.newLabel();
                            Label end = code.newLabel();
                            code.iload(0).iflt(negative).iconst_1().goto_(end)
                                    .labelBinding(negative).iconst_m1()
                                    .labelBinding(end).ireturn();
                        }));
        assertEquals(List.of(), BackEdgeScan.methodsWithBackEdges(forward));
    }

    @Test
    void stepsOverEveryInstructionShapeAndCountsWhatTheClassFileApiCounts() {
        // goto_w backwards, a branch to itself, both switches (padded), wide iinc, ifnull backwards.
        byte[] shapes = ClassFile.of().build(ClassDesc.of("com.acme.Shapes"), type -> type
                .withMethodBody("shapes", MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int, ConstantDescs.CD_Object),
                        ClassFile.ACC_STATIC, BackEdgeScanTest::everyShape)
                .withMethodBody("spin", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, code -> {
                    Label self = code.newLabel();
                    code.labelBinding(self).goto_(self);
                }));
        Map<String, Integer> found = byMethod(BackEdgeScan.methodsWithBackEdges(shapes));
        assertEquals(Map.of("shapes(ILjava/lang/Object;)V", 3, "spin()V", 1), found);
        assertEquals(countedByClassFileApi(shapes), found);
        BackEdgeScan.Result scan = BackEdgeScan.scan(shapes);
        assertEquals(Map.of("shapes(ILjava/lang/Object;)V", List.of(1, 0), "spin()V", List.of(0, 1)), planByMethod(scan.looping()),
                "the three back-edges of shapes close one loop, none a goto; spin's goto to itself is polled in its place");
        byte[] polled = PollWriterTest.insert(shapes);
        assertEquals(List.of(), ClassFile.of().verify(polled));
        assertEquals(GuardedPolls.Shape.polled(1, 0, true), PollWriterTest.shapes(polled).get("shapes(ILjava/lang/Object;)V"));
        assertEquals(GuardedPolls.Shape.polled(0, 1, true), PollWriterTest.shapes(polled).get("spin()V"));
    }

    @Test
    void aLookupswitchWithoutPairsNearTheCodesEndIsWalked() {
        // javacc's generated lexers (Tomcat's ELParserTokenManager) have "switch (x) { }" as the
        // last statement: a lookupswitch of 8 operand bytes, which the scan once required to have 12.
        byte[] empty = ClassFile.of().build(ClassDesc.of("com.acme.Empty"), type -> type
                .withMethodBody("spin", MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int), ClassFile.ACC_STATIC,
                        code -> {
                            Label top = code.newLabel();
                            Label end = code.newLabel();
                            code.labelBinding(top).iload(0).ifeq(top).iload(0).lookupswitch(end, List.of())
                                    .labelBinding(end).return_();
                        }));
        assertEquals(Map.of("spin(I)V", 1), byMethod(BackEdgeScan.methodsWithBackEdges(empty)));
        byte[] polled = PollWriterTest.insert(empty);
        assertEquals(List.of(), ClassFile.of().verify(polled));
    }

    @Test
    void fromVersion51CodeWithoutFramesIsNotWalked() {
        // The same looping method, its frames dropped: a verifier from version 51 on would refuse
        // the loop, so the scan takes the missing StackMapTable as "no branch target"; before 51
        // frames are optional and the code is walked.
        for (int version : new int[] {ClassFile.JAVA_6_VERSION, ClassFile.JAVA_7_VERSION, ClassFile.JAVA_25_VERSION}) {
            byte[] bytes = ClassFile.of(ClassFile.StackMapsOption.DROP_STACK_MAPS).build(ClassDesc.of("com.acme.Spin"),
                    type -> type.withVersion(version, 0)
                            .withMethodBody("spin", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, code -> {
                                Label self = code.newLabel();
                                code.labelBinding(self).goto_(self);
                            }));
            assertEquals(version < 51 ? Map.of("spin()V", 1) : Map.of(), byMethod(BackEdgeScan.methodsWithBackEdges(bytes)),
                    "version " + version);
        }
    }

    @Test
    void agreesWithTheClassFileApiOnTheJdksOwnClasses() throws IOException {
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        int classes = 0;
        try (Stream<Path> files = Files.walk(jrt.getPath("/modules/java.base/java/util"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                byte[] bytes = Files.readAllBytes(file);
                assertEquals(countedByClassFileApi(bytes), byMethod(BackEdgeScan.methodsWithBackEdges(bytes)), file.toString());
                classes++;
            }
        }
        assertTrue(classes > 300, classes + " classes");
    }

    @Test
    void truncatedBytesAreMalformed() throws IOException {
        byte[] whole = classBytes(FIXTURE);
        int malformed = 0;
        for (int length = 0; length < whole.length; length++) {
            byte[] prefix = Arrays.copyOf(whole, length);
            try {
                BackEdgeScan.methodsWithBackEdges(prefix);
            } catch (MalformedClassException expected) {
                malformed++;
            }
        }
        assertTrue(malformed > whole.length / 2, malformed + " of " + whole.length + " prefixes seen as malformed");
    }

    @Test
    void corruptedBytesRaiseOnlyMalformedClass() throws IOException {
        byte[] whole = classBytes(FIXTURE);
        Random random = new Random(12);
        for (int trial = 0; trial < 3000; trial++) {
            byte[] corrupted = whole.clone();
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                corrupted[random.nextInt(corrupted.length)] = (byte) random.nextInt(256);
            }
            try {
                BackEdgeScan.methodsWithBackEdges(corrupted);
            } catch (MalformedClassException expected) {
                // the one exception the scan may raise
            } catch (RuntimeException e) {
                fail("trial " + trial + ": " + e, e);
            }
        }
    }

    @Test
    void nonClassBytesAreMalformed() {
        for (byte[] bytes : List.of(new byte[0], new byte[] {(byte) 0xCA, (byte) 0xFE}, "not a class file".getBytes())) {
            assertThrows(MalformedClassException.class, () -> BackEdgeScan.methodsWithBackEdges(bytes));
        }
        // A length field that would overflow an int past the end of the array.
        byte[] huge = ClassFile.of().build(ClassDesc.of("com.acme.Empty"), type -> type
                .withMethodBody("run", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, CodeBuilder::return_));
        int codeName = indexOf(huge, "Code".getBytes());
        int attributeLength = indexOfAttributeLength(huge, codeName);
        huge[attributeLength] = 0x7F;
        huge[attributeLength + 1] = (byte) 0xFF;
        huge[attributeLength + 2] = (byte) 0xFF;
        huge[attributeLength + 3] = (byte) 0xF0;
        assertThrows(MalformedClassException.class, () -> BackEdgeScan.methodsWithBackEdges(huge));
    }

    // --- helpers

    /** Falls through a padded tableswitch and lookupswitch and a wide iinc, then loops back three times (if, ifnull, goto_w). */
    private static void everyShape(CodeBuilder code) {
        Label top = code.newLabel();
        Label afterTable = code.newLabel();
        Label afterLookup = code.newLabel();
        code.iconst_0().istore(300) // a local above 255: wide istore
                .labelBinding(top)
                .iload(0).tableswitch(0, 2, afterTable, List.of(SwitchCase.of(0, afterTable), SwitchCase.of(1, afterTable),
                        SwitchCase.of(2, afterTable)))
                .labelBinding(afterTable)
                .iload(0).lookupswitch(afterLookup, List.of(SwitchCase.of(-5, afterLookup), SwitchCase.of(1000, afterLookup)))
                .labelBinding(afterLookup)
                .iinc(300, 1) // a local above 255: wide iinc
                .iload(0).ifeq(top)
                .aload(1).ifnull(top)
                .branch(Opcode.GOTO_W, top);
        code.return_();
    }

    /** Per method with back-edges (name + descriptor): branches to an offset at or before their own, as the ClassFile API sees them. */
    private static Map<String, Integer> countedByClassFileApi(byte[] classBytes) {
        Map<String, Integer> result = new TreeMap<>();
        for (MethodModel method : ClassFile.of().parse(classBytes).methods()) {
            if (method.code().isEmpty()) {
                continue;
            }
            CodeAttribute code = (CodeAttribute) method.code().get();
            int offset = 0;
            int backEdges = 0;
            for (CodeElement element : code) {
                if (element instanceof Instruction instruction) {
                    if (instruction instanceof BranchInstruction branch && code.labelToBci(branch.target()) <= offset) {
                        backEdges++;
                    }
                    offset += instruction.sizeInBytes();
                }
            }
            if (backEdges > 0) {
                result.put(method.methodName().stringValue() + method.methodType().stringValue(), backEdges);
            }
        }
        return result;
    }

    /** Per method: its loops polled at their header, and its goto back-edges polled in their place. */
    private static Map<String, List<Integer>> planByMethod(List<BackEdgeScan.Method> methods) {
        Map<String, List<Integer>> result = new TreeMap<>();
        for (BackEdgeScan.Method method : methods) {
            result.put(method.nameAndType(), List.of(method.headers(), method.tails()));
        }
        return result;
    }

    private static Map<String, Integer> byMethod(List<BackEdgeScan.Method> methods) {
        Map<String, Integer> result = new TreeMap<>();
        for (BackEdgeScan.Method method : methods) {
            assertNull(result.put(method.nameAndType(), method.backEdges()), "listed once: " + method);
            assertTrue(method.codeLength() > 0);
        }
        return result;
    }

    /** The offset of the 4-byte length of the first attribute whose name is the Utf8 entry found at {@code utf8Bytes}. */
    private static int indexOfAttributeLength(byte[] classBytes, int utf8Bytes) {
        int entry = constantPoolIndexAt(classBytes, utf8Bytes - 3);
        for (int at = utf8Bytes + 4; at + 6 <= classBytes.length; at++) {
            if (((classBytes[at] & 0xFF) << 8 | (classBytes[at + 1] & 0xFF)) == entry) {
                return at + 2;
            }
        }
        throw new AssertionError("no attribute named by entry " + entry);
    }

    /** The constant pool index of the entry whose tag is at {@code tagOffset}: counts entries from the pool's start (no longs or doubles here). */
    private static int constantPoolIndexAt(byte[] classBytes, int tagOffset) {
        int at = 10;
        for (int index = 1; ; index++) {
            if (at == tagOffset) {
                return index;
            }
            int tag = classBytes[at];
            at += switch (tag) {
                case 1 -> 3 + ((classBytes[at + 1] & 0xFF) << 8 | (classBytes[at + 2] & 0xFF));
                case 7, 8, 16, 19, 20 -> 3;
                case 15 -> 4;
                default -> 5;
            };
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 3; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            if (haystack[i - 3] == 1) { // a Utf8 entry: tag, length, bytes
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    private static byte[] classBytes(String internalName) throws IOException {
        try (InputStream in = BackEdgeScanTest.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return Objects.requireNonNull(in, internalName).readAllBytes();
        }
    }
}
