package dev.kgpu.plugin.deviceplugin;

import dev.kgpu.cdi.CdiSpecWriter;
import dev.kgpu.cdi.NvidiaCdiGenerator;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How the plugin keeps its CDI spec. Immutable.
 *
 * @param enabled       a CDI strategy ({@code cdi-annotations}, {@code cdi-cri}) is among {@code deviceListStrategy}:
 *                      the plugin hands out CDI names, so it writes the spec they resolve through
 * @param specDirectory {@code KGPU_CDI_SPEC_DIR}, where the spec is written ({@code /var/run/cdi})
 * @param generator     names, roots and hook path, from NVIDIA's flags ({@code deviceIDStrategy},
 *                      {@code containerDriverRoot}, {@code nvidiaDriverRoot}, {@code nvidiaDevRoot},
 *                      {@code nvidiaCTKPath})
 */
public record CdiSettings(boolean enabled, Path specDirectory, NvidiaCdiGenerator.Options generator) {

    public CdiSettings {
        Objects.requireNonNull(specDirectory, "specDirectory");
        Objects.requireNonNull(generator, "generator");
    }

    /** No CDI strategy: no spec written. */
    public static CdiSettings off() {
        return new CdiSettings(false, CdiSpecWriter.DEFAULT_DIRECTORY, NvidiaCdiGenerator.Options.devicePlugin(
                Path.of("/driver-root"), Path.of("/"), NvidiaCdiGenerator.NameStrategy.UUID));
    }
}
