package io.loomgmp.demo;

import java.io.PrintStream;
import java.util.List;

/**
 * The demo's standard output: a section per question a user asks of a scheduler, each a table of
 * rows, and under each row one plain line on what it means. A row's label starts its line, its
 * explanation is indented: the smoke test reads rows by their labels.
 */
final class Report {
    private static final int LABEL_WIDTH = 46;
    private static final int COLUMN_WIDTH = 12;
    private static final String EXPLANATION = "      ";
    /** Where a section's description wraps: a terminal of 100 columns shows it as written. */
    private static final int WRAP = 100;

    private final PrintStream out;

    Report(PrintStream out) {
        this.out = out;
    }

    /** A blank line, the title, and a paragraph that says what the section runs, wrapped. */
    void section(String title, String description) {
        out.println();
        out.println(title);
        StringBuilder line = new StringBuilder(" ");
        for (String word : description.split(" ")) {
            if (line.length() + 1 + word.length() > WRAP) {
                out.println(line);
                line = new StringBuilder(" ");
            }
            line.append(' ').append(word);
        }
        out.println(line);
    }

    /** The heading of the figure columns. */
    void columns(String... headings) {
        out.println(line("", List.of(headings)));
    }

    /** A row of figures (as printed: a number, "none", "starved", "-"), and what it means. */
    void row(String label, List<String> figures, String explanation) {
        out.println(line(label, figures));
        out.println(EXPLANATION + explanation);
    }

    /** A line of its own, not part of a row: a note, a carrier check. */
    void note(String text) {
        out.println(text);
    }

    void flush() {
        out.flush();
    }

    private static String line(String label, List<String> cells) {
        StringBuilder line = new StringBuilder(String.format("%-" + LABEL_WIDTH + "s", label));
        for (String cell : cells) {
            line.append(String.format("%" + COLUMN_WIDTH + "s", cell));
        }
        return line.toString().stripTrailing();
    }
}
