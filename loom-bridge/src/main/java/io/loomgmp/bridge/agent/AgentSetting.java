package io.loomgmp.bridge.agent;

/**
 * Every setting of the agent: its agent argument, its system property, what it accepts and its
 * default. The one list that {@link AgentSettings} parses by and that {@code java -jar
 * loom-gmp-agent.jar} prints ({@link AgentUsage}); docs/configuration.md's table documents the same
 * rows with the same texts (AgentSettingTest checks it row by row).
 * {@code strict} is also read by {@link UnsupportedJdkPolicy}, compiled for Java 8, on a JDK too
 * old for this class.
 */
enum AgentSetting {
    PARALLELISM("parallelism", "jdk.virtualThreadScheduler.parallelism", "N",
            "1 to 32767: the number of Ps", "available processors"),
    MAX_POOL_SIZE("maxPoolSize", "jdk.virtualThreadScheduler.maxPoolSize", "N",
            "1 to 32767: the carrier bound; below parallelism it lowers it, as in the JDK", "max(parallelism, 256)"),
    TIMESLICE("timeslice", "gmp.timeslice", "DURATION",
            "a positive duration with a unit (ns, us, ms, s): 500us, 10ms, 1s", "10ms"),
    KEEPALIVE("keepalive", "gmp.keepalive", "DURATION",
            "a positive duration: how long a spare idle carrier (beyond parallelism) lives", "30s"),
    SCHEDTRACE("schedtrace", "gmp.schedtrace", "MS",
            "print the schedtrace line every MS milliseconds on stderr; 0 = off", "0"),
    LATENCY_SAMPLE("latency.sample", "gmp.latency.sample", "N",
            "0 to 1000000: time about one task in N from queued to running (the scheduling latency);"
                    + " 1 = every task, 0 = off", "8"),
    PREEMPT("preempt", "gmp.preempt", "true|false",
            "insert preemption polls into application classes", "true"),
    PREEMPT_INCLUDE("preempt.include", "gmp.preempt.include", "PREFIXES",
            "package prefixes separated by ';' (com.acme.;org.example.): only these classes get polls",
            "every application class"),
    PREEMPT_EXCLUDE("preempt.exclude", "gmp.preempt.exclude", "PREFIXES",
            "package prefixes separated by ';' left without polls (wins over include)", "none"),
    MXBEAN("mxbean", "gmp.mxbean", "true|false",
            "register the scheduler's MXBean once the platform MBean server exists", "true"),
    TIMERS("timers", "gmp.timers", "true|false",
            "virtual threads' timeouts (sleep, timed park and wait) become timers of GMP's Ps"
                    + " instead of the JDK's timer threads", "true"),
    VERBOSE("verbose", "gmp.verbose", "true|false",
            "print one line on stderr at start-up: the agent's version and the settings in force", "false"),
    STRICT(UnsupportedJdkPolicy.ARGUMENT, UnsupportedJdkPolicy.PROPERTY, "true|false",
            "on a JDK the agent cannot put on GMP, refuse to start (exit 1) instead of one warning line"
                    + " and running on the JDK's default scheduler", "false");

    /** The agent argument's name: {@code -javaagent:loom-gmp-agent.jar=<argument>=value}. */
    final String argument;
    /** The system property: {@code -D<property>=value}. */
    final String property;
    /** The value's form in the accepted-arguments list: N, DURATION, true|false... */
    final String valueForm;
    final String accepted;
    final String defaultValue;

    AgentSetting(String argument, String property, String valueForm, String accepted, String defaultValue) {
        this.argument = argument;
        this.property = property;
        this.valueForm = valueForm;
        this.accepted = accepted;
        this.defaultValue = defaultValue;
    }

    /**
     * Whether a running JVM can change it without a restart: only the number of Ps, through the
     * JDK's {@code VirtualThreadSchedulerMXBean.setParallelism} (which the agent points at
     * {@code GmpScheduler.setProcs}). Every other setting is read once, at start-up.
     */
    boolean changesAtRunTime() {
        return this == PARALLELISM;
    }

    /** {@code parallelism=N}. */
    String argumentForm() {
        return argument + "=" + valueForm;
    }
}
