package dev.kgpu.simulator.agents;

/** How the simulated node runs the validator: its {@code KGPU_VALIDATOR_MODE}. */
public enum ValidatorMode {
    /** One pass, then exit with every verdict, as gpu-operator's init containers run it: a node brought up. */
    ONESHOT("oneshot"),
    /** Its long-running mode, ready once a pass found every component valid: footprint mode measures that. */
    DAEMON("daemon");

    private final String value;

    ValidatorMode(String value) {
        this.value = value;
    }

    /** The value of {@code KGPU_VALIDATOR_MODE}. */
    public String value() {
        return value;
    }
}
