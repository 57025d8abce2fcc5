package dev.kgpu.config.v1;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A device-name pattern in {@code resources.gpus[].pattern} / {@code resources.mig[].pattern}: {@code *}
 * matches any run of characters, everything else matches itself, and the whole name must match
 * ({@code A100*} matches {@code A100-SXM4-40GB}; {@code 1g.5gb} matches only {@code 1g.5gb}).
 */
public record ResourcePattern(String glob) {

    /** @throws IllegalArgumentException whose message is the reason, worded to follow "but it" */
    public ResourcePattern {
        Objects.requireNonNull(glob, "glob");
        if (glob.isEmpty()) {
            throw new IllegalArgumentException("must not be empty (use '*' to match every device)");
        }
    }

    /** Whether {@code deviceName} (a GPU product name or a MIG profile) matches the whole pattern. */
    public boolean matches(String deviceName) {
        StringBuilder regex = new StringBuilder();
        String[] literals = glob.split("\\*", -1);
        for (int i = 0; i < literals.length; i++) {
            if (i > 0) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(literals[i]));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(deviceName).matches();
    }

    @Override
    public String toString() {
        return glob;
    }
}
