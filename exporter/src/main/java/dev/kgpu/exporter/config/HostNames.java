package dev.kgpu.exporter.config;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** The host's own name, read as Go's {@code os.Hostname} reads it (the kernel's, else the resolver's). */
final class HostNames {

    private HostNames() {
    }

    static String ofThisHost() {
        try {
            String kernel = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (!kernel.isEmpty()) {
                return kernel;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc hidden: fall back to the resolver
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return null;
        }
    }
}
