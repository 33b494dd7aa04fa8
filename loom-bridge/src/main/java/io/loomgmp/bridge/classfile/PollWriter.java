package io.loomgmp.bridge.classfile;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static io.loomgmp.bridge.classfile.BackEdgeScan.instructionSize;
import static io.loomgmp.bridge.classfile.BackEdgeScan.isBackEdge;
import static io.loomgmp.bridge.classfile.BackEdgeScan.isShortBranch;
import static io.loomgmp.bridge.classfile.BackEdgeScan.operandsOfSwitch;
import static io.loomgmp.bridge.classfile.BackEdgeScan.require;
import static io.loomgmp.bridge.classfile.BackEdgeScan.s4;
import static io.loomgmp.bridge.classfile.BackEdgeScan.u2;

/**
 * Inserts the preemption polls into a class file's bytes directly, where {@link BackEdgeScan}
 * found the back-edges: the common case of {@link PreemptionPolls}, without the ClassFile API,
 * whose generality costs a start-up mostly in the JIT compiling it (a Spring Boot application
 * compiled a fifth more bytecode with C2 with the ClassFile API doing the polls).
 *
 * <p><b>What changes.</b> Six constant pool entries are appended (the method reference
 * {@code io/loomgmp/bridge/Gmp.checkpoint()V}), and in each method to poll the four bytes
 * {@code nop; invokestatic #checkpoint} go before every back-edge. Four bytes, not three, so that
 * every instruction moves by a multiple of 4 and the padding of {@code tableswitch} and
 * {@code lookupswitch} stays as it is. Every code offset is then moved: branch and switch
 * offsets, the exception table, the StackMapTable (each frame keeps its content, at its moved
 * offset: a poll neither pops nor pushes), LineNumberTable, LocalVariableTable and
 * LocalVariableTypeTable. An offset that pointed at a back-edge now points at its poll, so a
 * jump to the branch, a frame or a line there covers the poll too. {@code max_stack} stays.
 *
 * <p><b>What it leaves to the ClassFile API</b> ({@link Unsupported}): a method's code with any
 * other attribute holding offsets (type annotations on code, CharacterRangeTable, attributes it
 * does not know), a branch whose 16-bit offset would overflow, code that would outgrow 64 KiB, a
 * constant pool that would outgrow 65535 entries.
 */
public final class PollWriter {
    /** A shape this writer leaves to the ClassFile API; nothing is wrong with the class. */
    public static final class Unsupported extends Exception {
        Unsupported(String why) {
            super(why, null, false, false);
        }
    }

    public static final int POLL_BYTES = 4; // nop, invokestatic #index
    private static final int INVOKESTATIC = 0xB8;
    private static final int NOP = 0x00;

    private final byte[] bytes;
    private final int[] constantPoolEntries; // offset of each entry's tag, by index (see BackEdgeScan.Result)
    private final int checkpointIndex;

    private PollWriter(byte[] bytes, int[] constantPoolEntries, int checkpointIndex) {
        this.bytes = bytes;
        this.constantPoolEntries = constantPoolEntries;
        this.checkpointIndex = checkpointIndex;
    }

    /**
     * The class with a poll before each back-edge of the given methods.
     *
     * @param scan    the scan of {@code classBytes}
     * @param methods the methods to poll, among {@code scan.looping()}
     * @throws Unsupported if the class has a shape this writer leaves to the ClassFile API
     * @throws BackEdgeScan.MalformedClassException if the bytes are malformed where it reads them
     */
    public static byte[] insert(byte[] classBytes, BackEdgeScan.Result scan, List<BackEdgeScan.Method> methods,
                                String owner, String name) throws Unsupported {
        int count = scan.constantPoolEntries().length;
        if (count + 6 > 0xFFFF) {
            throw new Unsupported("the constant pool would outgrow 65535 entries");
        }
        PollWriter writer = new PollWriter(classBytes, scan.constantPoolEntries(), count + 5);
        int backEdges = 0;
        for (BackEdgeScan.Method method : methods) {
            backEdges += method.backEdges();
        }
        // Room for the polls, the constants and frames whose offsets grow past a byte: one buffer,
        // written once and copied once.
        ClassBytesOutput out = new ClassBytesOutput(classBytes.length + 128 + (POLL_BYTES + 2) * backEdges);
        out.bytes(classBytes, 0, 8);
        out.u2(count + 6);
        out.bytes(classBytes, 10, scan.constantPoolEnd() - 10);
        writer.appendCheckpointReference(out, count, owner, name);
        int copied = scan.constantPoolEnd();
        for (BackEdgeScan.Method method : methods) { // in class-file order, as the scan lists them
            int attribute = method.codeAttribute();
            if (attribute < copied) {
                throw new IllegalArgumentException("methods not in class-file order");
            }
            out.bytes(classBytes, copied, attribute - copied);
            copied = writer.rewriteCode(out, attribute);
        }
        out.bytes(classBytes, copied, classBytes.length - copied);
        return out.toByteArray();
    }

    /** Entries {@code first} to {@code first + 5}; the last is the method reference. */
    private void appendCheckpointReference(ClassBytesOutput out, int first, String owner, String name) {
        out.utf8Entry(owner);
        out.u1(7).u2(first); // Class
        out.utf8Entry(name);
        out.utf8Entry("()V");
        out.u1(12).u2(first + 2).u2(first + 3); // NameAndType
        out.u1(10).u2(first + 1).u2(first + 4); // Methodref
    }

    /**
     * Writes the Code attribute at {@code attribute} with polls; returns the offset just past the
     * original attribute.
     */
    private int rewriteCode(ClassBytesOutput out, int attribute) throws Unsupported {
        int nameIndex = u2(bytes, attribute);
        int length = s4(bytes, attribute + 2);
        int end = attribute + 6 + length;
        int codeLength = s4(bytes, attribute + 10);
        int codeStart = attribute + 14;
        int codeEnd = codeStart + codeLength;
        int[] backEdges = backEdges(codeStart, codeEnd); // offsets in the code, ascending
        int newCodeLength = codeLength + POLL_BYTES * backEdges.length;
        if (newCodeLength > 0xFFFF) {
            throw new Unsupported("the code would outgrow 64 KiB");
        }
        Offsets offsets = new Offsets(backEdges);

        out.u2(nameIndex);
        int lengthAt = out.size();
        out.u4(0); // the attribute's length, set once its content is written
        ClassBytesOutput body = out;
        body.bytes(bytes, attribute + 6, 4); // max_stack, max_locals
        body.u4(newCodeLength);
        writeCode(body, codeStart, codeEnd, offsets);
        int at = codeEnd;
        require(at + 2 <= end, "truncated Code attribute");
        int handlers = u2(bytes, at);
        body.u2(handlers);
        at += 2;
        require(at + 8L * handlers <= end, "truncated exception table");
        for (int i = 0; i < handlers; i++, at += 8) {
            body.u2(offsets.target(u2(bytes, at))).u2(offsets.target(u2(bytes, at + 2))).u2(offsets.target(u2(bytes, at + 4)));
            body.bytes(bytes, at + 6, 2); // catch type
        }
        require(at + 2 <= end, "truncated Code attribute");
        int attributes = u2(bytes, at);
        body.u2(attributes);
        at += 2;
        for (int i = 0; i < attributes; i++) {
            require(at + 6 <= end, "truncated Code attribute");
            int name = u2(bytes, at);
            int attributeLength = s4(bytes, at + 2);
            require(attributeLength >= 0 && attributeLength <= end - at - 6, "attribute past the end of the Code attribute");
            int payload = at + 6;
            String kind = utf8(name);
            body.u2(name);
            int attributeLengthAt = body.size();
            body.u4(0);
            switch (kind) {
                case "StackMapTable" -> writeStackMapTable(body, payload, payload + attributeLength, offsets);
                case "LineNumberTable" -> writeLineNumbers(body, payload, payload + attributeLength, offsets);
                case "LocalVariableTable", "LocalVariableTypeTable" ->
                        writeLocalVariables(body, payload, payload + attributeLength, offsets);
                default -> throw new Unsupported("a " + kind + " attribute in the code");
            }
            body.u4At(attributeLengthAt, body.size() - attributeLengthAt - 4);
            at = payload + attributeLength;
        }
        require(at == end, "the Code attribute's length does not match its content");

        out.u4At(lengthAt, out.size() - lengthAt - 4);
        return end;
    }

    private int[] backEdges(int codeStart, int codeEnd) {
        int[] found = new int[8];
        int n = 0;
        for (int at = codeStart; at < codeEnd; at += instructionSize(bytes, codeStart, at, codeEnd)) {
            if (isBackEdge(bytes, at)) {
                if (n == found.length) {
                    found = Arrays.copyOf(found, 2 * n);
                }
                found[n++] = at - codeStart;
            }
        }
        return Arrays.copyOf(found, n);
    }

    private void writeCode(ClassBytesOutput body, int codeStart, int codeEnd, Offsets offsets) throws Unsupported {
        for (int at = codeStart; at < codeEnd; ) {
            int size = instructionSize(bytes, codeStart, at, codeEnd);
            int pc = at - codeStart;
            int newPc = offsets.instruction(pc);
            int opcode = bytes[at] & 0xFF;
            if (isBackEdge(bytes, at)) {
                body.u1(NOP).u1(INVOKESTATIC).u2(checkpointIndex); // the poll right before the branch
            }
            if (isShortBranch(opcode)) {
                int offset = offsets.target(pc + (short) u2(bytes, at + 1)) - newPc;
                if (offset != (short) offset) {
                    throw new Unsupported("a branch offset would outgrow 16 bits");
                }
                body.u1(opcode).u2(offset & 0xFFFF);
            } else if (opcode == 0xC8 || opcode == 0xC9) { // goto_w, jsr_w
                body.u1(opcode).u4(offsets.target(pc + s4(bytes, at + 1)) - newPc);
            } else if (opcode == 0xAA || opcode == 0xAB) {
                int operands = operandsOfSwitch(codeStart, at);
                body.bytes(bytes, at, operands - at); // opcode and padding: unchanged, as newPc % 4 == pc % 4
                body.u4(offsets.target(pc + s4(bytes, operands)) - newPc); // default
                if (opcode == 0xAA) { // low, high, then jump offsets
                    body.bytes(bytes, operands + 4, 8);
                    for (int entry = operands + 12; entry < at + size; entry += 4) {
                        body.u4(offsets.target(pc + s4(bytes, entry)) - newPc);
                    }
                } else { // npairs, then match-offset pairs
                    body.bytes(bytes, operands + 4, 4);
                    for (int pair = operands + 8; pair < at + size; pair += 8) {
                        body.bytes(bytes, pair, 4).u4(offsets.target(pc + s4(bytes, pair + 4)) - newPc);
                    }
                }
            } else {
                body.bytes(bytes, at, size);
            }
            at += size;
        }
    }

    private void writeStackMapTable(ClassBytesOutput out, int at, int end, Offsets offsets) {
        require(at + 2 <= end, "truncated StackMapTable");
        int frames = u2(bytes, at);
        out.u2(frames);
        at += 2;
        int previous = -1; // the old and new offset of the frame before; -1 before the first
        int previousNew = -1;
        for (int i = 0; i < frames; i++) {
            require(at + 1 <= end, "truncated StackMapTable");
            int type = bytes[at] & 0xFF;
            int delta;
            int next; // just past the frame's offset field
            if (type < 128) {
                delta = type < 64 ? type : type - 64;
                next = at + 1;
            } else {
                require(type >= 247 && at + 3 <= end, "bad or truncated stack map frame");
                delta = u2(bytes, at + 1);
                next = at + 3;
            }
            int offset = previous + delta + 1;
            int newOffset = offsets.target(offset);
            int newDelta = newOffset - previousNew - 1;
            previous = offset;
            previousNew = newOffset;
            if (type < 64) { // same_frame
                if (newDelta < 64) {
                    out.u1(newDelta);
                } else {
                    out.u1(251).u2(newDelta); // same_frame_extended
                }
                at = next;
            } else if (type < 128) { // same_locals_1_stack_item
                if (newDelta < 64) {
                    out.u1(64 + newDelta);
                } else {
                    out.u1(247).u2(newDelta); // same_locals_1_stack_item_extended
                }
                at = copyTypes(out, next, end, 1, offsets);
            } else if (type == 247) {
                out.u1(type).u2(newDelta);
                at = copyTypes(out, next, end, 1, offsets);
            } else if (type <= 251) { // chop, same_frame_extended
                out.u1(type).u2(newDelta);
                at = next;
            } else if (type <= 254) { // append
                out.u1(type).u2(newDelta);
                at = copyTypes(out, next, end, type - 251, offsets);
            } else { // full_frame
                out.u1(type).u2(newDelta);
                require(next + 2 <= end, "truncated stack map frame");
                int locals = u2(bytes, next);
                out.u2(locals);
                at = copyTypes(out, next + 2, end, locals, offsets);
                require(at + 2 <= end, "truncated stack map frame");
                int stack = u2(bytes, at);
                out.u2(stack);
                at = copyTypes(out, at + 2, end, stack, offsets);
            }
        }
        require(at == end, "the StackMapTable's length does not match its content");
    }

    /** Copies {@code n} verification types; an uninitialized type's offset (of its {@code new}) is moved. */
    private int copyTypes(ClassBytesOutput out, int at, int end, int n, Offsets offsets) {
        for (int i = 0; i < n; i++) {
            require(at + 1 <= end, "truncated verification type");
            int tag = bytes[at] & 0xFF;
            if (tag > 8) {
                throw new BackEdgeScan.MalformedClassException("bad verification type " + tag);
            }
            if (tag == 7) { // Object: a class index
                require(at + 3 <= end, "truncated verification type");
                out.bytes(bytes, at, 3);
                at += 3;
            } else if (tag == 8) { // Uninitialized: the offset of its new instruction
                require(at + 3 <= end, "truncated verification type");
                out.u1(tag).u2(offsets.target(u2(bytes, at + 1)));
                at += 3;
            } else {
                out.u1(tag);
                at += 1;
            }
        }
        return at;
    }

    private void writeLineNumbers(ClassBytesOutput out, int at, int end, Offsets offsets) {
        require(at + 2 <= end, "truncated LineNumberTable");
        int n = u2(bytes, at);
        require(at + 2 + 4L * n == end, "the LineNumberTable's length does not match its content");
        out.u2(n);
        for (int entry = at + 2; entry < end; entry += 4) {
            out.u2(offsets.target(u2(bytes, entry))).bytes(bytes, entry + 2, 2);
        }
    }

    private void writeLocalVariables(ClassBytesOutput out, int at, int end, Offsets offsets) {
        require(at + 2 <= end, "truncated local variable table");
        int n = u2(bytes, at);
        require(at + 2 + 10L * n == end, "the local variable table's length does not match its content");
        out.u2(n);
        for (int entry = at + 2; entry < end; entry += 10) {
            int start = u2(bytes, entry);
            int newStart = offsets.target(start);
            out.u2(newStart).u2(offsets.target(start + u2(bytes, entry + 2)) - newStart).bytes(bytes, entry + 4, 6);
        }
    }

    private String utf8(int index) {
        if (index <= 0 || index >= constantPoolEntries.length || constantPoolEntries[index] == 0) {
            throw new BackEdgeScan.MalformedClassException("no constant pool entry " + index);
        }
        int at = constantPoolEntries[index];
        if ((bytes[at] & 0xFF) != 1) {
            throw new BackEdgeScan.MalformedClassException("constant pool entry " + index + " is not a Utf8 entry");
        }
        // Attribute names are ASCII; the scan has checked that the entry lies within the pool.
        return new String(bytes, at + 3, u2(bytes, at + 1), StandardCharsets.ISO_8859_1);
    }

    /**
     * Where old code offsets go once the polls are in. Invariant: {@code backEdges} is ascending;
     * the instruction at old offset {@code x} moves by 4 for each back-edge before it, and by 4
     * more if it is a back-edge itself (its poll comes first); a jump, a frame or a range that
     * pointed at {@code x} points at what now comes first there: the poll, for a back-edge.
     */
    private static final class Offsets {
        private final int[] backEdges;

        Offsets(int[] backEdges) {
            this.backEdges = backEdges;
        }

        /** The new offset of what pointed at old offset {@code x} (a target, a range bound, a frame). */
        int target(int x) {
            int before = Arrays.binarySearch(backEdges, x);
            return x + POLL_BYTES * (before >= 0 ? before : -before - 1);
        }

        /** The new offset of the instruction at old offset {@code x} itself. */
        int instruction(int x) {
            return target(x) + (Arrays.binarySearch(backEdges, x) >= 0 ? POLL_BYTES : 0);
        }
    }

    /** A growable byte buffer with big-endian writes. */

}
