package io.loomgmp.bridge.classfile;

import static io.loomgmp.bridge.classfile.ClassReader.require;
import static io.loomgmp.bridge.classfile.ClassReader.s4;
import static io.loomgmp.bridge.classfile.ClassReader.u2;

/**
 * The JVM's instructions as the byte-level code here reads and writes them (JVMS 6.5): the
 * opcodes it names, each instruction's size, and which ones branch. The ClassFile API's
 * {@code Opcode} is an enum, whose first use loads classes in every start-up; these are
 * compile-time constants.
 */
public final class Bytecode {
    public static final int NOP = 0x00;
    public static final int ICONST_1 = 0x04;
    public static final int LLOAD_2 = 0x20;
    public static final int ALOAD = 0x19;
    public static final int ALOAD_0 = 0x2A;
    public static final int ALOAD_1 = 0x2B;
    public static final int POP = 0x57;
    public static final int DUP = 0x59;
    public static final int IINC = 0x84;
    public static final int IFEQ = 0x99;
    public static final int GOTO = 0xA7;
    public static final int JSR = 0xA8;
    public static final int TABLESWITCH = 0xAA;
    public static final int LOOKUPSWITCH = 0xAB;
    public static final int IRETURN = 0xAC;
    public static final int ARETURN = 0xB0;
    public static final int GETSTATIC = 0xB2;
    public static final int GETFIELD = 0xB4;
    public static final int INVOKESTATIC = 0xB8;
    public static final int INVOKEINTERFACE = 0xB9;
    public static final int CHECKCAST = 0xC0;
    public static final int WIDE = 0xC4;
    public static final int IFNULL = 0xC6;
    public static final int IFNONNULL = 0xC7;
    public static final int GOTO_W = 0xC8;
    public static final int JSR_W = 0xC9;

    private Bytecode() {
    }

    /**
     * The size of the instruction at {@code at} of the code that spans {@code [codeStart, codeEnd)}
     * of {@code bytes}.
     *
     * @throws MalformedClassException if it is no instruction or runs past the code's end
     */
    static int instructionSize(byte[] bytes, int codeStart, int at, int codeEnd) {
        int opcode = bytes[at] & 0xFF;
        int size;
        if (opcode == TABLESWITCH || opcode == LOOKUPSWITCH) {
            int operands = operandsOfSwitch(codeStart, at);
            // tableswitch: default, low, high; lookupswitch: default, npairs (which may be 0).
            require(operands + (opcode == TABLESWITCH ? 12 : 8) <= codeEnd, "switch past the end of the code");
            long entries = opcode == TABLESWITCH
                    ? (long) s4(bytes, operands + 8) - s4(bytes, operands + 4) + 1 // high - low + 1 jump offsets
                    : 2L * s4(bytes, operands + 4); // match-offset pairs
            long next = opcode == TABLESWITCH ? operands + 12 + 4 * entries : operands + 8 + 4 * entries;
            require(entries >= 0 && next <= codeEnd, "switch past the end of the code");
            size = (int) next - at;
        } else if (opcode == WIDE) { // iinc takes 6 bytes, a load, store or ret 4
            require(at + 2 <= codeEnd, "wide past the end of the code");
            size = (bytes[at + 1] & 0xFF) == IINC ? 6 : 4;
        } else {
            size = SIZES[opcode];
            if (size <= 0) { // tested before the message is built: this runs for every instruction
                throw new MalformedClassException("undefined opcode " + opcode);
            }
        }
        require(size <= codeEnd - at, "an instruction runs past the end of the code");
        return size;
    }

    /** Where a switch's operands start: after padding to a multiple of 4 from the code's start. */
    static int operandsOfSwitch(int codeStart, int at) {
        return codeStart + ((at - codeStart + 4) & ~3);
    }

    /**
     * Whether the instruction at {@code at} (whole, see {@link #instructionSize}) is a back-edge:
     * a conditional branch, {@code goto} or {@code goto_w} to an offset at or before its own.
     */
    static boolean isBackEdge(byte[] bytes, int at) {
        int opcode = bytes[at] & 0xFF;
        if (isShortBranch(opcode) && opcode != JSR) {
            return (short) u2(bytes, at + 1) <= 0;
        }
        return opcode == GOTO_W && s4(bytes, at + 1) <= 0;
    }

    /**
     * The target of the branch at {@code at} (a short branch or {@code goto_w}), as an offset from
     * the code's start; {@code pc} is the branch's own offset from there.
     */
    static int branchTarget(byte[] bytes, int at, int pc) {
        return (bytes[at] & 0xFF) == GOTO_W ? pc + s4(bytes, at + 1) : pc + (short) u2(bytes, at + 1);
    }

    /** {@code if*}, {@code goto}, {@code jsr}, {@code ifnull}, {@code ifnonnull}: a 16-bit offset follows. */
    static boolean isShortBranch(int opcode) {
        return (opcode >= IFEQ && opcode <= JSR) || opcode == IFNULL || opcode == IFNONNULL;
    }

    /**
     * Instruction sizes by opcode, for those of fixed size (switches and {@code wide} are sized
     * where read); 0 for the opcodes that JVMS 6.5 does not define.
     */
    private static final byte[] SIZES = new byte[256];

    static {
        for (int op = NOP; op <= JSR_W; op++) {
            SIZES[op] = 1;
        }
        for (int op : new int[] {0x10, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3A, 0xA9, 0xBC}) {
            SIZES[op] = 2; // bipush, ldc, the loads and stores with an index, ret, newarray
        }
        for (int op : new int[] {0x11, 0x13, 0x14, 0x84, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xBB, 0xBD,
                0xC0, 0xC1}) {
            SIZES[op] = 3; // sipush, ldc_w, ldc2_w, iinc, field and invoke refs, new, anewarray, checkcast, instanceof
        }
        SIZES[INVOKEINTERFACE] = 5;
        SIZES[0xBA] = 5; // invokedynamic
        SIZES[0xC5] = 4; // multianewarray
        for (int op = IFEQ; op <= JSR; op++) {
            SIZES[op] = 3; // if*, goto, jsr
        }
        SIZES[IFNULL] = 3;
        SIZES[IFNONNULL] = 3;
        SIZES[GOTO_W] = 5;
        SIZES[JSR_W] = 5;
        SIZES[TABLESWITCH] = 0; // sized where read, as is wide
        SIZES[LOOKUPSWITCH] = 0;
        SIZES[WIDE] = 0;
    }
}
