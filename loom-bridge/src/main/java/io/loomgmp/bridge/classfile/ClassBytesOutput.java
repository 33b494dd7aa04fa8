package io.loomgmp.bridge.classfile;

import java.lang.classfile.constantpool.PoolEntry;
import java.util.Arrays;

/**
 * A growable buffer of class-file bytes: big-endian {@code u1}, {@code u2}, {@code u4} and
 * modified UTF-8 constants, for {@link PollWriter}, {@link ClassPatch} and {@link OffsetMover}
 * (its reading counterpart is {@link ClassReader}). Not
 * {@code DataOutputStream}: its first use in a JVM sets up byte-array VarHandles, a millisecond
 * or more of every start-up under the agent, and each of its writes goes through a stream.
 * Not thread-safe.
 */
final class ClassBytesOutput {
    private byte[] bytes;
    private int size;

    ClassBytesOutput(int capacity) {
        bytes = new byte[Math.max(16, capacity)];
    }

    ClassBytesOutput u1(int value) {
        room(1);
        bytes[size++] = (byte) value;
        return this;
    }

    ClassBytesOutput u2(int value) {
        room(2);
        bytes[size++] = (byte) (value >>> 8);
        bytes[size++] = (byte) value;
        return this;
    }

    ClassBytesOutput u4(int value) {
        return u2(value >>> 16).u2(value & 0xFFFF);
    }

    ClassBytesOutput bytes(byte[] source) {
        return bytes(source, 0, source.length);
    }

    ClassBytesOutput bytes(byte[] source, int offset, int length) {
        room(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
        return this;
    }

    ClassBytesOutput output(ClassBytesOutput other) {
        return bytes(other.bytes, 0, other.size);
    }

    /**
     * A {@code CONSTANT_Utf8} entry: its tag, length and {@code value} in modified UTF-8 (NUL and
     * characters above U+007F in two or three bytes, supplementary ones as two surrogates).
     *
     * @throws IllegalArgumentException if the encoding is longer than 65535 bytes
     */
    ClassBytesOutput utf8Entry(String value) {
        int length = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            length += c >= 0x01 && c <= 0x7F ? 1 : c <= 0x7FF ? 2 : 3;
        }
        if (length > 0xFFFF) {
            throw new IllegalArgumentException("a constant of " + length + " bytes in modified UTF-8");
        }
        u1(PoolEntry.TAG_UTF8).u2(length);
        room(length);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x01 && c <= 0x7F) {
                bytes[size++] = (byte) c;
            } else if (c <= 0x7FF) {
                bytes[size++] = (byte) (0xC0 | (c >> 6));
                bytes[size++] = (byte) (0x80 | (c & 0x3F));
            } else {
                bytes[size++] = (byte) (0xE0 | (c >> 12));
                bytes[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                bytes[size++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return this;
    }

    int size() {
        return size;
    }

    /**
     * Overwrites the 4 bytes at {@code at}, written earlier: an attribute's length, once its
     * content is written after it.
     */
    void u4At(int at, int value) {
        if (at < 0 || at + 4 > size) {
            throw new IndexOutOfBoundsException("u4 at " + at + " of " + size + " bytes");
        }
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }

    /** Overwrites the 2 bytes at {@code at}, written earlier: a count or a size, once known. */
    void u2At(int at, int value) {
        if (at < 0 || at + 2 > size) {
            throw new IndexOutOfBoundsException("u2 at " + at + " of " + size + " bytes");
        }
        bytes[at] = (byte) (value >>> 8);
        bytes[at + 1] = (byte) value;
    }

    byte[] toByteArray() {
        return size == bytes.length ? bytes.clone() : Arrays.copyOf(bytes, size);
    }

    private void room(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(size + more, 2 * bytes.length));
        }
    }
}
