package dev.kgpu.benchmarks;

/** What an agent is started for in the benchmark; each subject maps a role to one of its programs. */
enum Role {
    /** The device plugin, registering with the kubelet simulator. */
    PLUGIN("plugin"),
    /** Feature discovery run once: labels written to a file, then exit. */
    DISCOVERY_ONESHOT("discovery one-shot"),
    /** Feature discovery as a daemon: labels written to a file, then a pass a minute. */
    DISCOVERY_DAEMON("discovery daemon"),
    /** The metrics exporter. */
    EXPORTER("exporter"),
    /** The validator's driver component run once, as gpu-operator's first init container runs it: a verdict, then exit. */
    VALIDATOR_DRIVER("validator driver one-shot");

    private final String label;

    Role(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }
}
