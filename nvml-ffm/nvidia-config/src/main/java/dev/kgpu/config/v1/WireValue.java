package dev.kgpu.config.v1;

/** An enum constant with the exact spelling NVIDIA's config file, flags and labels use for it. */
public interface WireValue {

    /** The spelling in the config file, on the command line and in JSON: {@code time-slicing}. */
    String wireName();
}
