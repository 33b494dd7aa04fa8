package io.loomgmp.bridge.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * The virtual thread a scheduled task belongs to, for JFR events (its id, and whether its run
 * ended because it finished or parked): on JDK 25 the task a virtual
 * thread submits is its {@code runContinuation}, a method reference ({@code this::runContinuation})
 * whose hidden class holds the thread in its one captured field. Read through a getter found once
 * per class; needs {@code java.lang} opened to this module (the agent opens it; the per-builder
 * API requires it). Any other task, or no access, gives null.
 */
final class TaskThreads {
    private static final ClassValue<MethodHandle> CAPTURED_THREAD = new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
            return capturedThreadGetter(type);
        }
    };

    private TaskThreads() {
    }

    /** The virtual thread whose continuation {@code task} runs, or null. */
    static Thread of(Runnable task) {
        MethodHandle getter = CAPTURED_THREAD.get(task.getClass());
        if (getter == null) {
            return null;
        }
        try {
            return (Thread) getter.invokeExact((Object) task);
        } catch (Throwable e) {
            return null;
        }
    }

    /** A getter {@code (Object) -> Thread} for a hidden class's only field, if it holds a virtual thread; else null. */
    private static MethodHandle capturedThreadGetter(Class<?> type) {
        if (!type.isHidden()) {
            return null;
        }
        Field[] fields = type.getDeclaredFields();
        if (fields.length != 1 || Modifier.isStatic(fields[0].getModifiers())
                || !fields[0].getType().getName().equals("java.lang.VirtualThread")) {
            return null;
        }
        try {
            return MethodHandles.privateLookupIn(type, MethodHandles.lookup()).unreflectGetter(fields[0])
                    .asType(MethodType.methodType(Thread.class, Object.class));
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }
}
