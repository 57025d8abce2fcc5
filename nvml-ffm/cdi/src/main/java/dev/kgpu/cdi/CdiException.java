package dev.kgpu.cdi;

/**
 * A CDI spec, name or directory that cannot be used, with one line naming the field or file and the value:
 * {@code devices[].name was '-x' but it must start with a letter or digit}, or the runtime's own wording where a
 * runtime would fail ({@code unresolvable CDI devices k8s.device-plugin.nvidia.com/gpu=GPU-...}).
 */
public class CdiException extends RuntimeException {

    public CdiException(String message) {
        super(message);
    }

    public CdiException(String message, Throwable cause) {
        super(message, cause);
    }
}
