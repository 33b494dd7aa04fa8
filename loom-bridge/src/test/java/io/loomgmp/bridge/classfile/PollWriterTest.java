package io.loomgmp.bridge.classfile;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.classfile.ClassFile;
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
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The raw-bytes poll inserter: real class files come out verifiable, with a poll right before every back-edge. */
public class PollWriterTest {
    /** The poll these tests insert: {@code invokestatic com/acme/Poll.poll()V} (the verifier does not load it). */
    static final String POLL_OWNER = "com/acme/Poll";
    static final String POLL_NAME = "poll";

    @Test
    void theJdksUtilClassesVerifyWithAPollBeforeEachBackEdge() throws IOException {
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        int written = 0;
        int unsupported = 0;
        try (Stream<Path> files = Files.walk(jrt.getPath("/modules/java.base/java/util"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                byte[] original = Files.readAllBytes(file);
                BackEdgeScan.Result scan = BackEdgeScan.scan(original);
                if (scan.looping().isEmpty()) {
                    continue;
                }
                byte[] polled;
                try {
                    polled = PollWriter.insert(original, scan, scan.looping(), POLL_OWNER, POLL_NAME);
                } catch (UnsupportedShape e) {
                    unsupported++;
                    continue;
                }
                assertEquals(List.of(), ClassFile.of().verify(polled), file.toString());
                assertEveryBackEdgeRightAfterAPoll(polled, file.toString());
                written++;
            }
        }
        assertTrue(written > 300 && unsupported < written / 20, written + " written, " + unsupported + " left to the ClassFile API");
    }

    @Test
    void aBranchThatWouldOverflowIsLeftToTheClassFileApi() {
        byte[] wide = branchThatWouldOverflow();
        BackEdgeScan.Result scan = BackEdgeScan.scan(wide);
        assertThrows(UnsupportedShape.class, () -> PollWriter.insert(wide, scan, scan.looping(), POLL_OWNER, POLL_NAME));
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

    private static void assertEveryBackEdgeRightAfterAPoll(byte[] classBytes, String what) {
        for (MethodModel method : ClassFile.of().parse(classBytes).methods()) {
            if (method.code().isEmpty()) {
                continue;
            }
            CodeAttribute code = (CodeAttribute) method.code().get();
            int offset = 0;
            Instruction previous = null;
            for (CodeElement element : code) {
                if (element instanceof Instruction instruction) {
                    if (instruction instanceof BranchInstruction branch && code.labelToBci(branch.target()) <= offset) {
                        assertTrue(isPoll(previous), what + "." + method.methodName() + " at " + offset);
                    }
                    previous = instruction;
                    offset += instruction.sizeInBytes();
                }
            }
        }
    }

    private static boolean isPoll(Instruction instruction) {
        return instruction instanceof InvokeInstruction invoke
                && invoke.opcode() == Opcode.INVOKESTATIC
                && invoke.owner().asInternalName().equals(POLL_OWNER)
                && invoke.name().equalsString(POLL_NAME)
                && invoke.typeSymbol().equals(ConstantDescs.MTD_void);
    }
}
