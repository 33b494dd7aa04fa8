-- The saturation benchmark's wrk script (io.loomgmp.benchmarks.saturation.Wrk): wrk sends its
-- plain GETs as usual, and at the end done() prints one line that LoadResult parses, so that the
-- runner reads numbers rather than wrk's human-readable, unit-scaled summary.
-- Latencies are wrk's own, in microseconds. wrk 4 applies its coordinated-omission correction to
-- its latency histogram before done() sees it: mean_us is printed so that the report can compare
-- it with the closed loop's true mean (Little's law: connections x duration / requests).
done = function(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "SATURATION requests=%d duration_us=%d connect_errors=%d read_errors=%d write_errors=%d"
      .. " status_errors=%d timeouts=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d mean_us=%d\n",
    summary.requests, summary.duration, errors.connect, errors.read, errors.write,
    errors.status, errors.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max,
    math.floor(latency.mean + 0.5)))
end
