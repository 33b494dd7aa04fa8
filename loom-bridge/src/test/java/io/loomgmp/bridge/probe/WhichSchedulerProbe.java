package io.loomgmp.bridge.probe;

import io.loomgmp.bridge.Gmp;

import java.util.concurrent.atomic.AtomicReference;

/** Prints, as {@code key=value} lines, the carrier a virtual thread runs on and whether GMP is installed. */
public final class WhichSchedulerProbe {
    public static void main(String[] args) throws Exception {
        AtomicReference<String> carrier = new AtomicReference<>();
        Thread.ofVirtual().start(() -> carrier.set(CarrierProbe.carrierOf(Thread.currentThread()))).join();
        System.out.println("carrier=" + carrier.get());
        System.out.println("gmpScheduler=" + (Gmp.scheduler().isPresent() ? "present" : "empty"));
    }
}
