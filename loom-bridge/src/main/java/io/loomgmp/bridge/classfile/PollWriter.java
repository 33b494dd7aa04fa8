package io.loomgmp.bridge.classfile;

import java.lang.classfile.constantpool.PoolEntry;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static io.loomgmp.bridge.classfile.ClassReader.s4;
import static io.loomgmp.bridge.classfile.ClassReader.u2;

/**
 * Inserts guarded polls into a class file's bytes directly, where {@link BackEdgeScan} found the
 * back-edges: the common case of the agent's preemption polls, without the ClassFile API, whose
 * generality costs a start-up mostly in the JIT compiling it (a Spring Boot application compiled
 * a fifth more bytecode with C2 with the ClassFile API doing the polls).
 *
 * <p><b>The poll</b>, twelve bytes, in one of two places. A {@code goto} back-edge (javac closes
 * every {@code for} and {@code while} loop with one) is replaced by its poll:
 * <pre>
 *         getstatic  #flag          // a static volatile int, non-zero while a request may be open
 *         ifeq       head           // nearly always taken: straight back to the loop's header
 *         invokestatic #poll        // a static ()V method: Gmp.checkpoint()V
 *         nop; nop; nop             // so that the poll is a multiple of 4 bytes (see below)
 *         goto       head           // the original back-edge
 * </pre>
 * Every other loop (closed by a conditional branch or a {@code goto_w}: a do-while) gets it at its
 * header, the target of its back-edges, ahead of the header's own instruction:
 * <pre>
 *   head: getstatic  #flag
 *         ifeq       over
 *         invokestatic #poll
 *         nop; nop; nop
 *   over: (the header's own instruction)
 * </pre>
 * Interpreted, a poll costs a field read and a branch, not a call (in place of a {@code goto},
 * one instruction more than the loop had). The flag must be volatile (see
 * {@code PendingPreemptions.count}): a plain field could be read once before a compiled loop and
 * never again.
 *
 * <p><b>Why there.</b> A branch target needs a StackMapTable frame, and only where a frame is
 * known without a type analysis can the poll branch. In place of a {@code goto}, the fast path
 * branches to the {@code goto}'s own target, whose frame exists, and the call falls through to
 * the {@code goto}: no new frame at all. A conditional back-edge has its operands on the stack,
 * of types only an analysis could tell, so its poll goes to its target, the header, which has a
 * frame; as the guard is stack-neutral, the frame at {@code over} is the header's own (a copy,
 * below). Every turn of a loop passes its back-edge and its header, so each turn polls once. A
 * {@code goto} back to a header that gets a poll anyway (a {@code continue} in a do-while) keeps
 * no poll of its own. In place of the {@code goto}, the fast path is also one instruction
 * shorter than at the header (the {@code goto} is not run), and the read stays where the call
 * was. Compiled, either guard is the inlined call's own code; measured (an int array summed, a
 * turn): standalone, 0.275 ns with the call before the back-edge, 0.278 with the guard; in JMH
 * ({@code PreemptionPollBenchmark}) 0.30 and 0.43, at the header or at the bottom alike, a
 * difference not understood yet. Every jump, frame, line, exception range or local variable range that pointed at a
 * header or a replaced {@code goto} now points at its poll (which is in the header's or the
 * {@code goto}'s line, its try block, its scope), so a forward jump into the loop polls too.
 *
 * <p><b>What changes.</b> Twelve constant pool entries are appended (the method reference of the
 * poll and the field reference of its flag), and each method to poll gets its polls; each adds
 * twelve bytes, a multiple of 4, so that the padding of {@code tableswitch} and {@code lookupswitch}
 * stays as it is. Every code offset is then moved: branch and switch offsets here, the rest by
 * {@link OffsetMover}, which also adds the frame at each {@code over}: a copy of the header's
 * frame, which precedes it, so a {@code same_frame} when the header's stack is empty (javac's
 * loops), a {@code same_locals_1_stack_item_frame} with one item, else a {@code full_frame} (the
 * header's is one too: no other kind has more stack items); at a
 * header at offset 0, whose frame is implicit (the method's arguments), a {@code same_frame}
 * against that implicit frame. {@code max_stack} grows where the header's stack was already full
 * ({@code getstatic} pushes one int; at a replaced {@code goto} the stack is its target's);
 * without a StackMapTable (before version 50) the depth is unknown, so it grows by one.
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
     * The class with a guarded poll on each loop of the given methods: in place of a {@code goto}
     * back-edge, {@code getstatic flagOwner.flagName:I; ifeq head; invokestatic owner.name()V;
     * goto head}, else at the loop's header, {@code getstatic ...; ifeq over; invokestatic ...;
     * over:} (see the class comment).
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
            headers += method.polls();
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
     * {@link #insert}, or where it leaves the class's shape alone ({@link UnsupportedShape}), the
     * same polls at the same places through the ClassFile API ({@link ClassFileApiPolls}), counted
     * in {@code viaClassFileApi}: the one way the agent writes polls.
     *
     * @throws MalformedClassException if the bytes are malformed where it reads them
     * @throws IllegalArgumentException (among others) if the ClassFile API cannot parse or write them
     */
    public static byte[] write(byte[] classBytes, BackEdgeScan.Result scan, List<BackEdgeScan.Method> methods,
                               String owner, String name, String flagOwner, String flagName, AtomicLong viaClassFileApi) {
        try {
            return insert(classBytes, scan, methods, owner, name, flagOwner, flagName);
        } catch (UnsupportedShape e) {
            viaClassFileApi.incrementAndGet();
            Set<String> names = new HashSet<>(); // name + descriptor of each method to change
            for (BackEdgeScan.Method method : methods) {
                names.add(method.nameAndType());
            }
            return ClassFileApiPolls.insert(classBytes, names, owner, name, flagOwner, flagName);
        }
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
        int[][] plan = BackEdgeScan.plan(bytes, codeStart, codeEnd, method.backEdges());
        int[] headers = plan[0];
        int[] tails = plan[1];
        if (headers.length > 0 && headers[0] < 0) {
            throw new MalformedClassException("a back-edge before the code's start");
        }
        int newCodeLength = codeLength + POLL_BYTES * (headers.length + tails.length);
        if (newCodeLength > 0xFFFF) {
            throw new UnsupportedShape("the code would outgrow 64 KiB");
        }
        Polls offsets = new Polls(headers, tails, tailTargets(tails, codeStart));

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

    /** The distinct targets of the {@code goto} back-edges at {@code tails}, ascending. */
    private int[] tailTargets(int[] tails, int codeStart) {
        int[] targets = new int[tails.length];
        for (int i = 0; i < tails.length; i++) {
            targets[i] = Bytecode.branchTarget(bytes, codeStart + tails[i], tails[i]);
        }
        Arrays.sort(targets);
        return Arrays.stream(targets).distinct().toArray();
    }

    private void writeCode(ClassBytesOutput body, int codeStart, int codeEnd, Polls offsets) {
        int[] headers = offsets.headers;
        int[] tails = offsets.tails;
        int next = 0; // the next header to write a poll at
        int nextTail = 0; // the next goto to replace by a poll
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
            if (nextTail < tails.length && tails[nextTail] == pc) {
                // goto head -> getstatic #flag; ifeq head; invokestatic #poll; nop x 3; goto head
                nextTail++;
                int head = offsets.moved(pc + (short) u2(bytes, at + 1));
                int skip = head - (newPc + 3);
                int jump = head - (newPc + POLL_BYTES);
                if (skip != (short) skip || jump != (short) jump) {
                    throw new UnsupportedShape("a branch offset would outgrow 16 bits");
                }
                body.u1(Bytecode.GETSTATIC).u2(flagIndex)
                        .u1(Bytecode.IFEQ).u2(skip & 0xFFFF)
                        .u1(Bytecode.INVOKESTATIC).u2(pollIndex)
                        .u1(Bytecode.NOP).u1(Bytecode.NOP).u1(Bytecode.NOP)
                        .u1(Bytecode.GOTO).u2(jump & 0xFFFF);
                at += size;
                continue;
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
        if (next != headers.length || nextTail != tails.length) {
            throw new MalformedClassException("a back-edge into the middle of an instruction");
        }
    }

    /**
     * Where old code offsets go once the polls are in. Invariant: {@code headers} and
     * {@code tails} are ascending; the instruction at old offset {@code x} moves by 12 for each
     * header and each replaced {@code goto} before it, and by 12 more if it is a header itself
     * (its poll comes first); a jump, a frame, a line or a range that pointed at {@code x} points
     * at what now comes first there: the poll, for a header; a replaced {@code goto}'s poll starts
     * where it did.
     */
    static final class Polls extends OffsetMover.Offsets {
        final int[] headers;
        final int[] tails;
        private final int[] tailTargets;
        /** The most stack slots of a polled loop's header frame; set by {@link OffsetMover} as it moves the frames. */
        int headerStack;

        Polls(int[] headers, int[] tails, int[] tailTargets) {
            this.headers = headers;
            this.tails = tails;
            this.tailTargets = tailTargets;
        }

        @Override
        int moved(int x) {
            return x + POLL_BYTES * (before(headers, x) + before(tails, x));
        }

        /** How many of {@code sorted} are below {@code x}. */
        private static int before(int[] sorted, int x) {
            int at = Arrays.binarySearch(sorted, x);
            return at >= 0 ? at : -at - 1;
        }

        @Override
        boolean needsStack(int x) {
            return Arrays.binarySearch(tailTargets, x) >= 0;
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
