package io.loomgmp.benchmarks.report;

/**
 * Replaces the text between {@value #BEGIN} and {@value #END} in a README, leaving every other
 * byte as it was; or between other markers (the saturation benchmark's section of
 * docs/performance.md).
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
        return replace(readme, BEGIN, END, body);
    }

    /**
     * @return {@code text} with {@code body} between {@code beginMarker} and {@code endMarker}
     * @throws IllegalArgumentException unless the text has each marker exactly once, in order
     */
    public static String replace(String text, String beginMarker, String endMarker, String body) {
        int begin = text.indexOf(beginMarker);
        int end = text.indexOf(endMarker);
        if (begin < 0 || end < 0 || end < begin || text.indexOf(beginMarker, begin + 1) >= 0
                || text.indexOf(endMarker, end + 1) >= 0) {
            throw new IllegalArgumentException("the file needs exactly one " + beginMarker + " followed by one " + endMarker);
        }
        String section = body.endsWith("\n") ? body : body + "\n";
        return text.substring(0, begin + beginMarker.length()) + "\n" + section + text.substring(end);
    }
}
