/**
 * The demo's loaded server ({@link example.probes.LoadedServer}) and sysmon probes: plain
 * virtual-thread programs that know nothing of loom-gmp. They live outside {@code io.loomgmp} on
 * purpose: the agent inserts preemption polls into application classes only, never into loom-gmp's
 * own, and the server's request work and the fairness probe's CPU hogs must be application code,
 * polled as a user's would be. Each prints {@code key=value} lines on standard output.
 */
package example.probes;
