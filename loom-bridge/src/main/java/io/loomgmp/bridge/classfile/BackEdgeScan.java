package io.loomgmp.bridge.classfile;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the methods of a class file that have a back-edge, reading its bytes directly
 * ({@link ClassReader}): the cheap first look that the preemption polls take at every class they
 * may instrument. Most classes have no loop, and for them the ClassFile API (a full parse, and the
 * hundred-odd classes of the API itself on first use) is never touched.
 *
 * <p>From class-file version 51 on, the verifier needs a StackMapTable frame at every branch
 * target, so a method's code without that attribute has no loop, and its instructions are not
 * walked: most methods (accessors, straight-line code) are skipped that way. (Generated code
 * that breaks the rule runs only unverified; its loops stay unpolled.)
 *
 * <p>A back-edge here is what it is to the ClassFile API path of the polls: a conditional branch
 * ({@code if*}, {@code ifnull}, {@code ifnonnull}), {@code goto} or {@code goto_w} whose target is
 * at or before the branch itself (a branch to itself is a loop too). Switches, exception edges and
 * {@code jsr} are not, as there ({@link Bytecode#isBackEdge}).
 *
 * <p>The bytes are untrusted: a class file that is truncated or malformed where the scan reads it
 * raises {@link MalformedClassException} (never an index error), and the caller leaves the class
 * alone. Stateless; any thread may call it.
 */
public final class BackEdgeScan {
    /** From this class-file version (Java 7) every branch target has a StackMapTable frame. */
    private static final int FRAMES_REQUIRED_VERSION = 51;

    /**
     * A method with back-edges: its name and descriptor ({@code run()V}), code length, back-edge
     * count, how many of its loops get a poll at their header ({@code headers}: the distinct
     * targets of its back-edges other than a {@code goto}) and how many {@code goto} back-edges
     * get one in their place ({@code tails}: those to any other target), and the offset in the
     * class file of its {@code Code} attribute (its name index). See {@link PollWriter}.
     */
    public record Method(String nameAndType, int codeLength, int backEdges, int headers, int tails, int codeAttribute) {
        /** The polls the method gets. */
        public int polls() {
            return headers + tails;
        }
    }

    /** What the scan found: the class file as read, for {@link PollWriter}, and the methods with back-edges. */
    public static final class Result {
        final ClassReader classFile;
        private final List<Method> looping;

        private Result(ClassReader classFile, List<Method> looping) {
            this.classFile = classFile;
            this.looping = looping;
        }

        /** The methods with back-edges, in class-file order; empty if none has. */
        public List<Method> looping() {
            return looping;
        }
    }

    private BackEdgeScan() {
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
        ClassReader in = ClassReader.of(classBytes);
        boolean framesRequired = in.majorVersion() >= FRAMES_REQUIRED_VERSION;
        List<Method> looping = new ArrayList<>(0);
        for (int m = 0; m < in.methodCount(); m++) {
            int attribute = in.codeAttribute(m);
            if (attribute < 0 || framesRequired && !in.hasStackMapTable(attribute)) {
                continue;
            }
            int codeLength = in.codeLength(attribute);
            int start = ClassReader.codeStart(attribute);
            int backEdges = countBackEdges(classBytes, start, codeLength);
            if (backEdges > 0) {
                int[][] plan = plan(classBytes, start, start + codeLength, backEdges);
                looping.add(new Method(in.methodName(m) + in.methodDescriptor(m), codeLength,
                        backEdges, plan[0].length, plan[1].length, attribute));
            }
        }
        return new Result(in, looping);
    }

    /** Steps through one method's instructions; throws if one runs past the code's end. */
    private static int countBackEdges(byte[] bytes, int start, int length) {
        int end = start + length;
        int count = 0;
        for (int at = start; at < end; at += Bytecode.instructionSize(bytes, start, at, end)) {
            count += Bytecode.isBackEdge(bytes, at) ? 1 : 0;
        }
        return count;
    }

    /**
     * Where the polls of the code at {@code [start, end)} of {@code bytes}, with
     * {@code backEdges} back-edges, go: {@code [0]} the loop headers, the distinct targets of its
     * back-edges other than a {@code goto}; {@code [1]} the {@code goto} back-edges to any other
     * target, whose poll replaces them. Offsets from the code's start, ascending.
     */
    static int[][] plan(byte[] bytes, int start, int end, int backEdges) {
        int[] headers = new int[backEdges];
        int[] gotos = new int[backEdges]; // a goto back-edge's offset
        int[] gotoTargets = new int[backEdges];
        int h = 0;
        int g = 0;
        for (int at = start; at < end && h + g < backEdges; at += Bytecode.instructionSize(bytes, start, at, end)) {
            if (Bytecode.isBackEdge(bytes, at)) {
                int target = Bytecode.branchTarget(bytes, at, at - start);
                if ((bytes[at] & 0xFF) == Bytecode.GOTO) {
                    gotos[g] = at - start;
                    gotoTargets[g++] = target;
                } else {
                    headers[h++] = target;
                }
            }
        }
        java.util.Arrays.sort(headers, 0, h);
        int distinct = 0;
        for (int i = 0; i < h; i++) {
            if (distinct == 0 || headers[distinct - 1] != headers[i]) {
                headers[distinct++] = headers[i];
            }
        }
        headers = java.util.Arrays.copyOf(headers, distinct);
        int tails = 0;
        for (int i = 0; i < g; i++) { // gotos are ascending already
            if (java.util.Arrays.binarySearch(headers, gotoTargets[i]) < 0) { // a header's poll covers it
                gotos[tails++] = gotos[i];
            }
        }
        return new int[][] {headers, java.util.Arrays.copyOf(gotos, tails)};
    }
}
