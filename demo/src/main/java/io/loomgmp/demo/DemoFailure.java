package io.loomgmp.demo;

/**
 * A measurement the demo could not make: a JVM that failed, hung, printed no figure, or ran its
 * virtual threads on another scheduler than the one its column names. The demo prints why and
 * exits non-zero: it never prints a figure it did not measure.
 */
final class DemoFailure extends Exception {
    DemoFailure(String message) {
        super(message);
    }
}
