package io.loomgmp.bridge.classfile;

import java.lang.classfile.constantpool.PoolEntry;
import java.util.Arrays;
import java.util.List;

import static io.loomgmp.bridge.classfile.ClassReader.s4;
import static io.loomgmp.bridge.classfile.ClassReader.u2;

/**
 * Inserts guarded polls into a class file's bytes directly, at the loop headers that
 * {@link BackEdgeScan} found: the common case of the agent's preemption polls, without the
 * ClassFile API, whose generality costs a start-up mostly in the JIT compiling it (a Spring Boot
 * application compiled a fifth more bytecode with C2 with the ClassFile API doing the polls).
 *
 * <p><b>The poll.</b> Twelve bytes at each loop header (the target of a back-edge):
 * <pre>
 *   head: getstatic  #flag          // a static volatile int, non-zero while a request may be open
 *         ifeq       over           // nearly always taken: two instructions on the fast path
 *         invokestatic #poll        // a static ()V method: Gmp.checkpoint()V
 *         nop; nop; nop             // so that the poll is a multiple of 4 bytes (see below); skipped
 *   over: (the header's own instruction)
 * </pre>
 * Interpreted, a poll then costs a field read and a branch, not a call; compiled, the same as
 * the call was once inlined. The flag must be volatile (see {@code PendingPreemptions.count}):
 * a plain field could be read once before a compiled loop and never again.
 *
 * <p><b>Why at the header, not before the back-edge.</b> The guard's {@code over} is a branch
 * target and needs a StackMapTable frame, so the guard must go where the frame is known without a
 * type analysis: a loop header is a branch target, so it has a frame already (from version 50
 * on), and as the guard is stack-neutral the frame at {@code over} is that same frame. Before a
 * back-edge there is no frame (a conditional one has its operands on the stack, of types only an
 * analysis could tell). Every turn of a loop passes its header, so each turn still polls once, and
 * the back-edges that close one loop (a {@code continue}) share one poll; entering a loop polls
 * once more. The price, in compiled code: C2 sees the flag's volatile read before the loop's exit
 * test, which costs a loop it would unroll and vectorise more than a poll at the bottom did (JMH,
 * {@code PreemptionPollBenchmark}, an int array summed, 3 forks: 0.30 ns a turn without a poll,
 * 0.36 with the call before the back-edge, 0.50 with the guard at the header; a dependent xorshift
 * chain: no difference). A poll that replaced a {@code goto} back-edge in place,
 * {@code getstatic; ifeq head; invokestatic; goto head}, would need no new frame either (the
 * fast path jumps straight to the header's) and keep the read at the bottom: the next step.
 * Every jump, frame, line, exception range or local variable range that pointed at a
 * header now points at its poll (the poll is in the header's line, its try block, its scope), so
 * a forward jump into the loop polls too.
 *
 * <p><b>What changes.</b> Twelve constant pool entries are appended (the method reference of the
 * poll and the field reference of its flag), and each method to poll gets its polls; twelve
 * bytes, a multiple of 4, so that the padding of {@code tableswitch} and {@code lookupswitch}
 * stays as it is. Every code offset is then moved: branch and switch offsets here, the rest by
 * {@link OffsetMover}, which also adds the frame at each {@code over}: a copy of the header's
 * frame, which precedes it, so a {@code same_frame} when the header's stack is empty (javac's
 * loops), a {@code same_locals_1_stack_item_frame} with one item, else a {@code full_frame} (the
 * header's is one too: no other kind has more stack items); at a
 * header at offset 0, whose frame is implicit (the method's arguments), a {@code same_frame}
 * against that implicit frame. {@code max_stack} grows where the header's stack was already full
 * ({@code getstatic} pushes one int); without a StackMapTable (before version 50) the depth at a
 * header is unknown, so it grows by one.
 *
 * <p><b>What it leaves to the ClassFile API</b> ({@link UnsupportedShape}): a method's code with
 * an attribute holding offsets that {@link OffsetMover} does not move, a branch whose 16-bit
 * offset would overflow, code that would outgrow 64 KiB, a constant pool that would outgrow 65535
 * entries, and a loop header without a frame in a method that has a StackMapTable (which would
 * not verify anyway).
 */
public final class PollWriter {
    /** getstatic #flag (3), ifeq +9 (3), invokestatic #poll (3), nop, nop, nop. */
    public static final int POLL_BYTES = 12;
    /** The poll's method type: no arguments, no result. */
    private static final String POLL_DESCRIPTOR = "()V";
    /** The flag's type. */
    private static final String FLAG_DESCRIPTOR = "I";
    private static final int CONSTANTS = 12;

    private final ClassReader in;
    private final byte[] bytes;
    private final int pollIndex;
    private final int flagIndex;

    private PollWriter(ClassReader in, int pollIndex, int flagIndex) {
        this.in = in;
        this.bytes = in.bytes;
        this.pollIndex = pollIndex;
        this.flagIndex = flagIndex;
    }

    /**
     * The class with a guarded poll, {@code getstatic flagOwner.flagName:I; ifeq over;
     * invokestatic owner.name()V; over:}, at each loop header of the given methods.
     *
     * @param scan      the scan of {@code classBytes}
     * @param methods   the methods to poll, among {@code scan.looping()}
     * @param owner     the poll's class, an internal name ({@code io/loomgmp/bridge/Gmp})
     * @param flagOwner the class of the flag, a static int field, an internal name
     * @throws UnsupportedShape if the class has a shape this writer leaves to the ClassFile API
     * @throws MalformedClassException if the bytes are malformed where it reads them
     */
    public static byte[] insert(byte[] classBytes, BackEdgeScan.Result scan, List<BackEdgeScan.Method> methods,
                                String owner, String name, String flagOwner, String flagName) {
        ClassReader in = scan.classFile;
        if (in.bytes != classBytes) {
            throw new IllegalArgumentException("the scan is of other bytes");
        }
        int count = in.constantCount();
        if (count + CONSTANTS > 0xFFFF) {
            throw new UnsupportedShape("the constant pool would outgrow 65535 entries");
        }
        PollWriter writer = new PollWriter(in, count + 5, count + 11);
        int headers = 0;
        for (BackEdgeScan.Method method : methods) {
            headers += method.loopHeaders();
        }
        // Room for the polls, the constants and frames: one buffer, written once and copied once.
        ClassBytesOutput out = new ClassBytesOutput(classBytes.length + 256 + (POLL_BYTES + 4) * headers);
        out.bytes(classBytes, 0, 8);
        out.u2(count + CONSTANTS);
        out.bytes(classBytes, 10, in.constantPoolEnd() - 10);
        appendReferences(out, count, owner, name, flagOwner, flagName);
        int copied = in.constantPoolEnd();
        for (BackEdgeScan.Method method : methods) { // in class-file order, as the scan lists them
            int attribute = method.codeAttribute();
            if (attribute < copied) {
                throw new IllegalArgumentException("methods not in class-file order");
            }
            out.bytes(classBytes, copied, attribute - copied);
            copied = writer.rewriteCode(out, method);
        }
        out.bytes(classBytes, copied, classBytes.length - copied);
        return out.toByteArray();
    }

    /**
     * Entries {@code first} to {@code first + 11}: {@code first + 5} is the poll's method
     * reference, {@code first + 11} the flag's field reference.
     */
    private static void appendReferences(ClassBytesOutput out, int first, String owner, String name,
                                         String flagOwner, String flagName) {
        out.utf8Entry(owner);
        out.u1(PoolEntry.TAG_CLASS).u2(first);
        out.utf8Entry(name);
        out.utf8Entry(POLL_DESCRIPTOR);
        out.u1(PoolEntry.TAG_NAME_AND_TYPE).u2(first + 2).u2(first + 3);
        out.u1(PoolEntry.TAG_METHODREF).u2(first + 1).u2(first + 4);
        out.utf8Entry(flagOwner);
        out.u1(PoolEntry.TAG_CLASS).u2(first + 6);
        out.utf8Entry(flagName);
        out.utf8Entry(FLAG_DESCRIPTOR);
        out.u1(PoolEntry.TAG_NAME_AND_TYPE).u2(first + 8).u2(first + 9);
        out.u1(PoolEntry.TAG_FIELDREF).u2(first + 7).u2(first + 10);
    }

    /**
     * Writes {@code method}'s Code attribute with polls; returns the offset just past the
     * original attribute.
     */
    private int rewriteCode(ClassBytesOutput out, BackEdgeScan.Method method) {
        int attribute = method.codeAttribute();
        int codeLength = in.codeLength(attribute);
        int codeStart = ClassReader.codeStart(attribute);
        int codeEnd = codeStart + codeLength;
        int[] headers = BackEdgeScan.loopHeaders(bytes, codeStart, codeEnd, method.backEdges());
        if (headers.length == 0 || headers[0] < 0) {
            throw new MalformedClassException("a back-edge before the code's start");
        }
        int newCodeLength = codeLength + POLL_BYTES * headers.length;
        if (newCodeLength > 0xFFFF) {
            throw new UnsupportedShape("the code would outgrow 64 KiB");
        }
        Polls offsets = new Polls(headers);

        out.u2(u2(bytes, attribute)); // the name
        int lengthAt = out.size();
        out.u4(0); // the attribute's length, set once its content is written
        int maxStackAt = out.size();
        out.bytes(bytes, attribute + 6, 4); // max_stack (set below), max_locals
        out.u4(newCodeLength);
        writeCode(out, codeStart, codeEnd, offsets);
        OffsetMover.moveCodeTail(in, attribute, offsets, null, -1, method.nameAndType(), out);
        // getstatic pushes one int on the header's stack: known from its frame, else at most max_stack.
        int maxStack = u2(bytes, attribute + 6);
        int needed = in.hasStackMapTable(attribute) ? offsets.headerStack + 1 : maxStack + 1;
        out.u2At(maxStackAt, Math.min(0xFFFF, Math.max(maxStack, needed)));
        out.u4At(lengthAt, out.size() - lengthAt - 4);
        return in.attributeEnd(attribute);
    }

    private void writeCode(ClassBytesOutput body, int codeStart, int codeEnd, Polls offsets) {
        int[] headers = offsets.headers;
        int next = 0; // the next header to write a poll at
        for (int at = codeStart; at < codeEnd; ) {
            int size = Bytecode.instructionSize(bytes, codeStart, at, codeEnd);
            int pc = at - codeStart;
            int newPc = offsets.instruction(pc);
            int opcode = bytes[at] & 0xFF;
            if (next < headers.length && headers[next] == pc) {
                next++;
                body.u1(Bytecode.GETSTATIC).u2(flagIndex)
                        .u1(Bytecode.IFEQ).u2(POLL_BYTES - 3) // to over, just past the poll
                        .u1(Bytecode.INVOKESTATIC).u2(pollIndex)
                        .u1(Bytecode.NOP).u1(Bytecode.NOP).u1(Bytecode.NOP);
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
        if (next != headers.length) {
            throw new MalformedClassException("a back-edge into the middle of an instruction");
        }
    }

    /**
     * Where old code offsets go once the polls are in. Invariant: {@code headers} is ascending;
     * the instruction at old offset {@code x} moves by 12 for each header before it, and by 12
     * more if it is a header itself (its poll comes first); a jump, a frame, a line or a range
     * that pointed at {@code x} points at what now comes first there: the poll, for a header.
     */
    static final class Polls extends OffsetMover.Offsets {
        final int[] headers;
        /** The most stack slots of a header's frame; set by {@link OffsetMover} as it copies the frames. */
        int headerStack;

        Polls(int[] headers) {
            this.headers = headers;
        }

        @Override
        int moved(int x) {
            int before = Arrays.binarySearch(headers, x);
            return x + POLL_BYTES * (before >= 0 ? before : -before - 1);
        }

        /** The new offset of the instruction at old offset {@code x} itself. */
        @Override
        int instruction(int x) {
            return moved(x) + (isHeader(x) ? POLL_BYTES : 0);
        }

        @Override
        boolean isHeader(int x) {
            return Arrays.binarySearch(headers, x) >= 0;
        }

        @Override
        int headerCount() {
            return headers.length;
        }

        @Override
        int pollBytes() {
            return POLL_BYTES;
        }

        @Override
        void headerFrame(int stackSlots) {
            headerStack = Math.max(headerStack, stackSlots);
        }
    }
}
