/**
 * The scheduler's JFR events, all named {@code loomgmp.*} and filed under the {@code loom-gmp}
 * category in JDK Mission Control's event browser.
 *
 * <h2>The events</h2>
 * <table>
 *   <caption>Events, when they are committed, and which settings file turns them on</caption>
 *   <tr><th>event</th><th>kind</th><th>committed</th><th>on in</th></tr>
 *   <tr><td>{@link io.loomgmp.jfr.PreemptEvent loomgmp.Preempt}</td><td>instant</td>
 *       <td>sysmon requests a preemption; a P honours one</td><td>both (and by default)</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.HandoffEvent loomgmp.Handoff}</td><td>instant</td>
 *       <td>sysmon hands the P of a blocked carrier to another carrier</td><td>both (and by default)</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.SchedTraceEvent loomgmp.SchedTrace}</td><td>periodic</td>
 *       <td>every period: the schedtrace figures and each P's queue</td><td>both (1 s; 10 ms when tracing)</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.SchedLatencyEvent loomgmp.SchedLatency}</td><td>periodic</td>
 *       <td>every period, per source: how long sampled tasks waited for a carrier (p50, p99, max,
 *       histogram)</td><td>both (1 s; 10 ms when tracing)</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.RunEvent loomgmp.Run}</td><td>duration</td>
 *       <td>one continuation run on a P</td><td>tracing</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.StealEvent loomgmp.Steal}</td><td>instant</td>
 *       <td>a successful steal</td><td>tracing</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.WakeEvent loomgmp.Wake}</td><td>instant</td>
 *       <td>a task is made runnable (unpark, start)</td><td>tracing</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.CarrierParkEvent loomgmp.CarrierPark}</td><td>duration</td>
 *       <td>a carrier parked as an idle M</td><td>tracing</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.CarrierSpinEvent loomgmp.CarrierSpin}</td><td>duration</td>
 *       <td>a carrier searched (spun) for work</td><td>tracing</td></tr>
 *   <tr><td>{@link io.loomgmp.jfr.CarrierResyncEvent loomgmp.CarrierResync}</td><td>instant</td>
 *       <td>no data: taken by the JDK's loss of a carrier's first event after a virtual thread's</td>
 *       <td>both (and by default)</td></tr>
 * </table>
 * Per-run events are {@code @Enabled(false)} by default: a recording started with the JDK's own
 * {@code default} or {@code profile} settings records only the cheap ones. A committed event
 * without a stack trace costs about 80 ns and 40 bytes, which is too much to pay on every run
 * unless someone asked for a trace.
 *
 * <h2>Settings files</h2>
 * {@code io/loomgmp/jfr/loomgmp.jfc} (always-on: preemptions, hand-offs, schedtrace and scheduling
 * latency every second)
 * and {@code io/loomgmp/jfr/loomgmp-trace.jfc} (tracing: adds runs, steals, wakes, carrier parks
 * and spins, schedtrace and scheduling latency every 10 ms) ship in this jar; see {@link io.loomgmp.jfr.Settings}. Add
 * them to the JDK's own with a second {@code settings=}:
 * {@code -XX:StartFlightRecording:filename=rec.jfr,settings=default,settings=/path/loomgmp-trace.jfc}.
 *
 * <h2>Emitting (for the scheduler)</h2>
 * Every field is public and primitive or a String, so the scheduler sets them directly. The JIT
 * removes the event object when it does not escape; with no recording running, or with the event
 * disabled, what remains is one branch on a static flag ({@code shouldCommit()} for a duration
 * event after {@code end()}, {@code isEnabled()} before filling an instant's fields):
 * <pre>{@code
 * RunEvent run = new RunEvent();
 * run.begin();
 * task.run();
 * run.end();
 * if (run.shouldCommit()) {            // false unless a recording has loomgmp.Run enabled
 *     run.processor = p.id;
 *     run.carrierThread = carrier.threadId();
 *     run.virtualThread = vtId;
 *     run.source = RunEvent.SOURCE_RUNNEXT;
 *     run.commit();
 * }
 * }</pre>
 * The viewer (module {@code trace-viewer}, {@code io.loomgmp.trace.Main}) reads a recording back
 * and draws it per P.
 */
package io.loomgmp.jfr;
