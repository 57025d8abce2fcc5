package dev.kgpu.plugin.devices;

import java.util.OptionalInt;

/** One entry of a resource's device list as the kubelet receives it: ID, health, NUMA node. */
public record DeviceStatus(String id, boolean healthy, OptionalInt numaNode) {
}
