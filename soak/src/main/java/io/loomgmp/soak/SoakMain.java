package io.loomgmp.soak;

/**
 * {@code ./loomgmp soak}: parses the options ({@link SoakOptions}), checks that this JVM can run
 * the soak ({@link Preflight}), runs it ({@link Soak}) and exits with its status: 0 if every check
 * held, 1 if one failed or the run got stuck, 2 for a bad argument or a JVM that cannot run it.
 * The exit halts the JVM at once (after flushing), so that nothing left running can keep it alive
 * or delay the status.
 */
public final class SoakMain {
    private SoakMain() {
    }

    public static void main(String[] args) {
        SoakOptions options;
        try {
            options = SoakOptions.parse(args);
        } catch (SoakOptions.BadArgument e) {
            System.err.println("soak: " + e.getMessage());
            System.err.println("soak: ./loomgmp soak --help lists the options");
            exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(SoakOptions.USAGE);
            exit(0);
            return;
        }
        String problem = Preflight.problem();
        if (problem != null) {
            System.err.println("soak: cannot run: " + problem);
            exit(2);
            return;
        }
        int status;
        try {
            status = new Soak(options, System.out, System.err, SoakMain::exit).run();
        } catch (Throwable e) {
            System.err.println("soak: FAILED: the soak itself failed");
            e.printStackTrace();
            status = 1;
        }
        exit(status);
    }

    private static void exit(int status) {
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }
}
