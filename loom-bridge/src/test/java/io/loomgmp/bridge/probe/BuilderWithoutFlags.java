package io.loomgmp.bridge.probe;

import io.loomgmp.bridge.GmpVirtualThreads;
import io.loomgmp.dispatcher.GmpScheduler;

/** Run without the agent and without JVM flags: prints what the per-builder API says. */
public final class BuilderWithoutFlags {
    public static void main(String[] args) {
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(1).build()) {
            GmpVirtualThreads.builder(scheduler);
            System.out.println("error=none");
        } catch (IllegalStateException e) {
            System.out.println("error=" + e.getMessage());
        }
    }
}
