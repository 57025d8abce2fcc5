package dev.kgpu.plugin.deviceplugin.resources;

import dev.kgpu.plugin.devices.NodeInventory;
import dev.kgpu.plugin.devices.PluginResource;

import java.util.List;

/**
 * Decides which resources the plugin serves on a node: names, devices and replicas, from the
 * configuration's MIG strategy and sharing settings.
 */
@FunctionalInterface
public interface ResourcePlanner {

    /**
     * The resources to serve, each with at least one device, in a stable order.
     *
     * @throws ResourcePlanException when the node cannot be served as configured (e.g. MIG devices that are
     *                               not identical under the {@code single} strategy)
     */
    List<PluginResource> plan(NodeInventory inventory);
}
