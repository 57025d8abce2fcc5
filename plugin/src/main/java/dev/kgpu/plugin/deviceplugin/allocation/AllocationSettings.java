package dev.kgpu.plugin.deviceplugin.allocation;

import java.util.Objects;
import java.util.Optional;

/**
 * The configuration Allocate reads, taken from {@code flags} and {@code flags.plugin} of NVIDIA's config.
 * Immutable.
 *
 * @param envvar              {@code deviceListStrategy} includes {@code envvar}
 * @param volumeMounts        ... {@code volume-mounts}
 * @param cdiAnnotations      ... {@code cdi-annotations}
 * @param cdiCri              ... {@code cdi-cri}
 * @param indexIds            {@code deviceIDStrategy: index} (else UUIDs)
 * @param passDeviceSpecs     pass {@code /dev/nvidia*} device specs
 * @param devRoot             {@code nvidiaDevRoot}: host paths of device nodes are under it
 * @param cdiAnnotationPrefix prefix of the CDI annotation key, {@code cdi.k8s.io/} by default
 * @param mpsRoot             {@code mpsRoot}, present when MPS shares devices
 * @param gdrcopy             {@code gdrcopyEnabled}
 * @param gds                 {@code gdsEnabled}
 * @param mofed               {@code mofedEnabled}
 */
public record AllocationSettings(boolean envvar, boolean volumeMounts, boolean cdiAnnotations, boolean cdiCri,
                                 boolean indexIds, boolean passDeviceSpecs, String devRoot, String cdiAnnotationPrefix,
                                 Optional<String> mpsRoot, boolean gdrcopy, boolean gds, boolean mofed) {

    public AllocationSettings {
        if (!envvar && !volumeMounts && !cdiAnnotations && !cdiCri) {
            throw new IllegalArgumentException("deviceListStrategy was '[]' but it must name at least one strategy");
        }
        Objects.requireNonNull(devRoot, "devRoot");
        Objects.requireNonNull(cdiAnnotationPrefix, "cdiAnnotationPrefix");
        Objects.requireNonNull(mpsRoot, "mpsRoot");
    }

    /** NVIDIA's defaults: envvar, UUIDs, no device specs, driver root {@code /}. */
    public static AllocationSettings defaults() {
        return new AllocationSettings(true, false, false, false, false, false, "/", "cdi.k8s.io/",
                Optional.empty(), false, false, false);
    }

    boolean onlyCdi() {
        return !envvar && !volumeMounts;
    }
}
