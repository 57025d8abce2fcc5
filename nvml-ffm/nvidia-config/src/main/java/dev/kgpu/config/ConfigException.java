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
}
