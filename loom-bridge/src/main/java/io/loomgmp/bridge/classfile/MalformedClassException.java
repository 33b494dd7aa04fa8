package io.loomgmp.bridge.classfile;

/**
 * The bytes are not a class file that can be read where they are read: truncated, or malformed.
 * The only exception that reading untrusted bytes here raises; never an index error.
 */
public final class MalformedClassException extends RuntimeException {
    MalformedClassException(String message) {
        super(message);
    }
}
