package dev.kgpu.plugin.deviceplugin.resources;

/**
 * The node's devices cannot be served as configured. The message names the setting and the value,
 * worded {@code <property> was '<value>' but it <reason>}.
 */
public final class ResourcePlanException extends RuntimeException {

    public ResourcePlanException(String message) {
        super(message);
    }
}
