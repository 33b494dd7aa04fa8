package io.loomgmp.trace;

/** The little JSON both writers need: string literals and nanoseconds as microsecond decimals. */
final class Json {
    private Json() {
    }

    /** Appends s as a JSON string literal; also escapes '<' so the text is safe inside a script tag. */
    static StringBuilder string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '<' -> out.append("\\u003c");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    static String string(String s) {
        return string(new StringBuilder(s.length() + 2), s).toString();
    }

    /**
     * Non-negative nanoseconds as microseconds with three decimals ("12.345"): the Chrome format's
     * unit for ts and dur, written exactly, with no floating-point rounding.
     */
    static StringBuilder micros(StringBuilder out, long nanos) {
        if (nanos < 0) {
            out.append('-');
            nanos = -nanos;
        }
        long fraction = nanos % 1000;
        out.append(nanos / 1000).append('.');
        if (fraction < 100) out.append('0');
        if (fraction < 10) out.append('0');
        return out.append(fraction);
    }
}
