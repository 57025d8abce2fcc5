package dev.kgpu.nvml;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Only nvml-ffm/nvml may see its jextract bindings and FFM plumbing: no Java source of another module of the
 * repository (the services, deploy/ and anything nested) may name {@code dev.kgpu.nvml.internal}. Other
 * modules use the public {@code dev.kgpu.nvml} API and, in tests, {@code dev.kgpu.nvml.mock.MockNvml}.
 */
class InternalPackageBoundaryTest {

    private static final Pattern INTERNAL = Pattern.compile("\\bdev\\.kgpu\\.nvml\\.internal\\b");
    private static final Set<String> SKIPPED = Set.of("target", "node_modules", ".git", ".mvn", ".idea");

    @Test
    void noOtherModuleUsesTheInternalPackage() throws IOException {
        Path module = Path.of("").toAbsolutePath();
        Path shared = module.getParent();
        Path repository = shared == null ? null : shared.getParent();
        assumeTrue(repository != null && Files.isRegularFile(repository.resolve("pom.xml"))
                        && module.getFileName().toString().equals("nvml") && shared.getFileName().toString().equals("nvml-ffm"),
                "not run from nvml-ffm/nvml inside the kgpu repository");

        List<String> offenders = new ArrayList<>();
        int[] scanned = {0};
        Files.walkFileTree(repository, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                return dir.equals(module) || SKIPPED.contains(name) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (file.toString().endsWith(".java") && file.toString().contains("/src/")) {
                    scanned[0]++;
                    List<String> lines = Files.readAllLines(file);
                    for (int i = 0; i < lines.size(); i++) {
                        if (INTERNAL.matcher(lines.get(i)).find()) {
                            offenders.add(repository.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
                        }
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });

        assertThat(offenders)
                .as("uses of dev.kgpu.nvml.internal outside nvml-ffm/nvml (%d files scanned); use the public dev.kgpu.nvml API",
                        scanned[0])
                .isEmpty();
    }
}
