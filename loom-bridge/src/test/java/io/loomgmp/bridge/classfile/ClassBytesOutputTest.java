package io.loomgmp.bridge.classfile;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The writer and reader against the JDK's own modified UTF-8 (DataInput) and big-endian order. */
class ClassBytesOutputTest {
    @Test
    void constantsAreModifiedUtf8AsDataInputReadsThem() throws Exception {
        for (String value : new String[] {"", "java/lang/Object", "caf\u00e9", "nul\u0000here", "\u20ac\u4e2d", "\ud83d\ude00"}) {
            byte[] entry = new ClassBytesOutput(4).utf8Entry(value).toByteArray();
            assertEquals(1, entry[0], "the Utf8 tag");
            assertEquals(value, new DataInputStream(new ByteArrayInputStream(entry, 1, entry.length - 1)).readUTF());
            assertEquals(value, ClassReader.utf8(entry, 3, entry.length - 3));
        }
    }

    @Test
    void valuesAreBigEndianAndTheBufferGrows() {
        ClassBytesOutput out = new ClassBytesOutput(1).u1(0xAB).u2(0x1234).u4(0xCAFEBABE);
        ClassBytesOutput whole = new ClassBytesOutput(1).output(out).bytes(new byte[] {9, 8, 7}, 1, 2);
        assertArrayEquals(new byte[] {(byte) 0xAB, 0x12, 0x34, (byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE, 8, 7},
                whole.toByteArray());
        assertEquals(9, whole.size());
    }

    @Test
    void invalidModifiedUtf8IsRefused() {
        assertThrows(MalformedClassException.class,
                () -> ClassReader.utf8(new byte[] {(byte) 0xC3}, 0, 1)); // a two-byte start, cut off
        assertThrows(MalformedClassException.class,
                () -> ClassReader.utf8(new byte[] {0}, 0, 1)); // a raw NUL is not modified UTF-8
    }
}
