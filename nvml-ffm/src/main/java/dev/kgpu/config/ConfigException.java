package dev.kgpu.config;

/**
 * Why an agent cannot start with the configuration it was given. Only the agent's entry point
 * catches it, prints {@link #getMessage()} on one line and exits with {@link #exitCode()}.
 */
public abstract sealed class ConfigException extends RuntimeException
        permits InvalidConfigException, UsageRequestedException {

    ConfigException(String message) {
        super(message);
    }

    /** The process exit status the entry point should use: 0 after {@code --help}, 1 otherwise. */
    public abstract int exitCode();

    /**
     * What an agent's entry point does with this: prints the usage text on stdout after {@code --help}, or
     * {@code <binary>: invalid configuration: <failure>; <failure>} as one line on stderr, and returns the
     * exit status to end with ({@link #exitCode()}).
     *
     * @param binary the agent, e.g. {@code kgpu-exporter}
     */
    public int report(String binary) {
        switch (this) {
            case UsageRequestedException usage -> System.out.println(usage.getMessage());
            case InvalidConfigException invalid -> System.err.println(binary + ": " + invalid.getMessage());
        }
        return exitCode();
    }
}
