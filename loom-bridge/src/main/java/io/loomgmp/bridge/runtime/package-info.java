/**
 * What the bridge's API ({@code io.loomgmp.bridge}) and the agent ({@code io.loomgmp.bridge.agent})
 * both need at run time: the scheduler the agent installed ({@link io.loomgmp.bridge.runtime.GmpState}),
 * the executor that runs continuations on GMP ({@link io.loomgmp.bridge.runtime.ContinuationExecutor}),
 * the access to the JDK's internals ({@link io.loomgmp.bridge.runtime.JdkInternals}) and this build's
 * release ({@link io.loomgmp.bridge.runtime.AgentRelease}). It depends on neither of them, so the API
 * does not depend on the agent (BridgePackagesTest checks it). Not exported: public here means
 * "for the API and the agent", not for users.
 */
package io.loomgmp.bridge.runtime;
