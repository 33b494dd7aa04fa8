/**
 * The dispatcher's hooks for the Loom bridge only: seeing through virtual threads to their
 * carriers, naming a task's virtual thread in JFR events, telling a yield from a hand-off, and the
 * preemption poll. Not an API for applications: {@code module-info} exports this package to
 * {@code io.loomgmp.bridge} alone. See {@link io.loomgmp.dispatcher.loom.LoomSupport}.
 */
package io.loomgmp.dispatcher.loom;
