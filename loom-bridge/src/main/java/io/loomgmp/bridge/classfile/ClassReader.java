package io.loomgmp.bridge.classfile;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.constantpool.PoolEntry;
import java.nio.charset.StandardCharsets;

/**
 * The one reader of class files here ({@link BackEdgeScan}, {@link ClassPatch}, {@link PollWriter}):
 * where each constant pool entry is, and each method's name, descriptor and {@code Code}
 * attribute; constants are decoded only when asked for. Nothing else is read, and nothing is
 * verified beyond what finding those needs. Not the ClassFile API, whose first use costs a
 * start-up tens of milliseconds: this runs for every class the application loads. The tags and
 * attribute names are the ClassFile API's constants, which the compiler copies in.
 *
 * <p>The bytes are untrusted: a class file that is truncated or malformed where it is read raises
 * {@link MalformedClassException}, never an index error. Immutable once read.
 */
final class ClassReader {
    private static final byte[] CODE = Attributes.NAME_CODE.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STACK_MAP_TABLE = Attributes.NAME_STACK_MAP_TABLE.getBytes(StandardCharsets.US_ASCII);
    /** Per method: access flags, name index, descriptor index, offset of its Code attribute (or -1). */
    private static final int METHOD_INTS = 4;

    final byte[] bytes;
    /** Offset of each constant pool entry's tag, by index; 0 for index 0 and the slot after a long or double. */
    private final int[] entries;
    private final int constantPoolEnd;
    private final int majorVersion;
    private final int thisClass;
    private final int[] methods;
    /** Where the reading is, while the constructor reads. */
    private int pos;

    private ClassReader(byte[] bytes) {
        this.bytes = bytes;
        require(u4() == ClassFile.MAGIC_NUMBER, "not a class file (bad magic number)");
        pos += 2; // minor version
        majorVersion = u2();
        entries = readConstantPool(bytes);
        constantPoolEnd = pos;
        pos += 2; // access flags
        thisClass = u2();
        pos += 2; // super class
        skip(2 * u2()); // interfaces
        for (int fields = u2(); fields > 0; fields--) {
            pos += 6; // access flags, name, descriptor
            skipAttributes();
        }
        int count = u2();
        methods = new int[METHOD_INTS * count];
        for (int m = 0; m < count; m++) {
            methods[METHOD_INTS * m] = u2();
            methods[METHOD_INTS * m + 1] = u2();
            methods[METHOD_INTS * m + 2] = u2();
            methods[METHOD_INTS * m + 3] = -1;
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
                    methods[METHOD_INTS * m + 3] = attribute;
                }
                pos = end;
            }
        }
        skipAttributes(); // the class's own: walked so that a truncated class file is seen as one
        require(pos == bytes.length, "bytes after the end of the class file");
    }

    /**
     * Reads {@code classBytes}.
     *
     * @throws MalformedClassException if they are not a class file that can be read
     */
    static ClassReader of(byte[] classBytes) {
        return new ClassReader(classBytes);
    }

    /** Reads the constant pool, from offset 8, leaving {@link #pos} at its end; returns the entries' offsets. */
    private int[] readConstantPool(byte[] bytes) {
        require(bytes.length >= 10, "truncated");
        int count = u2(bytes, 8);
        int[] offsets = new int[count];
        pos = 10;
        for (int i = 1; i < count; i++) {
            require(pos < bytes.length, "constant pool past the end");
            offsets[i] = pos;
            int tag = bytes[pos++] & 0xFF;
            switch (tag) {
                case PoolEntry.TAG_UTF8 -> {
                    require(pos + 2 <= bytes.length, "constant pool past the end");
                    pos += 2 + u2(bytes, pos);
                }
                case PoolEntry.TAG_INTEGER, PoolEntry.TAG_FLOAT -> pos += 4;
                case PoolEntry.TAG_LONG, PoolEntry.TAG_DOUBLE -> { // two slots
                    pos += 8;
                    i++;
                }
                case PoolEntry.TAG_CLASS, PoolEntry.TAG_STRING, PoolEntry.TAG_METHOD_TYPE, PoolEntry.TAG_MODULE,
                     PoolEntry.TAG_PACKAGE -> pos += 2;
                case PoolEntry.TAG_METHOD_HANDLE -> pos += 3;
                case PoolEntry.TAG_FIELDREF, PoolEntry.TAG_METHODREF, PoolEntry.TAG_INTERFACE_METHODREF,
                     PoolEntry.TAG_NAME_AND_TYPE, PoolEntry.TAG_DYNAMIC, PoolEntry.TAG_INVOKE_DYNAMIC -> pos += 4;
                default -> throw new MalformedClassException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        require(pos <= bytes.length, "constant pool past the end");
        return offsets;
    }

    // --- the class

    int majorVersion() {
        return majorVersion;
    }

    /** The constant pool's entry count (one more than its last index). */
    int constantCount() {
        return entries.length;
    }

    /** Where the constant pool ends: the offset of the access flags. */
    int constantPoolEnd() {
        return constantPoolEnd;
    }

    /** This class's internal name ({@code java/lang/VirtualThread}). */
    String className() {
        return className(thisClass);
    }

    int methodCount() {
        return methods.length / METHOD_INTS;
    }

    int methodAccess(int method) {
        return methods[METHOD_INTS * method];
    }

    /** The method's name, decoded (the index was not checked when read). */
    String methodName(int method) {
        return utf8(methods[METHOD_INTS * method + 1]);
    }

    String methodDescriptor(int method) {
        return utf8(methods[METHOD_INTS * method + 2]);
    }

    /**
     * The offset of the method's {@code Code} attribute (of its name index), whose code the
     * reading checked lies within it; -1 if it has none.
     */
    int codeAttribute(int method) {
        return methods[METHOD_INTS * method + 3];
    }

    // --- a Code attribute, by the offset of its name index

    static int codeStart(int codeAttribute) {
        return codeAttribute + 14; // name, length, max stack, max locals, code length
    }

    int codeLength(int codeAttribute) {
        return s4(bytes, codeAttribute + 10);
    }

    /** Just past the whole attribute. */
    int attributeEnd(int attribute) {
        return attribute + 6 + s4(bytes, attribute + 2);
    }

    /**
     * Whether the code attribute's own attributes include a StackMapTable. Most methods
     * (accessors, straight-line code) have none, and from version 51 on their instructions need
     * not be walked for branches at all: every branch target has a frame.
     */
    boolean hasStackMapTable(int codeAttribute) {
        int end = attributeEnd(codeAttribute);
        int at = codeStart(codeAttribute) + codeLength(codeAttribute);
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

    // --- the constant pool

    /** Whether constant pool entry {@code index} is a Utf8 entry holding exactly {@code expected}. */
    boolean isUtf8(int index, byte[] expected) {
        int at = entry(index, PoolEntry.TAG_UTF8);
        int length = u2(bytes, at + 1);
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

    /** The string of Utf8 entry {@code index}; within the pool (its reading checked that). */
    String utf8(int index) {
        int at = entry(index, PoolEntry.TAG_UTF8);
        return utf8(bytes, at + 3, u2(bytes, at + 1));
    }

    /** The internal name of Class entry {@code index}. */
    String className(int index) {
        return utf8(u2(bytes, entry(index, PoolEntry.TAG_CLASS) + 1));
    }

    /** Whether entry {@code index} is a member reference of {@code tag} to {@code owner.name} (any descriptor). */
    boolean isMemberRef(int tag, int index, String owner, String name) {
        int at = entry(index, tag);
        int nameAndType = entry(u2(bytes, at + 3), PoolEntry.TAG_NAME_AND_TYPE);
        return className(u2(bytes, at + 1)).equals(owner) && utf8(u2(bytes, nameAndType + 1)).equals(name);
    }

    /** The offset of entry {@code index}'s tag, which must be {@code tag}. */
    private int entry(int index, int tag) {
        if (index <= 0 || index >= entries.length || entries[index] == 0) { // message built on failure only
            throw new MalformedClassException("no constant pool entry " + index);
        }
        if (bytes[entries[index]] != tag) {
            throw new MalformedClassException("constant pool entry " + index + " is not of tag " + tag);
        }
        return entries[index];
    }

    /**
     * The string of the {@code length} bytes of modified UTF-8 at {@code at} of {@code source}:
     * a constant's value, read without {@code DataInputStream} (see {@link ClassBytesOutput}).
     *
     * @throws MalformedClassException if they are not valid modified UTF-8
     */
    static String utf8(byte[] source, int at, int length) {
        boolean ascii = true;
        for (int i = at; i < at + length && ascii; i++) {
            ascii = source[i] > 0; // 1 to 127: the same in modified UTF-8 and in Latin-1
        }
        if (ascii) {
            return new String(source, at, length, StandardCharsets.ISO_8859_1);
        }
        char[] chars = new char[length];
        int n = 0;
        for (int i = at; i < at + length; ) {
            int b = source[i] & 0xFF;
            if (b >= 0x01 && b <= 0x7F) {
                chars[n++] = (char) b;
                i++;
            } else if ((b & 0xE0) == 0xC0 && i + 1 < at + length && (source[i + 1] & 0xC0) == 0x80) {
                chars[n++] = (char) (((b & 0x1F) << 6) | (source[i + 1] & 0x3F));
                i += 2;
            } else if ((b & 0xF0) == 0xE0 && i + 2 < at + length && (source[i + 1] & 0xC0) == 0x80
                    && (source[i + 2] & 0xC0) == 0x80) {
                chars[n++] = (char) (((b & 0x0F) << 12) | ((source[i + 1] & 0x3F) << 6) | (source[i + 2] & 0x3F));
                i += 3;
            } else {
                throw new MalformedClassException("invalid modified UTF-8 at byte " + i);
            }
        }
        return new String(chars, 0, n);
    }

    // --- reading

    private void skipAttributes() {
        for (int attributes = u2(); attributes > 0; attributes--) {
            pos += 2;
            int length = u4();
            require(length >= 0 && length <= bytes.length - pos, "attribute past the end");
            pos += length;
        }
    }

    /** Moves past {@code n} bytes. (Not {@code pos += u2()}: Java reads {@code pos} before the call advances it.) */
    private void skip(int n) {
        pos += n;
    }

    private int u2() {
        require(pos + 2 <= bytes.length, "truncated");
        int value = u2(bytes, pos);
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

    static int u2(byte[] bytes, int at) {
        return ((bytes[at] & 0xFF) << 8) | (bytes[at + 1] & 0xFF);
    }

    static int s4(byte[] bytes, int at) {
        return ((bytes[at] & 0xFF) << 24) | ((bytes[at + 1] & 0xFF) << 16) | ((bytes[at + 2] & 0xFF) << 8) | (bytes[at + 3] & 0xFF);
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
