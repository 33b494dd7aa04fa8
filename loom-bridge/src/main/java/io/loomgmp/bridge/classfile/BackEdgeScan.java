package io.loomgmp.bridge.classfile;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the methods of a class file that have a back-edge, reading its bytes directly: the cheap
 * first look that {@link PreemptionPolls} takes at every class it may instrument. Most classes
 * have no loop, and for them the ClassFile API (a full parse, and the hundred-odd classes of the
 * API itself on first use) is never touched.
 *
 * <p>From class-file version 51 on, the verifier needs a StackMapTable frame at every branch
 * target, so a method's code without that attribute has no loop, and its instructions are not
 * walked: most methods (accessors, straight-line code) are skipped that way. (Generated code
 * that breaks the rule runs only unverified; its loops stay unpolled.)
 *
 * <p>A back-edge here is what it is to {@link PreemptionPolls.BackEdges}: a conditional branch
 * ({@code if*}, {@code ifnull}, {@code ifnonnull}), {@code goto} or {@code goto_w} whose target is
 * at or before the branch itself (a branch to itself is a loop too). Switches, exception edges and
 * {@code jsr} are not, as there. Only what locating the methods' {@code Code} attributes and
 * stepping through their instructions needs is read; nothing is verified beyond that.
 *
 * <p>The bytes are untrusted: a class file that is truncated or malformed where the scan reads it
 * raises {@link MalformedClassException} (never an index error), and the caller leaves the class
 * alone. Stateless; any thread may call it.
 */
public final class BackEdgeScan {
    /**
     * A method with back-edges: its name and descriptor ({@code run()V}), code length, back-edge
     * count, and the offset in the class file of its {@code Code} attribute (its name index).
     */
    public record Method(String nameAndType, int codeLength, int backEdges, int codeAttribute) {
    }

    /**
     * What the scan found: the offset of each constant pool entry's tag by index (0 for index 0
     * and the slot after a long or double; its length is the pool's entry count), where the pool
     * ends, and the methods with back-edges.
     */
    public record Result(int[] constantPoolEntries, int constantPoolEnd, List<Method> looping) {
    }

    /** Where each constant pool entry's tag is, by index (see {@link #readConstantPool}), and where the pool ends. */
    record ConstantPool(int[] entries, int end) {
    }

    /** The bytes are not a class file this scan can walk. */
    public static final class MalformedClassException extends RuntimeException {
        MalformedClassException(String message) {
            super(message);
        }
    }

    private static final int MAGIC = 0xCAFEBABE;
    private static final byte[] CODE = {'C', 'o', 'd', 'e'};
    private static final byte[] STACK_MAP_TABLE = "StackMapTable".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final byte[] bytes;
    private int pos;
    /** Offset of each constant pool entry's tag, by index; 0 for the unusable slot after a long or double. */
    private int[] entries;

    private BackEdgeScan(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * The methods of {@code classBytes} that have at least one back-edge, in class-file order;
     * empty if none has.
     *
     * @throws MalformedClassException if the bytes are not a class file that can be walked
     */
    public static List<Method> methodsWithBackEdges(byte[] classBytes) {
        return scan(classBytes).looping();
    }

    /**
     * The whole result of the scan (see {@link #methodsWithBackEdges}).
     *
     * @throws MalformedClassException if the bytes are not a class file that can be walked
     */
    public static Result scan(byte[] classBytes) {
        return new BackEdgeScan(classBytes).scan();
    }

    private Result scan() {
        if (u4() != MAGIC) {
            throw new MalformedClassException("not a class file (bad magic number)");
        }
        pos += 2; // minor version
        // From version 51 (Java 7) every branch target has a StackMapTable frame (the verifier
        // has no fallback to inference any more): code without one has no loop to poll.
        boolean framesRequired = u2() >= 51;
        ConstantPool pool = readConstantPool(bytes);
        entries = pool.entries();
        pos = pool.end();
        int constantPoolEnd = pos;
        pos += 6; // access flags, this class, super class
        skip(2 * u2()); // interfaces
        for (int fields = u2(); fields > 0; fields--) {
            pos += 6; // access flags, name, descriptor
            skipAttributes();
        }
        List<Method> looping = new ArrayList<>(0);
        for (int methods = u2(); methods > 0; methods--) {
            pos += 2; // access flags
            int name = u2();
            int descriptor = u2();
            for (int attributes = u2(); attributes > 0; attributes--) {
                int attribute = pos;
                int attributeName = u2();
                int length = u4();
                require(length >= 0 && length <= bytes.length - pos, "attribute past the end"); // no int overflow
                int end = pos + length;
                if (isUtf8(attributeName, CODE)) {
                    pos += 4; // max stack, max locals
                    int codeLength = u4();
                    require(codeLength >= 0 && codeLength <= end - pos, "code past the end of its attribute");
                    int backEdges = framesRequired && !hasStackMapTable(pos + codeLength, end)
                            ? 0 : countBackEdges(pos, codeLength);
                    if (backEdges > 0) {
                        looping.add(new Method(utf8(name) + utf8(descriptor), codeLength, backEdges, attribute));
                    }
                }
                pos = end;
            }
        }
        skipAttributes(); // the class's own: walked so that a truncated class file is seen as one
        require(pos == bytes.length, "bytes after the end of the class file");
        return new Result(entries, constantPoolEnd, looping);
    }

    /**
     * Where each constant pool entry of a class file starts (the offset of its tag, by index; 0
     * for index 0 and the slot after a long or double) and where the pool ends. Shared by this
     * scan and {@link ClassPatch}.
     *
     * @throws MalformedClassException if the pool is truncated or has an unknown tag
     */
    static ConstantPool readConstantPool(byte[] bytes) {
        require(bytes.length >= 10, "truncated");
        int count = u2(bytes, 8);
        int[] entries = new int[count];
        int pos = 10;
        for (int i = 1; i < count; i++) {
            require(pos < bytes.length, "constant pool past the end");
            entries[i] = pos;
            int tag = bytes[pos++] & 0xFF;
            switch (tag) {
                case 1 -> { // Utf8
                    require(pos + 2 <= bytes.length, "constant pool past the end");
                    pos += 2 + u2(bytes, pos);
                }
                case 3, 4 -> pos += 4; // Integer, Float
                case 5, 6 -> { // Long, Double: two slots
                    pos += 8;
                    i++;
                }
                case 7, 8, 16, 19, 20 -> pos += 2; // Class, String, MethodType, Module, Package
                case 15 -> pos += 3; // MethodHandle
                case 9, 10, 11, 12, 17, 18 -> pos += 4; // refs, NameAndType, Dynamic, InvokeDynamic
                default -> throw new MalformedClassException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        require(pos <= bytes.length, "constant pool past the end");
        return new ConstantPool(entries, pos);
    }

    /**
     * Whether the code attribute's own attributes, after its code at {@code codeEnd} and up to
     * {@code end}, include a StackMapTable. Most methods (accessors, straight-line code) have
     * none, and their instructions need not be walked at all.
     */
    private boolean hasStackMapTable(int codeEnd, int end) {
        int at = codeEnd;
        require(at + 2 <= end, "code attribute truncated");
        at += 2 + 8 * u2(bytes, at); // the exception table
        require(at + 2 <= end, "code attribute truncated");
        int attributes = u2(bytes, at);
        at += 2;
        for (int i = 0; i < attributes; i++) {
            require(at + 6 <= end, "code attribute truncated");
            int length = s4(bytes, at + 2);
            require(length >= 0 && length <= end - at - 6, "attribute past the end of the code attribute");
            if (isUtf8(u2(bytes, at), STACK_MAP_TABLE)) {
                return true;
            }
            at += 6 + length;
        }
        return false;
    }

    private void skipAttributes() {
        for (int attributes = u2(); attributes > 0; attributes--) {
            pos += 2;
            int length = u4();
            require(length >= 0 && length <= bytes.length - pos, "attribute past the end");
            pos += length;
        }
    }

    /** Steps through one method's instructions; throws if one runs past the code's end. */
    private int countBackEdges(int start, int length) {
        int end = start + length;
        int count = 0;
        for (int at = start; at < end; at += instructionSize(bytes, start, at, end)) {
            count += isBackEdge(bytes, at) ? 1 : 0;
        }
        return count;
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
        if (opcode == 0xAA || opcode == 0xAB) { // tableswitch, lookupswitch
            int operands = operandsOfSwitch(codeStart, at);
            require(operands + 12 <= codeEnd, "switch past the end of the code");
            long entries = opcode == 0xAA
                    ? (long) s4(bytes, operands + 8) - s4(bytes, operands + 4) + 1 // high - low + 1 jump offsets
                    : 2L * s4(bytes, operands + 4); // match-offset pairs
            long next = opcode == 0xAA ? operands + 12 + 4 * entries : operands + 8 + 4 * entries;
            require(entries >= 0 && next <= codeEnd, "switch past the end of the code");
            size = (int) next - at;
        } else if (opcode == 0xC4) { // wide: iinc takes 6 bytes, a load, store or ret 4
            require(at + 2 <= codeEnd, "wide past the end of the code");
            size = (bytes[at + 1] & 0xFF) == 0x84 ? 6 : 4;
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

    /** Whether the instruction at {@code at} (whole, see {@link #instructionSize}) is a back-edge. */
    static boolean isBackEdge(byte[] bytes, int at) {
        int opcode = bytes[at] & 0xFF;
        if (isShortBranch(opcode) && opcode != 0xA8) {
            return (short) u2(bytes, at + 1) <= 0;
        }
        return opcode == 0xC8 && s4(bytes, at + 1) <= 0; // goto_w
    }

    /** {@code if*}, {@code goto}, {@code jsr}, {@code ifnull}, {@code ifnonnull}: a 16-bit offset follows. */
    static boolean isShortBranch(int opcode) {
        return (opcode >= 0x99 && opcode <= 0xA8) || opcode == 0xC6 || opcode == 0xC7;
    }

    /**
     * Instruction sizes by opcode, for those of fixed size (switches and {@code wide} are sized
     * where read); 0 for the opcodes that JVMS 6.5 does not define.
     */
    private static final byte[] SIZES = new byte[256];

    static {
        for (int op = 0x00; op <= 0xC9; op++) {
            SIZES[op] = 1;
        }
        for (int op : new int[] {0x10, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3A, 0xA9, 0xBC}) {
            SIZES[op] = 2; // bipush, ldc, the loads and stores with an index, ret, newarray
        }
        for (int op : new int[] {0x11, 0x13, 0x14, 0x84, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xBB, 0xBD,
                0xC0, 0xC1}) {
            SIZES[op] = 3; // sipush, ldc_w, ldc2_w, iinc, field and invoke refs, new, anewarray, checkcast, instanceof
        }
        SIZES[0xB9] = 5; // invokeinterface
        SIZES[0xBA] = 5; // invokedynamic
        SIZES[0xC5] = 4; // multianewarray
        for (int op = 0x99; op <= 0xA8; op++) {
            SIZES[op] = 3; // if*, goto, jsr
        }
        SIZES[0xC6] = 3; // ifnull
        SIZES[0xC7] = 3; // ifnonnull
        SIZES[0xC8] = 5; // goto_w
        SIZES[0xC9] = 5; // jsr_w
        SIZES[0xAA] = 0; // tableswitch, lookupswitch and wide: sized where read
        SIZES[0xAB] = 0;
        SIZES[0xC4] = 0;
    }

    /** Whether constant pool entry {@code index} is a Utf8 entry holding exactly {@code expected}. */
    private boolean isUtf8(int index, byte[] expected) {
        int at = utf8Offset(index);
        int length = ((bytes[at + 1] & 0xFF) << 8) | (bytes[at + 2] & 0xFF);
        if (length != expected.length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (bytes[at + 3 + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private String utf8(int index) {
        int at = utf8Offset(index);
        int length = ((bytes[at + 1] & 0xFF) << 8) | (bytes[at + 2] & 0xFF);
        return ClassBytesOutput.utf8(bytes, at + 3, length); // within the pool: readConstantPool checked it
    }

    private int utf8Offset(int index) {
        if (index <= 0 || index >= entries.length || entries[index] == 0) { // message built on failure only
            throw new MalformedClassException("no constant pool entry " + index);
        }
        int at = entries[index];
        if (bytes[at] != 1) {
            throw new MalformedClassException("constant pool entry " + index + " is not a Utf8 entry");
        }
        return at;
    }

    /**
     * Moves past {@code n} bytes. (Not {@code pos += u2()}: Java reads {@code pos} before the call
     * advances it.)
     */
    private void skip(int n) {
        pos += n;
    }

    private int u2() {
        require(pos + 2 <= bytes.length, "truncated");
        int value = ((bytes[pos] & 0xFF) << 8) | (bytes[pos + 1] & 0xFF);
        pos += 2;
        return value;
    }

    /** Reads 4 bytes as a signed int (a length above 2 GiB comes out negative and is refused by the caller). */
    private int u4() {
        require(pos + 4 <= bytes.length, "truncated");
        int value = s4(bytes, pos);
        pos += 4;
        return value;
    }

    static int s4(byte[] bytes, int at) {
        return ((bytes[at] & 0xFF) << 24) | ((bytes[at + 1] & 0xFF) << 16) | ((bytes[at + 2] & 0xFF) << 8) | (bytes[at + 3] & 0xFF);
    }

    static int u2(byte[] bytes, int at) {
        return ((bytes[at] & 0xFF) << 8) | (bytes[at + 1] & 0xFF);
    }

    /**
     * Throws {@link MalformedClassException} with {@code problem} unless {@code condition}. Only
     * for constant messages: one built with {@code +} would be built on every call, and these
     * run for every instruction of every class loaded; test first and build it on failure.
     */
    static void require(boolean condition, String problem) {
        if (!condition) {
            throw new MalformedClassException(problem);
        }
    }
}
