package io.loomgmp.bridge.classfile;

/**
 * A shape that the byte-level editing here does not handle (an attribute holding code offsets that
 * it does not move, a branch that would outgrow 16 bits, a method of another form); nothing is
 * wrong with the class. The message says what. Without a stack trace: it is an answer, not a bug,
 * and the preemption polls may meet it for any class loaded.
 */
public final class UnsupportedShape extends RuntimeException {
    public UnsupportedShape(String why) {
        super(why, null, false, false);
    }
}
