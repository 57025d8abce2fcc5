package dev.kgpu.plugin.testing;

import dev.kgpu.nvml.mock.Json;
import dev.kgpu.nvml.mock.MockNvml;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Mock NVML profiles derived from the shipped ones, for topologies and MIG layouts the shipped ones lack. */
public final class Profiles {

    private Profiles() {
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> shipped(String name) {
        try {
            return Json.mutableCopy((Map<String, Object>) Json.parse(Files.readString(MockNvml.profilesDir().resolve(name + ".json"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String write(Path dir, String name, Map<String, Object> profile) {
        try {
            Path file = dir.resolve(name + ".json");
            Files.writeString(file, Json.write(profile));
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * dgx-a100 without NVSwitches: NVLink only between the pairs (0,2), (1,3), (4,6), (5,7), four links each,
     * while PCIe puts 0 next to 1 (one switch). A topology-aware pick of two GPUs must take an NVLink pair.
     */
    @SuppressWarnings("unchecked")
    public static String nvlinkPairs(Path dir) {
        Map<String, Object> profile = shipped("dgx-a100");
        List<Map<String, Object>> gpus = (List<Map<String, Object>>) profile.get("gpus");
        int[] partner = {2, 3, 0, 1, 6, 7, 4, 5};
        for (int i = 0; i < gpus.size(); i++) {
            String partnerBus = (String) ((Map<String, Object>) gpus.get(partner[i]).get("pci")).get("busId");
            List<Object> links = new ArrayList<>(List.of(partnerBus, partnerBus, partnerBus, partnerBus));
            gpus.get(i).put("nvlink", new java.util.LinkedHashMap<>(Map.of("links", links)));
        }
        return write(dir, "nvlink-pairs", profile);
    }

    /** mig-mixed's GPU 0 alone: seven identical 1g.10gb MIG devices, as the single strategy needs. */
    @SuppressWarnings("unchecked")
    public static String singleMig(Path dir) {
        Map<String, Object> profile = shipped("mig-mixed");
        List<Object> gpus = (List<Object>) profile.get("gpus");
        Map<String, Object> first = (Map<String, Object>) gpus.getFirst();
        first.put("nvlink", null); // its links end at the GPUs left out
        profile.put("gpus", new ArrayList<>(List.of(first)));
        return write(dir, "single-mig", profile);
    }
}
