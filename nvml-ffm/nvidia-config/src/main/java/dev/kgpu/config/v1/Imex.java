package dev.kgpu.config.v1;

import dev.kgpu.config.InvalidConfigException;
import java.util.List;

/**
 * {@code imex}: IMEX channels injected into every container that gets a GPU.
 *
 * @param channelIDs the channels, {@code []} or {@code [0]} (the only values NVIDIA accepts)
 * @param required   whether the channels must exist when the plugin starts
 */
public record Imex(List<Integer> channelIDs, boolean required) {

    public static final Imex NONE = new Imex(List.of(), false);

    public Imex {
        channelIDs = List.copyOf(channelIDs);
        if (!(channelIDs.isEmpty() || channelIDs.equals(List.of(0)))) {
            throw InvalidConfigException.of("channelIDs", channelIDs, "must be [] or [0]");
        }
    }
}
