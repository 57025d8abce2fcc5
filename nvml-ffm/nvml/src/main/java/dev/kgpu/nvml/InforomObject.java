package dev.kgpu.nvml;

/** {@code nvmlInforomObject_t}: the InfoROM objects whose versions NVML reports. */
public enum InforomObject {
    /** {@code NVML_INFOROM_OEM}: the object the board's maker defines. */
    OEM,
    /** {@code NVML_INFOROM_ECC}: the ECC object, which sets the level of ECC support. */
    ECC,
    /** {@code NVML_INFOROM_POWER}: the power-management object. */
    POWER
}
