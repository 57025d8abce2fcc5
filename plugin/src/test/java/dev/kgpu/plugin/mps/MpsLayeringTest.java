package dev.kgpu.plugin.mps;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MPS control daemon is a component of its own beside the device plugin and the DRA driver: it may use the node's
 * shared pieces (node, devices, nvml, config) but no front-end nor the wiring, and the node knows nothing of it. The DRA
 * driver runs one daemon per MPS claim with the package's one-daemon pieces ({@code MpsDaemon}, {@code WatchedDaemon},
 * {@code MpsPaths}, {@code MpsShare}, {@code ControlProgram}, {@code MpsStartException}, {@code MpsSettings}), never the
 * agent itself.
 */
class MpsLayeringTest {

    // Surefire runs in the module folder
    static final Path SOURCES = Path.of("src", "main", "java", "dev", "kgpu", "plugin");

    static List<String> imports(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(f -> f.toString().endsWith(".java")).flatMap(f -> {
                try {
                    return Files.readAllLines(f).stream().filter(l -> l.startsWith("import "))
                            .map(l -> SOURCES.relativize(f) + ": " + l);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).toList();
        }
    }

    @Test
    void theMpsPackageUsesNoFrontEndAndTheNodeDoesNotUseIt() throws IOException {
        assertThat(imports(SOURCES.resolve("mps")))
                .noneMatch(l -> l.contains("dev.kgpu.plugin.deviceplugin") || l.contains("dev.kgpu.plugin.dra")
                        || l.contains("dev.kgpu.plugin.app"));
        assertThat(imports(SOURCES.resolve("node"))).noneMatch(l -> l.contains("dev.kgpu.plugin.mps"));
        List<String> daemonPieces = List.of("MpsDaemon;", "WatchedDaemon;", "MpsPaths;", "MpsShare;", "ControlProgram;",
                "MpsStartException;", "MpsSettings;");
        assertThat(imports(SOURCES.resolve("dra"))).filteredOn(l -> l.contains("dev.kgpu.plugin.mps"))
                .allMatch(l -> daemonPieces.stream().anyMatch(l::endsWith), "imports one of " + daemonPieces);
    }
}
