package dev.kgpu.validator.config;

import java.util.List;

/**
 * The settings are wrong. Carries every problem found, each worded
 * {@code <property> was '<value>' but it <reason>}.
 */
public final class SettingsException extends RuntimeException {

    private final List<String> problems;

    public SettingsException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
