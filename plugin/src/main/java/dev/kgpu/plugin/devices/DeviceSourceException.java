package dev.kgpu.plugin.devices;

/** The driver could not be reached or did not answer; the message says which call failed and why. */
public final class DeviceSourceException extends RuntimeException {

    public DeviceSourceException(String message, Throwable cause) {
        super(message, cause);
    }
}
