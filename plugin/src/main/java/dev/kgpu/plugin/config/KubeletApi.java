package dev.kgpu.plugin.config;

import dev.kgpu.config.v1.WireValue;

/** A kubelet API the plugin serves ({@code KGPU_KUBELET_APIS}): the device-plugin API, DRA, or both. */
public enum KubeletApi implements WireValue {
    /** The device-plugin API {@code v1beta1}: {@code nvidia.com/gpu} and the other extended resources. */
    DEVICE_PLUGIN("device-plugin"),
    /** Dynamic resource allocation: the kubelet plugin of driver {@code gpu.nvidia.com} and its ResourceSlices. */
    DRA("dra");

    private final String wireName;

    KubeletApi(String wireName) {
        this.wireName = wireName;
    }

    @Override
    public String wireName() {
        return wireName;
    }
}
