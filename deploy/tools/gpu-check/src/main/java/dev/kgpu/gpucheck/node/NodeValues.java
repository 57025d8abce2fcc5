package dev.kgpu.gpucheck.node;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A node as one source saw it: node-wide values ({@code driver_version}, {@code cuda_version},
 * {@code attached_gpus}) and each GPU's, keyed by nvidia-smi's XML paths (see {@link Fields}).
 *
 * @param source  where the values come from, e.g. {@code nvml-ffm (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1)}
 * @param system  node-wide values
 * @param gpus    every GPU in the source's order
 */
public record NodeValues(String source, Map<String, Val> system, List<GpuValues> gpus) {

    public NodeValues {
        system = Map.copyOf(system);
        gpus = List.copyOf(gpus);
    }

    /** A node-wide value, {@link Val.Absent} when the source has none. */
    public Val system(String key) {
        return system.getOrDefault(key, Val.absent());
    }

    /** The GPU with this UUID. */
    public Optional<GpuValues> byUuid(String uuid) {
        return gpus.stream().filter(g -> g.uuid().equalsIgnoreCase(uuid)).findFirst();
    }

    /** The GPU at this PCI bus id, compared in NVML's form ({@code 00000000:1B:00.0}) ignoring case. */
    public Optional<GpuValues> byBusId(String busId) {
        String wanted = Fields.normaliseBusId(busId);
        return gpus.stream().filter(g -> Fields.normaliseBusId(g.busId()).equals(wanted)).findFirst();
    }

    /**
     * One GPU.
     *
     * @param index  NVML's index (nvml-ffm) or the order in nvidia-smi's output
     * @param fields every value of this GPU the source reported, by {@link Fields} key
     */
    public record GpuValues(int index, String uuid, String busId, Map<String, Val> fields) {

        public GpuValues {
            fields = Map.copyOf(fields);
        }

        public Val get(String key) {
            return fields.getOrDefault(key, Val.absent());
        }

        /** Whether {@code key} holds a number. */
        public boolean has(String key) {
            return get(key) instanceof Val.Num;
        }

        /** The number at {@code key}; only after {@link #has}. */
        public double number(String key) {
            return ((Val.Num) get(key)).value();
        }

        /** {@code GPU 0 GPU-7c1d...}, for reports. */
        public String describe() {
            return "GPU " + index + " " + uuid;
        }

        /** Whether MIG is on now ({@code mig_mode.current_mig} is Enabled). */
        public boolean migEnabled() {
            return get(Fields.MIG_CURRENT) instanceof Val.Text(String mode) && mode.equals("Enabled");
        }
    }
}
