package dev.kgpu.config.v1;

import java.util.List;
import java.util.Optional;

/**
 * {@code resources}: custom names for full GPUs and MIG devices, first matching pattern wins. NVIDIA's
 * plugin appends its defaults after the user's entries: {@code * → gpu} for GPUs; for MIG, under
 * {@code single} {@code * → gpu}, under {@code mixed} one {@code <profile> → mig-<profile>} per profile
 * ({@link #defaultMigResourceName(String)}). NVIDIA v0.20 parses this section but ignores it with a
 * warning; kgpu validates it and leaves the decision to honour it to the device plugin.
 */
public record Resources(List<Resource> gpus, List<Resource> mig) {

    public static final Resources NONE = new Resources(List.of(), List.of());

    public Resources {
        gpus = List.copyOf(gpus);
        mig = List.copyOf(mig);
    }

    /** NVIDIA's default name for a MIG profile under {@code mixed}: {@code 1g.5gb+me} → {@code nvidia.com/mig-1g.5gb.me}. */
    public static ResourceName defaultMigResourceName(String profile) {
        return ResourceName.of("mig-" + profile.replace('+', '.'));
    }
}
