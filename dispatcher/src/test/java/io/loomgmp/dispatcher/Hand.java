package io.loomgmp.dispatcher;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Carriers driven by hand on an inert scheduler ({@link SchedulerConfig#inert}: no sysmon, no
 * carrier thread started by the scheduler), for the unit tests of {@link Parking} and
 * {@link HandOff}. The test thread plays wakers and sysmon; a carrier that must park gets a
 * platform thread of its own.
 */
final class Hand {
    private Hand() {
    }

    /** Carrier {@code name} takes an idle P, as a waker hands it one, and holds it in its loop. */
    static Carrier holding(Scheduling s, String name) {
        Carrier m = new Carrier(s, name);
        s.lock.lock();
        try {
            Processor p = s.idle.getP();
            if (p == null) {
                fail("no idle P for " + name);
            }
            p.acquire(m);
        } finally {
            s.lock.unlock();
        }
        return m;
    }

    /** Carrier {@code name} takes P {@code id}, which must be idle, off the idle list and holds it in its loop. */
    static Carrier holding(Scheduling s, int id, String name) {
        Carrier m = new Carrier(s, name);
        s.lock.lock();
        try {
            Processor p = s.allp[id];
            if (!s.idle.takeP(p)) {
                fail("P" + id + " was not idle");
            }
            p.acquire(m);
        } finally {
            s.lock.unlock();
        }
        return m;
    }

    /** Carrier {@code m}, holding its P in its loop, gives it up: {@code Parking.stop}'s step 8 alone. */
    static void giveUp(Scheduling s, Carrier m) {
        s.parking.releaseP(m);
    }

    /** As a waker does: takes an idle P and hands it to the carrier parked most recently. */
    static Carrier wakeOne(Scheduling s) {
        Processor p;
        Parking.Reservation r;
        s.lock.lock();
        try {
            p = s.idle.getP();
            r = s.parking.reserveCarrier();
            if (p == null || r == null || r.parked() == null) {
                fail("no idle P (" + p + ") or no parked carrier (" + r + ")");
            }
        } finally {
            s.lock.unlock();
        }
        return s.parking.handTo(r, p, false);
    }

    /** Runs {@code action} as carrier {@code m}, on a daemon platform thread of its own. */
    static <T> CompletableFuture<T> onItsOwnThread(Carrier m, Supplier<T> action) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().daemon().name(m.name).unstarted(() -> {
            try {
                result.complete(action.get());
            } catch (Throwable failure) {
                result.completeExceptionally(failure);
            }
        });
        m.thread = thread; // published to wakers by Thread.start
        thread.start();
        return result;
    }

    /** Waits, at most {@link Probe#BOUND}, until {@code condition} holds; fails with {@code what}. */
    static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Probe.BOUND.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail(what + " did not happen within " + Probe.BOUND);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** The result of {@code future}, waited for at most {@link Probe#BOUND}. */
    static <T> T result(CompletableFuture<T> future, String what) {
        try {
            return future.get(Probe.BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return fail(what + " did not return within " + Probe.BOUND);
        } catch (ExecutionException e) {
            throw new AssertionError(what + " threw", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted waiting for " + what);
        }
    }
}
