package dev.kgpu.config;

/**
 * {@code --help} or {@code -h} was given: the message is the usage text to print, and the agent exits 0.
 */
public final class UsageRequestedException extends ConfigException {

    public UsageRequestedException(String usage) {
        super(usage);
    }

    @Override
    public int exitCode() {
        return 0;
    }
}
