package io.loomgmp.bridge.classfile;

import java.lang.classfile.Attributes;
import java.lang.classfile.attribute.StackMapFrameInfo.VerificationTypeInfo;

import static io.loomgmp.bridge.classfile.ClassReader.require;
import static io.loomgmp.bridge.classfile.ClassReader.s4;
import static io.loomgmp.bridge.classfile.ClassReader.u2;

/**
 * The one mover of code offsets here: once code is inserted into a method ({@link PollWriter}'s
 * polls, {@link ClassPatch}'s prefix), it writes what follows the code in its {@code Code}
 * attribute with every offset moved: the exception table, the StackMapTable (each frame keeps
 * its content, at its moved offset, re-encoded where its delta no longer fits a byte; an
 * {@code Uninitialized} type's offset of its {@code new} moves too), the LineNumberTable, the
 * LocalVariableTable and the LocalVariableTypeTable. A code attribute with any other attribute
 * holding offsets (type annotations on code, CharacterRangeTable, attributes it does not know) is
 * refused with {@link UnsupportedShape}. Where the offsets go is the caller's {@link Offsets}.
 *
 * <p>With {@link PollWriter}'s guarded polls, it also adds a frame after each poll at a loop header
 * (at the header's own instruction, the poll's {@code over}): a copy of the header's frame, which
 * the poll leaves as it found it. It reads the frames' types
 * (positions of their verification types in the input) only as far as a copy needs them.
 */
final class OffsetMover {
    // StackMapTable frame types (JVMS 4.7.4), by their first byte.
    /** {@code same_frame}: 0 to 63, the delta itself. */
    static final int SAME_FRAME_MAX = 63;
    /** {@code same_locals_1_stack_item_frame}: 64 to 127, the delta plus 64. */
    static final int SAME_LOCALS_1_STACK_ITEM = 64;
    static final int SAME_LOCALS_1_STACK_ITEM_MAX = 127;
    static final int SAME_LOCALS_1_STACK_ITEM_EXTENDED = 247;
    /** {@code chop_frame}: 248 to 250. */
    static final int CHOP_MAX = 250;
    static final int SAME_FRAME_EXTENDED = 251;
    /** {@code append_frame}: 252 to 254, with 1 to 3 locals. */
    static final int APPEND_MAX = 254;
    static final int FULL_FRAME = 255;

    private OffsetMover() {
    }

    /** Where one method's old code offsets go once code is inserted into it. */
    abstract static class Offsets {
        /**
         * The new offset of what pointed at old offset {@code offset}: a branch target, a frame, a
         * line's start, an exception range's bound or handler, an uninitialised object's {@code new}.
         */
        abstract int moved(int offset);

        /** The new start of a local variable's live range that started at old offset {@code offset}. */
        int movedStart(int offset) {
            return moved(offset);
        }

        /**
         * The new offset of the instruction at old offset {@code offset} itself (an
         * {@code Uninitialized} type's {@code new}), past any code inserted in front of it.
         */
        int instruction(int offset) {
            return moved(offset);
        }

        /** Whether a poll was put in front of the instruction at old offset {@code offset}, which then needs a frame after it. */
        boolean isHeader(int offset) {
            return false;
        }

        /**
         * Whether the stack of the frame at old offset {@code offset} must be told
         * ({@link #headerFrame}): the target of a {@code goto} replaced by a poll.
         */
        boolean needsStack(int offset) {
            return false;
        }

        /** How many offsets {@link #isHeader} says yes to. */
        int headerCount() {
            return 0;
        }

        /** The size of a poll, with {@link #isHeader}. */
        int pollBytes() {
            return 0;
        }

        /** Told the stack slots of each header's frame as it is copied. */
        void headerFrame(int stackSlots) {
        }
    }

    /**
     * Writes what follows the code of the {@code Code} attribute at {@code attribute} of
     * {@code in}, with every offset moved, to {@code out}: from the exception table to the
     * attribute's end.
     *
     * @param firstFrame     a StackMapTable frame to put first, encoded with its offset as its delta
     *                       (the inserted code's branch target), or null
     * @param addedTableName with {@code firstFrame}, when the code has no StackMapTable: the
     *                       constant pool index of the name {@code StackMapTable}, for a table of
     *                       that frame alone, written last; else -1
     * @param method         the method's name and descriptor, for the message of {@link UnsupportedShape}
     * @throws UnsupportedShape if the code has an attribute holding offsets this does not move
     */
    static void moveCodeTail(ClassReader in, int attribute, Offsets offsets, byte[] firstFrame, int addedTableName,
                             String method, ClassBytesOutput out) {
        byte[] bytes = in.bytes;
        int end = in.attributeEnd(attribute);
        int at = ClassReader.codeStart(attribute) + in.codeLength(attribute);
        require(at + 2 <= end, "truncated Code attribute");
        int handlers = u2(bytes, at);
        out.u2(handlers);
        at += 2;
        require(at + 8L * handlers <= end, "truncated exception table");
        for (int i = 0; i < handlers; i++, at += 8) {
            out.u2(offsets.moved(u2(bytes, at))).u2(offsets.moved(u2(bytes, at + 2))).u2(offsets.moved(u2(bytes, at + 4)));
            out.bytes(bytes, at + 6, 2); // catch type
        }
        require(at + 2 <= end, "truncated Code attribute");
        int attributes = u2(bytes, at);
        out.u2(attributes + (addedTableName >= 0 ? 1 : 0));
        at += 2;
        for (int i = 0; i < attributes; i++) {
            require(at + 6 <= end, "truncated Code attribute");
            int name = u2(bytes, at);
            int length = s4(bytes, at + 2);
            require(length >= 0 && length <= end - at - 6, "attribute past the end of the Code attribute");
            int payload = at + 6;
            String kind = in.utf8(name);
            out.u2(name);
            int lengthAt = out.size();
            out.u4(0); // the attribute's length, set once its content is written
            switch (kind) {
                case Attributes.NAME_STACK_MAP_TABLE -> {
                    require(addedTableName < 0, "a StackMapTable where none was expected");
                    moveFrames(bytes, payload, payload + length, offsets, firstFrame, out);
                }
                case Attributes.NAME_LINE_NUMBER_TABLE -> moveLines(bytes, payload, payload + length, offsets, out);
                case Attributes.NAME_LOCAL_VARIABLE_TABLE, Attributes.NAME_LOCAL_VARIABLE_TYPE_TABLE ->
                        moveLocals(bytes, payload, payload + length, offsets, out);
                default -> throw new UnsupportedShape("the code of " + method + " has a " + kind + " attribute");
            }
            out.u4At(lengthAt, out.size() - lengthAt - 4);
            at = payload + length;
        }
        require(at == end, "the Code attribute's length does not match its content");
        if (addedTableName >= 0) {
            // The inserted code's branch target needs a frame of its own even where the body has none.
            out.u2(addedTableName).u4(2 + firstFrame.length).u2(1).bytes(firstFrame);
        }
    }

    /** The offset of a frame that comes first in its table: its delta. */
    static int firstFrameOffset(byte[] frame) {
        int type = frame[0] & 0xFF;
        require(type <= SAME_LOCALS_1_STACK_ITEM_MAX,
                "the inserted frame must be a same_frame or a same_locals_1_stack_item_frame");
        return type <= SAME_FRAME_MAX ? type : type - SAME_LOCALS_1_STACK_ITEM;
    }

    /**
     * The StackMapTable at {@code [at, end)}, {@code firstFrame} (if any) first, every frame at its
     * moved offset, and a copy of each header's frame after the header's poll.
     */
    private static void moveFrames(byte[] bytes, int at, int end, Offsets offsets, byte[] firstFrame, ClassBytesOutput out) {
        require(at + 2 <= end, "truncated StackMapTable");
        int frames = u2(bytes, at);
        at += 2;
        int previous = -1; // the old and new offset of the frame before; -1 before the first
        int previousNew = -1;
        int countAt = out.size();
        int written = frames;
        out.u2(frames); // set below, once the copies are counted
        if (firstFrame != null) {
            out.bytes(firstFrame);
            written++;
            previousNew = firstFrameOffset(firstFrame);
        }
        boolean polls = offsets.pollBytes() > 0;
        // The current frame's stack, and its locals if it is a full_frame: the positions of their
        // verification types in bytes. Only a full_frame has two or more stack items, so only
        // then does a copy need the locals spelt out.
        Types locals = new Types();
        Types stack = new Types();
        int copies = 0; // frames copied after a poll
        for (int i = 0; i < frames; i++) {
            require(at + 1 <= end, "truncated StackMapTable");
            int type = bytes[at] & 0xFF;
            int delta;
            int next; // just past the frame's offset field
            if (type <= SAME_LOCALS_1_STACK_ITEM_MAX) {
                delta = type <= SAME_FRAME_MAX ? type : type - SAME_LOCALS_1_STACK_ITEM;
                next = at + 1;
            } else {
                require(type >= SAME_LOCALS_1_STACK_ITEM_EXTENDED && at + 3 <= end, "bad or truncated stack map frame");
                delta = u2(bytes, at + 1);
                next = at + 3;
            }
            int offset = previous + delta + 1;
            if (i == 0 && offset > 0 && polls && offsets.isHeader(0)) {
                // A header at 0 has the implicit frame: its copy, after the poll, comes first.
                previousNew = copyFrame(previousNew, 0, locals, stack, offsets, bytes, out);
                copies++;
                written++;
            }
            int newOffset = offsets.moved(offset);
            int newDelta = newOffset - previousNew - 1;
            previous = offset;
            previousNew = newOffset;
            stack.clear();
            locals.clear();
            if (type <= SAME_FRAME_MAX) {
                if (newDelta <= SAME_FRAME_MAX) {
                    out.u1(newDelta);
                } else {
                    out.u1(SAME_FRAME_EXTENDED).u2(newDelta);
                }
                at = next;
            } else if (type <= SAME_LOCALS_1_STACK_ITEM_MAX) {
                if (newDelta <= SAME_FRAME_MAX) {
                    out.u1(SAME_LOCALS_1_STACK_ITEM + newDelta);
                } else {
                    out.u1(SAME_LOCALS_1_STACK_ITEM_EXTENDED).u2(newDelta);
                }
                at = moveTypes(bytes, next, end, 1, offsets, out, stack);
            } else if (type == SAME_LOCALS_1_STACK_ITEM_EXTENDED) {
                out.u1(type).u2(newDelta);
                at = moveTypes(bytes, next, end, 1, offsets, out, stack);
            } else if (type <= SAME_FRAME_EXTENDED) { // chop, same_frame_extended
                out.u1(type).u2(newDelta);
                at = next;
            } else if (type <= APPEND_MAX) {
                out.u1(type).u2(newDelta);
                at = moveTypes(bytes, next, end, type - SAME_FRAME_EXTENDED, offsets, out, null);
            } else { // full_frame
                out.u1(type).u2(newDelta);
                require(next + 2 <= end, "truncated stack map frame");
                int localCount = u2(bytes, next);
                out.u2(localCount);
                at = moveTypes(bytes, next + 2, end, localCount, offsets, out, locals);
                require(at + 2 <= end, "truncated stack map frame");
                int stackCount = u2(bytes, at);
                out.u2(stackCount);
                at = moveTypes(bytes, at + 2, end, stackCount, offsets, out, stack);
            }
            if (polls && offsets.isHeader(offset)) {
                previousNew = copyFrame(previousNew, offset, locals, stack, offsets, bytes, out);
                copies++;
                written++;
            } else if (polls && offsets.needsStack(offset)) {
                offsets.headerFrame(slots(bytes, stack));
            }
        }
        require(at == end, "the StackMapTable's length does not match its content");
        if (polls && frames == 0 && offsets.isHeader(0)) {
            copyFrame(previousNew, 0, locals, stack, offsets, bytes, out);
            copies++;
            written++;
        }
        if (polls && copies != offsets.headerCount()) {
            throw new UnsupportedShape("a loop header without a stack map frame");
        }
        require(written <= 0xFFFF, "too many stack map frames");
        out.u2At(countAt, written);
    }

    /**
     * Writes the frame after the poll of the header at old offset {@code header}: a copy of the
     * header's frame, which is the frame before it, so that a {@code same_frame} or
     * {@code same_locals_1_stack_item_frame} says it where the stack allows; else the header's
     * frame is a {@code full_frame} (the only kind with more stack), copied whole. Returns the
     * copy's new offset.
     */
    private static int copyFrame(int previousNew, int header, Types locals, Types stack, Offsets offsets,
                                 byte[] bytes, ClassBytesOutput out) {
        int newOffset = offsets.instruction(header);
        int delta = newOffset - previousNew - 1;
        offsets.headerFrame(slots(bytes, stack));
        if (stack.size == 0) {
            if (delta <= SAME_FRAME_MAX) {
                out.u1(delta);
            } else {
                out.u1(SAME_FRAME_EXTENDED).u2(delta);
            }
        } else if (stack.size == 1) {
            if (delta <= SAME_FRAME_MAX) {
                out.u1(SAME_LOCALS_1_STACK_ITEM + delta);
            } else {
                out.u1(SAME_LOCALS_1_STACK_ITEM_EXTENDED).u2(delta);
            }
            moveTypes(bytes, stack.at[0], bytes.length, 1, offsets, out, null);
        } else {
            out.u1(FULL_FRAME).u2(delta).u2(locals.size);
            for (int i = 0; i < locals.size; i++) {
                moveTypes(bytes, locals.at[i], bytes.length, 1, offsets, out, null);
            }
            out.u2(stack.size);
            for (int i = 0; i < stack.size; i++) {
                moveTypes(bytes, stack.at[i], bytes.length, 1, offsets, out, null);
            }
        }
        return newOffset;
    }

    /** The stack slots of the verification types at {@code stack}: 2 for a long or a double. */
    private static int slots(byte[] bytes, Types stack) {
        int slots = 0;
        for (int i = 0; i < stack.size; i++) {
            int tag = bytes[stack.at[i]] & 0xFF;
            slots += tag == VerificationTypeInfo.ITEM_LONG || tag == VerificationTypeInfo.ITEM_DOUBLE ? 2 : 1;
        }
        return slots;
    }

    /** A list of the positions of verification types. */
    private static final class Types {
        int[] at = new int[8];
        int size;

        void add(int position) {
            if (size == at.length) {
                at = java.util.Arrays.copyOf(at, 2 * size);
            }
            at[size++] = position;
        }

        void clear() {
            size = 0;
        }
    }

    /**
     * Copies {@code n} verification types; an uninitialized type's offset (of its {@code new}) is
     * moved. Adds the position of each to {@code positions}, if not null.
     */
    private static int moveTypes(byte[] bytes, int at, int end, int n, Offsets offsets, ClassBytesOutput out,
                                 Types positions) {
        for (int i = 0; i < n; i++) {
            require(at + 1 <= end, "truncated verification type");
            if (positions != null) {
                positions.add(at);
            }
            int tag = bytes[at] & 0xFF;
            if (tag > VerificationTypeInfo.ITEM_UNINITIALIZED) {
                throw new MalformedClassException("bad verification type " + tag);
            }
            if (tag == VerificationTypeInfo.ITEM_OBJECT) { // a class index
                require(at + 3 <= end, "truncated verification type");
                out.bytes(bytes, at, 3);
                at += 3;
            } else if (tag == VerificationTypeInfo.ITEM_UNINITIALIZED) {
                require(at + 3 <= end, "truncated verification type");
                out.u1(tag).u2(offsets.instruction(u2(bytes, at + 1)));
                at += 3;
            } else {
                out.u1(tag);
                at += 1;
            }
        }
        return at;
    }

    /**
     * Copies the entry count of the table at {@code [at, end)}, whose entries are
     * {@code entrySize} bytes long, after checking that they fill it; returns where they start.
     */
    private static int copyCount(byte[] bytes, int at, int end, int entrySize, ClassBytesOutput out) {
        require(at + 2 <= end, "truncated line or local variable table");
        int n = u2(bytes, at);
        require(at + 2 + (long) entrySize * n == end, "a line or local variable table's length does not match its content");
        out.u2(n);
        return at + 2;
    }

    /** A LineNumberTable: each line's start. */
    private static void moveLines(byte[] bytes, int at, int end, Offsets offsets, ClassBytesOutput out) {
        for (int entry = copyCount(bytes, at, end, 4, out); entry < end; entry += 4) {
            out.u2(offsets.moved(u2(bytes, entry))).bytes(bytes, entry + 2, 2);
        }
    }

    /** A LocalVariableTable or LocalVariableTypeTable: each live range's start and length. */
    private static void moveLocals(byte[] bytes, int at, int end, Offsets offsets, ClassBytesOutput out) {
        for (int entry = copyCount(bytes, at, end, 10, out); entry < end; entry += 10) {
            int start = u2(bytes, entry);
            int newStart = offsets.movedStart(start);
            out.u2(newStart).u2(offsets.moved(start + u2(bytes, entry + 2)) - newStart).bytes(bytes, entry + 4, 6);
        }
    }
}
