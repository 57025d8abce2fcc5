package dev.kgpu.plugin.dra;

import dev.kgpu.plugin.devices.ComputeModes;
import dev.kgpu.plugin.devices.DeviceSourceException;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Gives a claim's GPU what sharing {@code TimeSlicing} needs: compute mode {@code DEFAULT}, in which the GPU time-slices
 * between the processes of every container that holds it. NVIDIA's DRA driver runs {@code nvidia-smi -c DEFAULT} (then
 * {@code nvidia-smi compute-policy --set-timeslice}) for every time-sliced GPU; kgpu sets the mode through NVML
 * ({@code nvmlDeviceSetComputeMode}), and only when it is not {@code DEFAULT} already:
 * <ul>
 *   <li>{@code DEFAULT}: nothing to do (no NVML call that needs root);</li>
 *   <li>a mode an MPS control daemon set (its {@code .compute-modes} in the MPS root lists the GPU): refused, naming the
 *       daemon's resource; setting {@code DEFAULT} under a running daemon would break its clients;</li>
 *   <li>any other ({@code EXCLUSIVE_PROCESS} or {@code PROHIBITED} an administrator or a stopped daemon left): set to
 *       {@code DEFAULT}, as NVIDIA's driver does, and logged; a refusal of NVML (no permission, a MIG-enabled GPU)
 *       refuses the claim with NVML's reason.</li>
 * </ul>
 * The mode is not set back at unprepare (nor is it in NVIDIA's driver). MIG devices have no compute mode of their own:
 * {@code TimeSlicing} on them changes nothing, as in NVIDIA's driver.
 *
 * <p>Thread-safety: as thread-safe as its compute modes; the {@link ClaimPreparer} calls it under its lock.
 */
public final class TimeSlicing {

    private static final System.Logger LOG = System.getLogger(TimeSlicing.class.getName());

    private final Supplier<ComputeModes> modes;
    private final Function<String, Optional<String>> mpsHolder;

    /**
     * @param modes     the node's compute modes (NVML), asked for at each use
     * @param mpsHolder the MPS-shared resource whose daemon holds a GPU (by UUID) now; empty when none does
     */
    public TimeSlicing(Supplier<ComputeModes> modes, Function<String, Optional<String>> mpsHolder) {
        this.modes = Objects.requireNonNull(modes, "modes");
        this.mpsHolder = Objects.requireNonNull(mpsHolder, "mpsHolder");
    }

    /** For tests and nodes without NVML: every GPU is taken to be in {@code DEFAULT} already. */
    public static TimeSlicing assumedDefault() {
        return new TimeSlicing(() -> new ComputeModes() {
            @Override
            public Mode get(String gpuUuid) {
                return Mode.DEFAULT;
            }

            @Override
            public void set(String gpuUuid, Mode mode) {
                throw new DeviceSourceException("no compute modes to set", null);
            }
        }, uuid -> Optional.empty());
    }

    /**
     * Puts {@code gpu} (a whole GPU of a claim that asked for {@code TimeSlicing}) in compute mode {@code DEFAULT}; why
     * it cannot be, in one line, naming the GPU and its mode.
     */
    public Optional<String> apply(DraDevice gpu) {
        String named = "GPU " + gpu.name() + " (" + gpu.uuid() + ")";
        ComputeModes.Mode mode;
        ComputeModes nvml;
        try {
            nvml = modes.get();
            mode = nvml.get(gpu.uuid());
        } catch (DeviceSourceException e) {
            return Optional.of("sharing strategy TimeSlicing cannot be applied to " + named + ": its compute mode cannot be"
                    + " read (" + e.getMessage() + ")");
        }
        if (mode == ComputeModes.Mode.DEFAULT) {
            return Optional.empty();
        }
        Optional<String> daemon = mpsHolder.apply(gpu.uuid());
        if (daemon.isPresent()) {
            return Optional.of("sharing strategy TimeSlicing cannot be applied to " + named + ": it has compute mode " + mode
                    + ", set by the MPS control daemon of " + daemon.get() + ", and time-slicing needs DEFAULT; kgpu does"
                    + " not take a GPU from a running MPS daemon (stop sharing it through MPS first)");
        }
        try {
            nvml.set(gpu.uuid(), ComputeModes.Mode.DEFAULT);
        } catch (DeviceSourceException e) {
            return Optional.of("sharing strategy TimeSlicing cannot be applied to " + named + ": it has compute mode " + mode
                    + ", time-slicing needs DEFAULT, and NVML refused to set it: " + e.getMessage());
        }
        LOG.log(System.Logger.Level.INFO, "{0} had compute mode {1}; set it to DEFAULT for a time-sliced claim, as"
                + " NVIDIA''s DRA driver does", named, mode);
        return Optional.empty();
    }
}
