package dev.kgpu.nvml;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Only nvml-ffm may see its jextract bindings and FFM plumbing: no source file of another module of the
 * repository may name {@code dev.kgpu.nvml.internal}. Other modules use the public {@code dev.kgpu.nvml}
 * API and, in tests, {@code dev.kgpu.nvml.testing.MockNvml}.
 */
class InternalPackageBoundaryTest {

    private static final Pattern INTERNAL = Pattern.compile("\\bdev\\.kgpu\\.nvml\\.internal\\b");

    @Test
    void noOtherModuleUsesTheInternalPackage() throws IOException {
        Path repository = Path.of("").toAbsolutePath().getParent();
        assumeTrue(repository != null && Files.isRegularFile(repository.resolve("pom.xml"))
                        && Files.isDirectory(repository.resolve("nvml-ffm")),
                "not run inside the kgpu repository (no ../pom.xml beside nvml-ffm)");

        List<String> offenders = new ArrayList<>();
        int scanned = 0;
        try (Stream<Path> modules = Files.list(repository)) {
            for (Path module : modules.filter(Files::isDirectory).toList()) {
                Path sources = module.resolve("src");
                if (module.getFileName().toString().equals("nvml-ffm") || !Files.isDirectory(sources)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(sources)) {
                    for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                        scanned++;
                        List<String> lines = Files.readAllLines(file);
                        for (int i = 0; i < lines.size(); i++) {
                            if (INTERNAL.matcher(lines.get(i)).find()) {
                                offenders.add(repository.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
                            }
                        }
                    }
                } catch (UncheckedIOException e) {
                    throw e.getCause();
                }
            }
        }
        assertThat(offenders)
                .as("uses of dev.kgpu.nvml.internal outside nvml-ffm (%d files scanned); use the public dev.kgpu.nvml API", scanned)
                .isEmpty();
    }
}
