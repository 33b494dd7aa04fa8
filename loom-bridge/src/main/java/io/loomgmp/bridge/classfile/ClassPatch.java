package io.loomgmp.bridge.classfile;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.attribute.StackMapFrameInfo.VerificationTypeInfo;
import java.lang.classfile.constantpool.PoolEntry;
import java.util.ArrayList;
import java.util.List;

import static io.loomgmp.bridge.classfile.ClassReader.require;
import static io.loomgmp.bridge.classfile.ClassReader.s4;
import static io.loomgmp.bridge.classfile.ClassReader.u2;

/**
 * The few exact edits the agent makes to JDK classes at start-up, done on the class file's bytes:
 * constant pool entries appended, one instruction replaced by another of the same size, and code
 * put in front of a method's body. The ClassFile API does this generally, but its first use in a
 * JVM costs about 40 ms of start-up (two hundred classes loaded, then run cold), for three edits.
 *
 * <p><b>Appending constants</b> moves nothing: everything else in a class file refers to the
 * pool by index. <b>Replacing</b> an instruction by one of the same size moves nothing either.
 * <b>A prefix</b> of {@code n} bytes, a multiple of 4 so that the padding of {@code tableswitch}
 * and {@code lookupswitch} stays right, moves every code offset of the method by {@code n}
 * ({@link OffsetMover}): branch offsets are relative and stay; the exception table, the line
 * numbers, the local variable ranges (those that start at 0 keep starting there, now covering the
 * prefix too), the StackMapTable's first frame and its {@code Uninitialized} offsets move. The
 * prefix's own branch target gets a frame, given by the caller, placed first. A method's code
 * with any other attribute that holds offsets is refused with {@link UnsupportedShape}.
 *
 * <p>The input is the JDK's own class, but read as untrusted all the same ({@link ClassReader}):
 * malformed bytes raise {@link MalformedClassException}, never an index error. Not thread-safe:
 * one patch per transformation.
 */
public final class ClassPatch {
    /**
     * A method: its access flags, name, descriptor, and the offset of its {@code Code} attribute
     * (of the attribute's name index), or -1 if it has none.
     */
    public record Method(int access, String name, String descriptor, int code) {
        public boolean isStatic() {
            return (access & ClassFile.ACC_STATIC) != 0;
        }
    }

    /** A same-size replacement: the instruction bytes to write at offset {@code at} of the class file. */
    private record Replacement(int at, byte[] instructions) {
    }

    /** A Code attribute written anew: the offset of the original (of its name index), and what follows its length. */
    private record NewCode(int attribute, byte[] body) {
    }

    private final ClassReader in;
    private final byte[] bytes;
    private final List<Method> methods;
    private final ClassBytesOutput appended = new ClassBytesOutput(256);
    private int constantCount;
    /** In the order made. */
    private final List<Replacement> replacements = new ArrayList<>();
    private final List<NewCode> newCode = new ArrayList<>();

    private ClassPatch(byte[] bytes) {
        this.bytes = bytes;
        in = ClassReader.of(bytes);
        constantCount = in.constantCount();
        methods = new ArrayList<>(in.methodCount());
        for (int m = 0; m < in.methodCount(); m++) {
            methods.add(new Method(in.methodAccess(m), in.methodName(m), in.methodDescriptor(m), in.codeAttribute(m)));
        }
    }

    /**
     * Reads {@code classBytes}.
     *
     * @throws MalformedClassException if they are not a class file that can be read
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
        return in.className();
    }

    /**
     * The offsets, in the class file, of the {@code getstatic} instructions in {@code method}'s
     * code that read field {@code owner.name}.
     */
    public List<Integer> staticReads(Method method, String owner, String name) {
        return instructions(method, Bytecode.GETSTATIC, PoolEntry.TAG_FIELDREF, owner, name);
    }

    /**
     * The offsets, in the class file, of the {@code invokeinterface} instructions in
     * {@code method}'s code that call {@code owner.name} (any descriptor).
     */
    public List<Integer> interfaceCalls(Method method, String owner, String name) {
        return instructions(method, Bytecode.INVOKEINTERFACE, PoolEntry.TAG_INTERFACE_METHODREF, owner, name);
    }

    /** The offsets of the {@code opcode} instructions in {@code method}'s code whose member reference, of {@code tag}, is {@code owner.name}. */
    private List<Integer> instructions(Method method, int opcode, int tag, String owner, String name) {
        List<Integer> found = new ArrayList<>(1);
        if (method.code() < 0) {
            return found;
        }
        int codeStart = ClassReader.codeStart(method.code());
        int codeEnd = codeStart + in.codeLength(method.code());
        for (int at = codeStart; at < codeEnd; at += Bytecode.instructionSize(bytes, codeStart, at, codeEnd)) {
            if ((bytes[at] & 0xFF) == opcode && in.isMemberRef(tag, u2(bytes, at + 1), owner, name)) {
                found.add(at);
            }
        }
        return found;
    }

    /**
     * Replaces the instruction at {@code at}, of {@code replacement.length} bytes, by the
     * instructions in {@code replacement}: nothing moves. The caller makes sure the stack effect
     * is the same and that no branch lands inside.
     */
    public void replaceSameSize(int at, byte[] replacement) {
        replacements.add(new Replacement(at, replacement.clone()));
    }

    /** Replaces the 3-byte instruction at {@code at} by {@code opcode} with a 2-byte constant pool index. */
    public void replaceInstruction(int at, int opcode, int index) {
        replacements.add(new Replacement(at, new byte[] {(byte) opcode, (byte) (index >> 8), (byte) index}));
    }

    /** Appends a {@code Methodref} (with its class, name-and-type and strings); returns its index. */
    public int methodref(String owner, String name, String descriptor) {
        return memberRef(PoolEntry.TAG_METHODREF, owner, name, descriptor);
    }

    /** Appends a {@code Fieldref} (with its class, name-and-type and strings); returns its index. */
    public int fieldref(String owner, String name, String descriptor) {
        return memberRef(PoolEntry.TAG_FIELDREF, owner, name, descriptor);
    }

    /** Appends a {@code Class} entry (and its name); returns its index. */
    public int classEntry(String internalName) {
        int name = utf8Entry(internalName);
        return append(PoolEntry.TAG_CLASS, name, -1);
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
     * @throws UnsupportedShape if the method has no code, or its code has an attribute holding
     *         offsets that {@link OffsetMover} does not move
     */
    public void prefix(Method method, byte[] prefix, int maxStack, byte[] frame) {
        require(prefix.length % 4 == 0, "a prefix's length must be a multiple of 4");
        int at = method.code();
        if (at < 0) {
            throw new UnsupportedShape(method.name() + method.descriptor() + " has no code");
        }
        OffsetMover.firstFrameOffset(frame); // checks the frame's type
        int codeStart = ClassReader.codeStart(at);
        int codeLength = in.codeLength(at);
        ClassBytesOutput out = new ClassBytesOutput(codeLength + prefix.length + 256);
        out.u2(Math.max(u2(bytes, at + 6), maxStack)); // max stack
        out.u2(u2(bytes, at + 8)); // max locals
        out.u4(codeLength + prefix.length);
        out.bytes(prefix);
        out.bytes(bytes, codeStart, codeLength);
        boolean frames = in.hasStackMapTable(at);
        // The name's entry gets the next index, appended only once the move has succeeded.
        OffsetMover.moveCodeTail(in, at, new Shift(prefix.length), frame, frames ? -1 : constantCount,
                method.name() + method.descriptor(), out);
        if (!frames) {
            utf8Entry(Attributes.NAME_STACK_MAP_TABLE);
        }
        newCode.add(new NewCode(at, out.toByteArray()));
    }

    /** The offsets of code behind a prefix of {@code n} bytes. */
    private static final class Shift extends OffsetMover.Offsets {
        private final int n;

        Shift(int n) {
            this.n = n;
        }

        @Override
        int moved(int offset) {
            return offset + n;
        }

        /** A variable live from the start (this, the parameters) is live over the prefix too. */
        @Override
        int movedStart(int offset) {
            return offset == 0 ? 0 : offset + n;
        }
    }

    /** A {@code same_frame} at offset {@code offset} (the first frame of a table: the delta is the offset). */
    public static byte[] sameFrame(int offset) {
        require(offset <= OffsetMover.SAME_FRAME_MAX, "a same_frame's offset is at most 63");
        return new byte[] {(byte) offset};
    }

    /**
     * A {@code same_locals_1_stack_item_frame} at offset {@code offset} (first in its table) whose
     * one stack item is an object of the class at constant pool index {@code classIndex}.
     */
    public static byte[] sameLocalsOneObject(int offset, int classIndex) {
        require(offset <= OffsetMover.SAME_FRAME_MAX, "a same_locals_1_stack_item_frame's offset is at most 63");
        return new byte[] {(byte) (OffsetMover.SAME_LOCALS_1_STACK_ITEM + offset), VerificationTypeInfo.ITEM_OBJECT,
            (byte) (classIndex >> 8), (byte) classIndex};
    }

    /** The class file with every edit made. */
    public byte[] toBytes() {
        byte[] patched = bytes.clone();
        for (Replacement replacement : replacements) {
            System.arraycopy(replacement.instructions(), 0, patched, replacement.at(), replacement.instructions().length);
        }
        require(constantCount <= 0xFFFF, "the constant pool would outgrow 65535 entries");
        ClassBytesOutput out = new ClassBytesOutput(bytes.length + appended.size() + 256);
        out.bytes(patched, 0, 8);
        out.u2(constantCount);
        out.bytes(patched, 10, in.constantPoolEnd() - 10);
        out.output(appended);
        int from = in.constantPoolEnd();
        // In file order. (A loop, not a lambda: this runs in the JVM's start-up, where the first
        // lambda costs milliseconds.)
        for (int i = 1; i < newCode.size(); i++) {
            for (int j = i; j > 0 && newCode.get(j - 1).attribute() > newCode.get(j).attribute(); j--) {
                newCode.set(j, newCode.set(j - 1, newCode.get(j)));
            }
        }
        for (NewCode code : newCode) {
            out.bytes(patched, from, code.attribute() + 2 - from); // up to and with the attribute's name index
            out.u4(code.body().length);
            out.bytes(code.body());
            from = code.attribute() + 6 + s4(bytes, code.attribute() + 2);
        }
        out.bytes(patched, from, patched.length - from);
        return out.toByteArray();
    }

    // --- appending to the constant pool

    private int memberRef(int tag, String owner, String name, String descriptor) {
        int ownerClass = classEntry(owner);
        int nameAndType = append(PoolEntry.TAG_NAME_AND_TYPE, utf8Entry(name), utf8Entry(descriptor));
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

    @Override
    public String toString() {
        return "ClassPatch[" + className() + ", " + replacements.size() + " replacements, " + newCode.size()
                + " prefixes, " + constantCount + " constants]";
    }
}
