package io.loomgmp.benchmarks.report;

/**
 * Replaces the text between {@value #BEGIN} and {@value #END} in a README, leaving every other
 * byte as it was.
 */
public final class ReadmeSection {
    public static final String BEGIN = "<!-- bench:begin -->";
    public static final String END = "<!-- bench:end -->";

    private ReadmeSection() {
    }

    /**
     * @return {@code readme} with {@code body} between the markers, each marker on its own line
     * @throws IllegalArgumentException unless the README has each marker exactly once, in order
     */
    public static String replace(String readme, String body) {
        int begin = readme.indexOf(BEGIN);
        int end = readme.indexOf(END);
        if (begin < 0 || end < 0 || end < begin || readme.indexOf(BEGIN, begin + 1) >= 0
                || readme.indexOf(END, end + 1) >= 0) {
            throw new IllegalArgumentException("the README needs exactly one " + BEGIN + " followed by one " + END);
        }
        String text = body.endsWith("\n") ? body : body + "\n";
        return readme.substring(0, begin + BEGIN.length()) + "\n" + text + readme.substring(end);
    }
}
