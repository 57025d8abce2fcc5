package dev.kgpu.exporter.config;

/**
 * The label naming the node on every series: {@code Hostname} as dcgm-exporter up to 4.8.2 prints it, or
 * {@code hostname} as 4.6.0-4.8.3 and later print it ({@code KGPU_EXPORTER_HOSTNAME_LABEL}).
 *
 * @param name  {@code Hostname} or {@code hostname}
 * @param value {@code NODE_NAME}, else the host's name
 */
public record HostnameLabel(String name, String value) {

    public static final String LEGACY = "Hostname";
    public static final String CURRENT = "hostname";

    public HostnameLabel {
        if (!LEGACY.equals(name) && !CURRENT.equals(name)) {
            throw new IllegalArgumentException("KGPU_EXPORTER_HOSTNAME_LABEL was '" + name
                    + "' but it must be 'Hostname' or 'hostname'");
        }
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("hostname was '" + value + "' but it must not be empty");
        }
    }
}
