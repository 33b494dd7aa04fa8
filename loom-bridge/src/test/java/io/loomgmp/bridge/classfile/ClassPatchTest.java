package io.loomgmp.bridge.classfile;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.reflect.Method;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The byte-level edits, checked by the verifier and by running the patched code. */
class ClassPatchTest {
    /** Compiled by javac: a loop, a switch, a handler, line numbers, locals and an uninitialised-object frame. */
    static final class Sample {
        static int field = 3;

        static int seven() {
            return 7;
        }

        static int readField() {
            return field;
        }

        static String work(int n) {
            int sum = 0;
            for (int i = 0; i < n; i++) {
                switch (i % 3) {
                    case 0 -> sum += 1;
                    case 1 -> sum += 10;
                    default -> sum += 100;
                }
            }
            try {
                if (n == 13) {
                    throw new IllegalStateException("thirteen");
                }
            } catch (IllegalStateException e) {
                sum = -13;
            }
            return new StringBuilder(n > 5 ? "big:" : "small:").append(sum).toString();
        }
    }

    private static final String SAMPLE = Sample.class.getName();
    private static final String SAMPLE_INTERNAL = SAMPLE.replace('.', '/');

    private static byte[] sampleBytes() throws Exception {
        try (InputStream in = ClassPatchTest.class.getResourceAsStream("ClassPatchTest$Sample.class")) {
            return in.readAllBytes();
        }
    }

    private static ClassPatch.Method method(ClassPatch patch, String name) {
        return patch.methods().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aPrefixRunsFirstAndTheOriginalBodyStillWorks() throws Exception {
        ClassPatch patch = ClassPatch.of(sampleBytes());
        byte[] prefix = {
            0, 0,                          // 0: nop, nop (to a multiple of 4)
            0x1A,                          // 2: iload_0
            (byte) 0x9C, 0, 5,             // 3: ifge 8
            0x01,                          // 6: aconst_null
            (byte) 0xB0,                   // 7: areturn
        };                                 // 8: the original body
        patch.prefix(method(patch, "work"), prefix, 1, ClassPatch.sameFrame(8));
        byte[] patched = patch.toBytes();
        assertEquals(List.of(), ClassFile.of().verify(patched));

        Method work = load(patched).getDeclaredMethod("work", int.class);
        work.setAccessible(true);
        assertNull(work.invoke(null, -1), "the prefix returns first");
        assertEquals("small:112", work.invoke(null, 4), "the loop and the switch");
        assertEquals("big:-13", work.invoke(null, 13), "the handler, moved");
        assertEquals(Sample.work(7), work.invoke(null, 7));
    }

    @Test
    void aReplacedReadCallsTheMethodInstead() throws Exception {
        ClassPatch patch = ClassPatch.of(sampleBytes());
        List<Integer> reads = patch.staticReads(method(patch, "readField"), SAMPLE_INTERNAL, "field");
        assertEquals(1, reads.size());
        assertEquals(List.of(), patch.staticReads(method(patch, "work"), SAMPLE_INTERNAL, "field"));
        patch.replaceInstruction(reads.get(0), Bytecode.INVOKESTATIC, patch.methodref(SAMPLE_INTERNAL, "seven", "()I"));
        byte[] patched = patch.toBytes();
        assertEquals(List.of(), ClassFile.of().verify(patched));
        Method readField = load(patched).getDeclaredMethod("readField");
        readField.setAccessible(true);
        assertEquals(7, readField.invoke(null));
    }

    @Test
    void noEditGivesTheSameBytes() throws Exception {
        byte[] original = sampleBytes();
        assertEquals(java.util.Arrays.toString(original), java.util.Arrays.toString(ClassPatch.of(original).toBytes()));
    }

    @Test
    void malformedBytesAreRefusedNotMisread() throws Exception {
        byte[] original = sampleBytes();
        assertThrows(MalformedClassException.class, () -> ClassPatch.of(new byte[] {1, 2, 3, 4}));
        byte[] truncated = java.util.Arrays.copyOf(original, original.length / 2);
        assertThrows(MalformedClassException.class, () -> ClassPatch.of(truncated));
    }

    @Test
    void aPrefixMustKeepTheSwitchPadding() throws Exception {
        ClassPatch patch = ClassPatch.of(sampleBytes());
        assertThrows(MalformedClassException.class,
                () -> patch.prefix(method(patch, "work"), new byte[] {0, 0, 0}, 0, ClassPatch.sameFrame(3)));
    }

    /** Defines {@code bytes} as the sample class in a loader of its own (which verifies it). */
    private static Class<?> load(byte[] bytes) throws ClassNotFoundException {
        ClassLoader loader = new ClassLoader(ClassPatchTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.equals(SAMPLE)) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    return loaded != null ? loaded : defineClass(name, bytes, 0, bytes.length);
                }
            }
        };
        return Class.forName(SAMPLE, true, loader);
    }
}
