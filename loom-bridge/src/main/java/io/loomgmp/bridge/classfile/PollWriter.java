package io.loomgmp.bridge.classfile;

import java.lang.classfile.constantpool.PoolEntry;
import java.util.Arrays;
import java.util.List;

import static io.loomgmp.bridge.classfile.ClassReader.s4;
import static io.loomgmp.bridge.classfile.ClassReader.u2;

/**
 * Inserts polls into a class file's bytes directly, where {@link BackEdgeScan} found the
 * back-edges: the common case of the agent's preemption polls, without the ClassFile API, whose
 * generality costs a start-up mostly in the JIT compiling it (a Spring Boot application compiled
 * a fifth more bytecode with C2 with the ClassFile API doing the polls).
 *
 * <p><b>What changes.</b> Six constant pool entries are appended (the method reference of the
 * poll, a static {@code ()V} method such as {@code io/loomgmp/bridge/Gmp.checkpoint()V}), and in
 * each method to poll the four bytes {@code nop; invokestatic #poll} go before every back-edge.
 * Four bytes, not three, so that every instruction moves by a multiple of 4 and the padding of
 * {@code tableswitch} and {@code lookupswitch} stays as it is. Every code offset is then moved:
 * branch and switch offsets here, the rest by {@link OffsetMover} (the exception table, the
 * StackMapTable, whose frames keep their content, as a poll neither pops nor pushes, the line and
 * local variable tables). An offset that pointed at a back-edge now points at its poll, so a jump
 * to the branch, a frame or a line there covers the poll too. {@code max_stack} stays.
 *
 * <p><b>What it leaves to the ClassFile API</b> ({@link UnsupportedShape}): a method's code with
 * an attribute holding offsets that {@link OffsetMover} does not move, a branch whose 16-bit
 * offset would overflow, code that would outgrow 64 KiB, a constant pool that would outgrow 65535
 * entries.
 */
public final class PollWriter {
    public static final int POLL_BYTES = 4; // nop, invokestatic #index
    /** The poll's method type: no arguments, no result. */
    private static final String POLL_DESCRIPTOR = "()V";

    private final ClassReader in;
    private final byte[] bytes;
    private final int pollIndex;

    private PollWriter(ClassReader in, int pollIndex) {
        this.in = in;
        this.bytes = in.bytes;
        this.pollIndex = pollIndex;
    }

    /**
     * The class with a poll, {@code invokestatic owner.name()V}, before each back-edge of the
     * given methods.
     *
     * @param scan    the scan of {@code classBytes}
     * @param methods the methods to poll, among {@code scan.looping()}
     * @param owner   the poll's class, an internal name ({@code io/loomgmp/bridge/Gmp})
     * @throws UnsupportedShape if the class has a shape this writer leaves to the ClassFile API
     * @throws MalformedClassException if the bytes are malformed where it reads them
     */
    public static byte[] insert(byte[] classBytes, BackEdgeScan.Result scan, List<BackEdgeScan.Method> methods,
                                String owner, String name) {
        ClassReader in = scan.classFile;
        if (in.bytes != classBytes) {
            throw new IllegalArgumentException("the scan is of other bytes");
        }
        int count = in.constantCount();
        if (count + 6 > 0xFFFF) {
            throw new UnsupportedShape("the constant pool would outgrow 65535 entries");
        }
        PollWriter writer = new PollWriter(in, count + 5);
        int backEdges = 0;
        for (BackEdgeScan.Method method : methods) {
            backEdges += method.backEdges();
        }
        // Room for the polls, the constants and frames whose offsets grow past a byte: one buffer,
        // written once and copied once.
        ClassBytesOutput out = new ClassBytesOutput(classBytes.length + 128 + (POLL_BYTES + 2) * backEdges);
        out.bytes(classBytes, 0, 8);
        out.u2(count + 6);
        out.bytes(classBytes, 10, in.constantPoolEnd() - 10);
        appendPollReference(out, count, owner, name);
        int copied = in.constantPoolEnd();
        for (BackEdgeScan.Method method : methods) { // in class-file order, as the scan lists them
            int attribute = method.codeAttribute();
            if (attribute < copied) {
                throw new IllegalArgumentException("methods not in class-file order");
            }
            out.bytes(classBytes, copied, attribute - copied);
            copied = writer.rewriteCode(out, attribute, method.nameAndType());
        }
        out.bytes(classBytes, copied, classBytes.length - copied);
        return out.toByteArray();
    }

    /** Entries {@code first} to {@code first + 5}; the last is the method reference. */
    private static void appendPollReference(ClassBytesOutput out, int first, String owner, String name) {
        out.utf8Entry(owner);
        out.u1(PoolEntry.TAG_CLASS).u2(first);
        out.utf8Entry(name);
        out.utf8Entry(POLL_DESCRIPTOR);
        out.u1(PoolEntry.TAG_NAME_AND_TYPE).u2(first + 2).u2(first + 3);
        out.u1(PoolEntry.TAG_METHODREF).u2(first + 1).u2(first + 4);
    }

    /**
     * Writes the Code attribute at {@code attribute} with polls; returns the offset just past the
     * original attribute.
     */
    private int rewriteCode(ClassBytesOutput out, int attribute, String method) {
        int codeLength = in.codeLength(attribute);
        int codeStart = ClassReader.codeStart(attribute);
        int codeEnd = codeStart + codeLength;
        int[] backEdges = backEdges(codeStart, codeEnd); // offsets in the code, ascending
        int newCodeLength = codeLength + POLL_BYTES * backEdges.length;
        if (newCodeLength > 0xFFFF) {
            throw new UnsupportedShape("the code would outgrow 64 KiB");
        }
        Polls offsets = new Polls(backEdges);

        out.u2(u2(bytes, attribute)); // the name
        int lengthAt = out.size();
        out.u4(0); // the attribute's length, set once its content is written
        out.bytes(bytes, attribute + 6, 4); // max_stack, max_locals
        out.u4(newCodeLength);
        writeCode(out, codeStart, codeEnd, offsets);
        OffsetMover.moveCodeTail(in, attribute, offsets, null, -1, method, out);
        out.u4At(lengthAt, out.size() - lengthAt - 4);
        return in.attributeEnd(attribute);
    }

    private int[] backEdges(int codeStart, int codeEnd) {
        int[] found = new int[8];
        int n = 0;
        for (int at = codeStart; at < codeEnd; at += Bytecode.instructionSize(bytes, codeStart, at, codeEnd)) {
            if (Bytecode.isBackEdge(bytes, at)) {
                if (n == found.length) {
                    found = Arrays.copyOf(found, 2 * n);
                }
                found[n++] = at - codeStart;
            }
        }
        return Arrays.copyOf(found, n);
    }

    private void writeCode(ClassBytesOutput body, int codeStart, int codeEnd, Polls offsets) {
        for (int at = codeStart; at < codeEnd; ) {
            int size = Bytecode.instructionSize(bytes, codeStart, at, codeEnd);
            int pc = at - codeStart;
            int newPc = offsets.instruction(pc);
            int opcode = bytes[at] & 0xFF;
            if (Bytecode.isBackEdge(bytes, at)) {
                body.u1(Bytecode.NOP).u1(Bytecode.INVOKESTATIC).u2(pollIndex); // the poll right before the branch
            }
            if (Bytecode.isShortBranch(opcode)) {
                int offset = offsets.moved(pc + (short) u2(bytes, at + 1)) - newPc;
                if (offset != (short) offset) {
                    throw new UnsupportedShape("a branch offset would outgrow 16 bits");
                }
                body.u1(opcode).u2(offset & 0xFFFF);
            } else if (opcode == Bytecode.GOTO_W || opcode == Bytecode.JSR_W) {
                body.u1(opcode).u4(offsets.moved(pc + s4(bytes, at + 1)) - newPc);
            } else if (opcode == Bytecode.TABLESWITCH || opcode == Bytecode.LOOKUPSWITCH) {
                int operands = Bytecode.operandsOfSwitch(codeStart, at);
                body.bytes(bytes, at, operands - at); // opcode and padding: unchanged, as newPc % 4 == pc % 4
                body.u4(offsets.moved(pc + s4(bytes, operands)) - newPc); // default
                if (opcode == Bytecode.TABLESWITCH) { // low, high, then jump offsets
                    body.bytes(bytes, operands + 4, 8);
                    for (int entry = operands + 12; entry < at + size; entry += 4) {
                        body.u4(offsets.moved(pc + s4(bytes, entry)) - newPc);
                    }
                } else { // npairs, then match-offset pairs
                    body.bytes(bytes, operands + 4, 4);
                    for (int pair = operands + 8; pair < at + size; pair += 8) {
                        body.bytes(bytes, pair, 4).u4(offsets.moved(pc + s4(bytes, pair + 4)) - newPc);
                    }
                }
            } else {
                body.bytes(bytes, at, size);
            }
            at += size;
        }
    }

    /**
     * Where old code offsets go once the polls are in. Invariant: {@code backEdges} is ascending;
     * the instruction at old offset {@code x} moves by 4 for each back-edge before it, and by 4
     * more if it is a back-edge itself (its poll comes first); a jump, a frame or a range that
     * pointed at {@code x} points at what now comes first there: the poll, for a back-edge.
     */
    private static final class Polls extends OffsetMover.Offsets {
        private final int[] backEdges;

        Polls(int[] backEdges) {
            this.backEdges = backEdges;
        }

        @Override
        int moved(int x) {
            int before = Arrays.binarySearch(backEdges, x);
            return x + POLL_BYTES * (before >= 0 ? before : -before - 1);
        }

        /** The new offset of the instruction at old offset {@code x} itself. */
        int instruction(int x) {
            return moved(x) + (Arrays.binarySearch(backEdges, x) >= 0 ? POLL_BYTES : 0);
        }
    }
}
