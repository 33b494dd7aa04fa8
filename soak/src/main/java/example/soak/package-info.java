/**
 * The soak's application code: what a program that knows nothing of loom-gmp would run. It lives
 * outside {@code io.loomgmp} on purpose: the agent inserts preemption polls into application
 * classes only, never into loom-gmp's own, so {@link example.soak.CpuHog}'s loop must be here to
 * be preemptible; and {@link example.soak.SlowInit} must be a class of its own, defined afresh by
 * each {@link example.soak.InitGate}, to pin virtual threads in a class initialiser again and again.
 */
package example.soak;
