package dev.kgpu.validator.adapters;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kgpu.validator.core.CdiSpecs;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.ValidationFailure;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * CDI specs in a directory ({@code /var/run/cdi} or {@code /etc/cdi}), YAML or JSON, as
 * {@code nvidia-ctk cdi generate} writes them: {@code kind: nvidia.com/gpu} and {@code devices[].name}.
 */
public final class CdiSpecDirectory implements CdiSpecs {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path directory;

    public CdiSpecDirectory(Path directory) {
        this.directory = directory;
    }

    @Override
    public String directory() {
        return directory.toString();
    }

    @Override
    public List<Spec> read() {
        if (!Files.isDirectory(directory)) {
            throw new ValidationFailure(Layer.RUNTIME, "CDI spec directory " + directory
                    + " does not exist (KGPU_CDI_SPEC_DIR); generate specs with nvidia-ctk cdi generate");
        }
        List<Spec> specs = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.{yaml,yml,json}")) {
            for (Path file : files) {
                specs.add(parse(file));
            }
        } catch (IOException e) {
            throw new ValidationFailure(Layer.RUNTIME, "could not list CDI spec directory " + directory + ": " + e, e);
        }
        return specs;
    }

    private static Spec parse(Path file) {
        JsonNode root;
        try {
            ObjectMapper mapper = file.getFileName().toString().endsWith(".json") ? JSON : YAML;
            root = mapper.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new ValidationFailure(Layer.RUNTIME, "CDI spec " + file + " is not valid "
                    + (file.toString().endsWith(".json") ? "JSON" : "YAML") + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ValidationFailure(Layer.RUNTIME, "could not read CDI spec " + file + ": " + e, e);
        }
        if (root == null || !root.path("kind").isTextual()) {
            throw new ValidationFailure(Layer.RUNTIME, "CDI spec " + file + " has no kind (expected e.g. kind: nvidia.com/gpu)");
        }
        Set<String> names = new HashSet<>();
        for (JsonNode device : root.path("devices")) {
            if (device.path("name").isTextual()) {
                names.add(device.path("name").asText());
            }
        }
        return new Spec(file.toString(), root.path("kind").asText(), names);
    }
}
