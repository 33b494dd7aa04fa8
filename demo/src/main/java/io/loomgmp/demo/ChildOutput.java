package io.loomgmp.demo;

import java.util.Map;

/**
 * The {@code key=value} lines a workload JVM printed, read as figures; a missing or garbled one is
 * a {@link DemoFailure}, never a default.
 */
record ChildOutput(String title, Map<String, String> values) {
    String text(String key) throws DemoFailure {
        String value = values.get(key);
        if (value == null) {
            throw new DemoFailure(title + " printed no " + key + " (it printed " + values + ")");
        }
        return value;
    }

    double number(String key) throws DemoFailure {
        String value = text(key);
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new DemoFailure(title + " printed " + key + "=" + value + ", not a number");
        }
    }

    boolean flag(String key) throws DemoFailure {
        String value = text(key);
        if (!value.equals("true") && !value.equals("false")) {
            throw new DemoFailure(title + " printed " + key + "=" + value + ", not true or false");
        }
        return value.equals("true");
    }
}
