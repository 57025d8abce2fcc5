package dev.kgpu.exporter.config;

import java.util.List;

/**
 * The exporter's settings were wrong. Each problem is one line worded
 * {@code <property> was '<value>' but it <reason>}; the message holds them all.
 */
public final class ConfigException extends RuntimeException {

    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
