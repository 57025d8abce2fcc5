package dev.kgpu.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An OCI image layout as build-images writes it, read with nothing but the JSON files of the OCI image spec:
 * {@code index.json} names each image {@code <agent>-<version>}; each manifest lists the config and layers.
 */
record ImageLayout(Path root, Map<String, Image> images) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One image: the manifest's digest, its config, and its layers bottom up. */
    record Image(String ref, String manifestDigest, JsonNode config, List<Layer> layers) {

        JsonNode settings() {
            return config.path("config");
        }

        long compressedSize() {
            return layers.stream().mapToLong(Layer::size).sum();
        }

        List<String> layerDigests() {
            return layers.stream().map(Layer::digest).toList();
        }
    }

    /** A layer: its blob's digest and size, the digest of its uncompressed tar, and what made it. */
    record Layer(String digest, long size, String diffId, String createdBy) {
    }

    static ImageLayout read(Path root) {
        JsonNode index = json(root.resolve("index.json"));
        Map<String, Image> images = new LinkedHashMap<>();
        for (JsonNode entry : index.path("manifests")) {
            String ref = entry.path("annotations").path("org.opencontainers.image.ref.name").asText();
            String digest = entry.path("digest").asText();
            JsonNode manifest = json(blob(root, digest));
            JsonNode config = json(blob(root, manifest.path("config").path("digest").asText()));
            List<Layer> layers = new ArrayList<>();
            JsonNode diffIds = config.path("rootfs").path("diff_ids");
            JsonNode history = config.path("history");
            for (int i = 0; i < manifest.path("layers").size(); i++) {
                JsonNode layer = manifest.path("layers").get(i);
                layers.add(new Layer(layer.path("digest").asText(), layer.path("size").asLong(),
                        diffIds.path(i).asText(), history.path(i).path("created_by").asText()));
            }
            images.put(ref, new Image(ref, digest, config, List.copyOf(layers)));
        }
        return new ImageLayout(root, Map.copyOf(images));
    }

    Image image(String agent, String version) {
        Image image = images.get(agent + "-" + version);
        if (image == null) {
            throw new AssertionError("no image " + agent + "-" + version + " in " + root + "; it holds " + images.keySet());
        }
        return image;
    }

    static Path blob(Path root, String digest) {
        if (!digest.startsWith("sha256:")) {
            throw new AssertionError("digest was '" + digest + "' but it must start with sha256:");
        }
        return root.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
    }

    private static JsonNode json(Path file) {
        try {
            return JSON.readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
