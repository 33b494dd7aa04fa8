package io.loomgmp.bridge.classfile;

import java.util.ArrayList;
import java.util.List;

import static io.loomgmp.bridge.classfile.BackEdgeScan.instructionSize;
import static io.loomgmp.bridge.classfile.BackEdgeScan.require;
import static io.loomgmp.bridge.classfile.BackEdgeScan.s4;
import static io.loomgmp.bridge.classfile.BackEdgeScan.u2;

/**
 * The few exact edits the agent makes to JDK classes at start-up, done on the class file's bytes:
 * constant pool entries appended, one instruction replaced by another of the same size, and code
 * put in front of a method's body. The ClassFile API does this generally, but its first use in a
 * JVM costs about 40 ms of start-up (two hundred classes loaded, then run cold), for three edits.
 *
 * <p><b>Appending constants</b> moves nothing: everything else in a class file refers to the
 * pool by index. <b>Replacing</b> an instruction by one of the same size moves nothing either.
 * <b>A prefix</b> of {@code n} bytes, a multiple of 4 so that the padding of {@code tableswitch}
 * and {@code lookupswitch} stays right, moves every code offset of the method by {@code n}:
 * branch offsets are relative and stay; the exception table, the line numbers, the local
 * variable ranges (those that start at 0 keep starting there, now covering the prefix too), the
 * StackMapTable's first frame and its {@code Uninitialized} offsets move. The prefix's own branch
 * target gets a frame, given by the caller, placed first. A method's code with any other
 * attribute that holds offsets (type annotations on code, attributes this class does not know)
 * is refused with {@link Unsupported}.
 *
 * <p>The input is the JDK's own class, but read as untrusted all the same: malformed bytes raise
 * {@link BackEdgeScan.MalformedClassException}, never an index error. Not thread-safe: one patch
 * per transformation.
 */
public final class ClassPatch {
    /** A shape this class does not edit; nothing is wrong with the class. */
    public static final class Unsupported extends RuntimeException {
        public Unsupported(String why) {
            super(why);
        }
    }

    /**
     * A method: its access flags, name, descriptor, and the offset of its {@code Code} attribute
     * (of the attribute's name index), or -1 if it has none.
     */
    public record Method(int access, String name, String descriptor, int code) {
        public boolean isStatic() {
            return (access & ACC_STATIC) != 0;
        }
    }

    static final int ACC_STATIC = 0x0008;
    static final int GETSTATIC = 0xB2;
    public static final int INVOKESTATIC = 0xB8;
    static final int INVOKEINTERFACE = 0xB9;
    private static final int TAG_UTF8 = 1; // written by ClassBytesOutput.utf8Entry
    private static final int TAG_CLASS = 7;
    private static final int TAG_FIELDREF = 9;
    private static final int TAG_METHODREF = 10;
    private static final int TAG_NAME_AND_TYPE = 12;
    private static final int TAG_INTERFACE_METHODREF = 11;

    private final byte[] bytes;
    /** Offset of each constant pool entry's tag, by index; 0 for index 0 and the slot after a long or double. */
    private final int[] entries;
    private final int constantPoolEnd;
    private final int thisClass;
    private final List<Method> methods = new ArrayList<>();
    private final ClassBytesOutput appended = new ClassBytesOutput(256);
    private int constantCount;
    /** Same-size replacements: offset, then bytes, in the order made. */
    private final List<Object[]> replacements = new ArrayList<>();
    /** Code attributes to write anew: the attribute's offset, then its new bytes. */
    private final List<Object[]> newCode = new ArrayList<>();

    private ClassPatch(byte[] bytes) {
        this.bytes = bytes;
        Reader in = new Reader(bytes);
        require(in.u4() == 0xCAFEBABE, "not a class file (bad magic number)");
        BackEdgeScan.ConstantPool pool = BackEdgeScan.readConstantPool(bytes);
        entries = pool.entries();
        constantCount = entries.length;
        constantPoolEnd = pool.end();
        in.pos = constantPoolEnd;
        in.pos += 2; // access flags
        thisClass = in.u2();
        in.pos += 2; // super class
        in.skip(2 * in.u2()); // interfaces
        for (int fields = in.u2(); fields > 0; fields--) {
            in.pos += 6;
            in.skipAttributes();
        }
        for (int count = in.u2(); count > 0; count--) {
            int access = in.u2();
            String name = utf8(in.u2());
            String descriptor = utf8(in.u2());
            int code = -1;
            for (int attributes = in.u2(); attributes > 0; attributes--) {
                int attribute = in.pos;
                String attributeName = utf8(in.u2());
                int length = in.u4();
                require(length >= 0 && length <= bytes.length - in.pos, "attribute past the end");
                if (attributeName.equals("Code")) {
                    code = attribute;
                }
                in.pos += length;
            }
            methods.add(new Method(access, name, descriptor, code));
        }
        in.skipAttributes();
        require(in.pos == bytes.length, "bytes after the end of the class file");
    }

    /**
     * Reads {@code classBytes}.
     *
     * @throws BackEdgeScan.MalformedClassException if they are not a class file that can be read
     */
    public static ClassPatch of(byte[] classBytes) {
        return new ClassPatch(classBytes);
    }

    public List<Method> methods() {
        return methods;
    }

    /**
     * The method {@code name} with {@code descriptor}, static or not as {@code isStatic} says, or
     * {@code null} if the class has none (a class file holds at most one method of a name and
     * descriptor).
     */
    public Method method(String name, String descriptor, boolean isStatic) {
        for (Method method : methods) {
            if (method.name().equals(name) && method.descriptor().equals(descriptor) && method.isStatic() == isStatic) {
                return method;
            }
        }
        return null;
    }

    /** This class's internal name ({@code java/lang/VirtualThread}). */
    public String className() {
        return className(thisClass);
    }

    /**
     * The offsets, in the class file, of the {@code getstatic} instructions in {@code method}'s
     * code that read field {@code owner.name}.
     */
    public List<Integer> staticReads(Method method, String owner, String name) {
        List<Integer> reads = new ArrayList<>(1);
        if (method.code() < 0) {
            return reads;
        }
        int codeStart = method.code() + 14; // name, length, max stack, max locals, code length
        int codeEnd = codeStart + s4(bytes, method.code() + 10);
        require(codeEnd <= bytes.length, "code past the end");
        for (int at = codeStart; at < codeEnd; at += instructionSize(bytes, codeStart, at, codeEnd)) {
            if ((bytes[at] & 0xFF) == GETSTATIC && isFieldref(u2(bytes, at + 1), owner, name)) {
                reads.add(at);
            }
        }
        return reads;
    }

    /**
     * The offsets, in the class file, of the {@code invokeinterface} instructions in
     * {@code method}'s code that call {@code owner.name} (any descriptor).
     */
    public List<Integer> interfaceCalls(Method method, String owner, String name) {
        List<Integer> calls = new ArrayList<>(1);
        if (method.code() < 0) {
            return calls;
        }
        int codeStart = method.code() + 14;
        int codeEnd = codeStart + s4(bytes, method.code() + 10);
        require(codeEnd <= bytes.length, "code past the end");
        for (int at = codeStart; at < codeEnd; at += instructionSize(bytes, codeStart, at, codeEnd)) {
            if ((bytes[at] & 0xFF) == INVOKEINTERFACE && isMemberRef(TAG_INTERFACE_METHODREF, u2(bytes, at + 1), owner, name)) {
                calls.add(at);
            }
        }
        return calls;
    }

    /**
     * Replaces the instruction at {@code at}, of {@code replacement.length} bytes, by the
     * instructions in {@code replacement}: nothing moves. The caller makes sure the stack effect
     * is the same and that no branch lands inside.
     */
    public void replaceSameSize(int at, byte[] replacement) {
        replacements.add(new Object[] {at, replacement.clone()});
    }

    /** Appends a {@code Methodref} (with its class, name-and-type and strings); returns its index. */
    public int methodref(String owner, String name, String descriptor) {
        return memberRef(TAG_METHODREF, owner, name, descriptor);
    }

    /** Appends a {@code Fieldref} (with its class, name-and-type and strings); returns its index. */
    public int fieldref(String owner, String name, String descriptor) {
        return memberRef(TAG_FIELDREF, owner, name, descriptor);
    }

    /** Appends a {@code Class} entry (and its name); returns its index. */
    public int classEntry(String internalName) {
        int name = utf8Entry(internalName);
        return append(TAG_CLASS, name, -1);
    }

    /** Replaces the 3-byte instruction at {@code at} by {@code opcode} with a 2-byte constant pool index. */
    public void replaceInstruction(int at, int opcode, int index) {
        replacements.add(new Object[] {at, new byte[] {(byte) opcode, (byte) (index >> 8), (byte) index}});
    }

    /**
     * Puts {@code prefix} in front of {@code method}'s code (a method whose code has no
     * replacement: the prefixed code is taken from the original bytes).
     *
     * @param prefix   the code; its length a multiple of 4; its branches stay inside it or go
     *                 to its end (the original code)
     * @param maxStack the operand stack the prefix needs
     * @param frame    the StackMapTable frame of the prefix's one branch target, encoded with
     *                 its offset as the delta (see {@link #sameFrame}, {@link #sameLocalsOneObject})
     * @throws Unsupported if the method's code has an attribute holding offsets this class does not move
     */
    public void prefix(Method method, byte[] prefix, int maxStack, byte[] frame) {
        require(prefix.length % 4 == 0, "a prefix's length must be a multiple of 4");
        int at = method.code();
        if (at < 0) {
            throw new Unsupported(method.name() + method.descriptor() + " has no code");
        }
        int frameOffset = frameOffset(frame);
        Reader in = new Reader(bytes);
        in.pos = at + 6;
        int oldMaxStack = in.u2();
        int maxLocals = in.u2();
        int codeLength = in.u4();
        int codeStart = in.pos;
        require(codeLength >= 0 && codeStart + codeLength <= bytes.length, "code past the end");
        in.pos += codeLength;
        ClassBytesOutput out = new ClassBytesOutput(codeLength + prefix.length + 256);
        out.u2(Math.max(oldMaxStack, maxStack));
        out.u2(maxLocals);
        out.u4(codeLength + prefix.length);
        out.bytes(prefix);
        out.bytes(bytes, codeStart, codeLength);
        int handlers = in.u2();
        out.u2(handlers);
        for (int i = 0; i < handlers; i++) {
            out.u2(in.u2() + prefix.length); // start
            out.u2(in.u2() + prefix.length); // end
            out.u2(in.u2() + prefix.length); // handler
            out.u2(in.u2()); // catch type
        }
        int attributes = in.u2();
        boolean frames = false;
        ClassBytesOutput rest = new ClassBytesOutput(256);
        for (int i = 0; i < attributes; i++) {
            int name = in.u2();
            int length = in.u4();
            require(length >= 0 && in.pos + length <= bytes.length, "attribute past the end");
            int end = in.pos + length;
            ClassBytesOutput moved = switch (utf8(name)) {
                case "StackMapTable" -> {
                    frames = true;
                    yield movedFrames(in, prefix.length, frame, frameOffset);
                }
                case "LineNumberTable" -> movedLines(in, prefix.length);
                case "LocalVariableTable", "LocalVariableTypeTable" -> movedLocals(in, prefix.length);
                default -> throw new Unsupported("the code of " + method.name() + method.descriptor()
                        + " has a " + utf8(name) + " attribute");
            };
            require(in.pos == end, "an attribute of the code is not as long as it says");
            rest.u2(name).u4(moved.size()).output(moved);
        }
        if (!frames) {
            // The prefix's branch target needs a frame of its own even where the body has none.
            rest.u2(utf8Entry("StackMapTable")).u4(2 + frame.length).u2(1).bytes(frame);
        }
        out.u2(attributes + (frames ? 0 : 1));
        out.output(rest);
        newCode.add(new Object[] {at, out.toByteArray()});
    }

    /** A {@code same_frame} at offset {@code offset} (the first frame of a table: the delta is the offset). */
    public static byte[] sameFrame(int offset) {
        require(offset <= 63, "a same_frame's offset is at most 63");
        return new byte[] {(byte) offset};
    }

    /**
     * A {@code same_locals_1_stack_item_frame} at offset {@code offset} (first in its table) whose
     * one stack item is an object of the class at constant pool index {@code classIndex}.
     */
    public static byte[] sameLocalsOneObject(int offset, int classIndex) {
        require(offset <= 63, "a same_locals_1_stack_item_frame's offset is at most 63");
        return new byte[] {(byte) (64 + offset), 7, (byte) (classIndex >> 8), (byte) classIndex};
    }

    /** The class file with every edit made. */
    public byte[] toBytes() {
        byte[] patched = bytes.clone();
        for (Object[] replacement : replacements) {
            byte[] instruction = (byte[]) replacement[1];
            System.arraycopy(instruction, 0, patched, (Integer) replacement[0], instruction.length);
        }
        require(constantCount <= 0xFFFF, "the constant pool would outgrow 65535 entries");
        ClassBytesOutput out = new ClassBytesOutput(bytes.length + appended.size() + 256);
        out.bytes(patched, 0, 8);
        out.u2(constantCount);
        out.bytes(patched, 10, constantPoolEnd - 10);
        out.output(appended);
        int from = constantPoolEnd;
        // In file order. (A loop, not a lambda: this runs in the JVM's start-up, where the first
        // lambda costs milliseconds.)
        for (int i = 1; i < newCode.size(); i++) {
            for (int j = i; j > 0 && (Integer) newCode.get(j - 1)[0] > (Integer) newCode.get(j)[0]; j--) {
                newCode.set(j, newCode.set(j - 1, newCode.get(j)));
            }
        }
        for (Object[] code : newCode) {
            int at = (Integer) code[0];
            byte[] body = (byte[]) code[1];
            out.bytes(patched, from, at + 2 - from); // up to and with the attribute's name index
            out.u4(body.length);
            out.bytes(body);
            from = at + 6 + s4(bytes, at + 2);
        }
        out.bytes(patched, from, patched.length - from);
        return out.toByteArray();
    }

    // --- moving offsets ---

    private static int frameOffset(byte[] frame) {
        int type = frame[0] & 0xFF;
        require(type <= 127, "the prefix's frame must be a same_frame or a same_locals_1_stack_item_frame");
        return type < 64 ? type : type - 64;
    }

    /** The StackMapTable with {@code frame} first and every frame moved by {@code shift}. */
    private ClassBytesOutput movedFrames(Reader in, int shift, byte[] frame, int frameOffset) {
        int count = in.u2();
        ClassBytesOutput out = new ClassBytesOutput(64 + 8 * count);
        out.u2(count + 1);
        out.bytes(frame);
        for (int i = 0; i < count; i++) {
            int type = in.u1();
            int delta;
            int stackItem = -1; // the kind of frame, for the re-encoding of the first one
            if (type < 64) {
                delta = type;
            } else if (type < 128) {
                delta = type - 64;
                stackItem = 1;
            } else {
                if (type < 247) {
                    throw new BackEdgeScan.MalformedClassException("reserved StackMapTable frame type " + type);
                }
                delta = in.u2();
            }
            if (i == 0) {
                // The first frame's delta is its offset; it now counts from the prefix's frame.
                delta = delta + shift - frameOffset - 1;
            }
            if (type < 128) {
                if (delta <= 63) {
                    out.u1((stackItem < 0 ? 0 : 64) + delta);
                } else {
                    out.u1(stackItem < 0 ? 251 : 247).u2(delta);
                }
                if (stackItem > 0) {
                    copyType(in, out, shift);
                }
            } else {
                out.u1(type).u2(delta);
                if (type == 247) {
                    copyType(in, out, shift);
                } else if (type >= 252 && type <= 254) {
                    for (int k = type - 251; k > 0; k--) {
                        copyType(in, out, shift);
                    }
                } else if (type == 255) {
                    int locals = in.u2();
                    out.u2(locals);
                    for (int k = 0; k < locals; k++) {
                        copyType(in, out, shift);
                    }
                    int stack = in.u2();
                    out.u2(stack);
                    for (int k = 0; k < stack; k++) {
                        copyType(in, out, shift);
                    }
                }
            }
        }
        return out;
    }

    /** Copies one verification type; an {@code Uninitialized} one holds the offset of its {@code new}. */
    private static void copyType(Reader in, ClassBytesOutput out, int shift) {
        int tag = in.u1();
        out.u1(tag);
        if (tag == 7) {
            out.u2(in.u2());
        } else if (tag == 8) {
            out.u2(in.u2() + shift);
        } else {
            if (tag > 6) {
                throw new BackEdgeScan.MalformedClassException("unknown verification type " + tag);
            }
        }
    }

    private static ClassBytesOutput movedLines(Reader in, int shift) {
        int count = in.u2();
        ClassBytesOutput out = new ClassBytesOutput(2 + 4 * count);
        out.u2(count);
        for (int i = 0; i < count; i++) {
            out.u2(in.u2() + shift);
            out.u2(in.u2());
        }
        return out;
    }

    private static ClassBytesOutput movedLocals(Reader in, int shift) {
        int count = in.u2();
        ClassBytesOutput out = new ClassBytesOutput(2 + 10 * count);
        out.u2(count);
        for (int i = 0; i < count; i++) {
            int start = in.u2();
            int length = in.u2();
            // A variable live from the start (this, the parameters) is live over the prefix too.
            out.u2(start == 0 ? 0 : start + shift);
            out.u2(start == 0 ? length + shift : length);
            out.u2(in.u2()).u2(in.u2()).u2(in.u2()); // name, descriptor or signature, slot
        }
        return out;
    }

    // --- the constant pool ---

    private int memberRef(int tag, String owner, String name, String descriptor) {
        int ownerClass = classEntry(owner);
        int nameAndType = append(TAG_NAME_AND_TYPE, utf8Entry(name), utf8Entry(descriptor));
        return append(tag, ownerClass, nameAndType);
    }

    private int utf8Entry(String value) {
        appended.utf8Entry(value);
        return constantCount++;
    }

    private int append(int tag, int first, int second) {
        appended.u1(tag).u2(first);
        if (second >= 0) {
            appended.u2(second);
        }
        return constantCount++;
    }

    private boolean isFieldref(int index, String owner, String name) {
        return isMemberRef(TAG_FIELDREF, index, owner, name);
    }

    private boolean isMemberRef(int tag, int index, String owner, String name) {
        int at = entry(index, tag);
        int nameAndType = entry(u2(bytes, at + 3), TAG_NAME_AND_TYPE);
        return className(u2(bytes, at + 1)).equals(owner) && utf8(u2(bytes, nameAndType + 1)).equals(name);
    }

    private String className(int index) {
        return utf8(u2(bytes, entry(index, TAG_CLASS) + 1));
    }

    private int entry(int index, int tag) {
        if (index <= 0 || index >= entries.length || entries[index] == 0) { // message built on failure only
            throw new BackEdgeScan.MalformedClassException("no constant pool entry " + index);
        }
        if (bytes[entries[index]] != tag) {
            throw new BackEdgeScan.MalformedClassException("constant pool entry " + index + " is not of tag " + tag);
        }
        return entries[index];
    }

    private String utf8(int index) {
        int at = entry(index, TAG_UTF8);
        int length = u2(bytes, at + 1);
        if (at + 3 + length > bytes.length) {
            throw new BackEdgeScan.MalformedClassException("constant pool entry " + index + " past the end");
        }
        return ClassBytesOutput.utf8(bytes, at + 3, length);
    }

    /** A cursor over the original bytes that refuses to read past their end. */
    private static final class Reader {
        private final byte[] bytes;
        int pos;

        Reader(byte[] bytes) {
            this.bytes = bytes;
        }

        int u1() {
            require(pos + 1 <= bytes.length, "truncated");
            return bytes[pos++] & 0xFF;
        }

        int u2() {
            require(pos + 2 <= bytes.length, "truncated");
            int value = BackEdgeScan.u2(bytes, pos);
            pos += 2;
            return value;
        }

        int u4() {
            require(pos + 4 <= bytes.length, "truncated");
            int value = s4(bytes, pos);
            pos += 4;
            return value;
        }

        /** Moves past {@code n} bytes. (Not {@code pos += u2()}: Java reads {@code pos} before the call advances it.) */
        void skip(int n) {
            pos += n;
        }

        void skipAttributes() {
            for (int attributes = u2(); attributes > 0; attributes--) {
                pos += 2;
                int length = u4();
                require(length >= 0 && length <= bytes.length - pos, "attribute past the end");
                pos += length;
            }
        }
    }

    @Override
    public String toString() {
        return "ClassPatch[" + className() + ", " + replacements.size() + " replacements, " + newCode.size()
                + " prefixes, " + constantCount + " constants]";
    }
}
