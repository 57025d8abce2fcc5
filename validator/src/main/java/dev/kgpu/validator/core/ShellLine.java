package dev.kgpu.validator.core;

import java.util.regex.Pattern;

/** {@code NAME=value} lines that {@code sh} can source; values are quoted only when they need it. */
final class ShellLine {

    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_./:@%+,-]*");

    private ShellLine() {
    }

    static String of(String name, String value) {
        if (SAFE.matcher(value).matches()) {
            return name + "=" + value;
        }
        return name + "='" + value.replace("'", "'\\''") + "'";
    }
}
