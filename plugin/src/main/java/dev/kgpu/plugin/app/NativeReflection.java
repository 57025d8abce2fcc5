package dev.kgpu.plugin.app;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What a native executable must keep for reflection: the DRA driver's checkpoint records, which Jackson reads and
 * writes through their record components.
 */
@RegisterForReflection(classNames = {
        "dev.kgpu.plugin.dra.ClaimCheckpoint$ObjectFile",
        "dev.kgpu.plugin.dra.ClaimCheckpoint$Data",
        "dev.kgpu.plugin.dra.ClaimCheckpoint$StoredClaim",
        "dev.kgpu.plugin.dra.ClaimCheckpoint$StoredDevice"})
final class NativeReflection {

    private NativeReflection() {
    }
}
