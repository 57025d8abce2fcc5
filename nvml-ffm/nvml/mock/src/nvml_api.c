/*
 * NVIDIA Management Library (NVML) header notice: this file includes NVIDIA's nvml.h (through mock.h).
 *
 * Copyright 1993-2023 NVIDIA Corporation.  All rights reserved.
 *
 * NOTICE TO USER:
 *
 * This source code is subject to NVIDIA ownership rights under U.S. and
 * international Copyright laws.  Users and possessors of this source code
 * are hereby granted a nonexclusive, royalty-free license to use this code
 * in individual and commercial software.
 *
 * NVIDIA MAKES NO REPRESENTATION ABOUT THE SUITABILITY OF THIS SOURCE
 * CODE FOR ANY PURPOSE.  IT IS PROVIDED "AS IS" WITHOUT EXPRESS OR
 * IMPLIED WARRANTY OF ANY KIND.  NVIDIA DISCLAIMS ALL WARRANTIES WITH
 * REGARD TO THIS SOURCE CODE, INCLUDING ALL IMPLIED WARRANTIES OF
 * MERCHANTABILITY, NONINFRINGEMENT, AND FITNESS FOR A PARTICULAR PURPOSE.
 * IN NO EVENT SHALL NVIDIA BE LIABLE FOR ANY SPECIAL, INDIRECT, INCIDENTAL,
 * OR CONSEQUENTIAL DAMAGES, OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS
 * OF USE, DATA OR PROFITS,  WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE
 * OR OTHER TORTIOUS ACTION,  ARISING OUT OF OR IN CONNECTION WITH THE USE
 * OR PERFORMANCE OF THIS SOURCE CODE.
 *
 * U.S. Government End Users.   This source code is a "commercial item" as
 * that term is defined at  48 C.F.R. 2.101 (OCT 1995), consisting  of
 * "commercial computer  software"  and "commercial computer software
 * documentation" as such terms are  used in 48 C.F.R. 12.212 (SEPT 1995)
 * and is provided to the U.S. Government only as a commercial end item.
 * Consistent with 48 C.F.R.12.212 and 48 C.F.R. 227.7202-1 through
 * 227.7202-4 (JUNE 1995), all U.S. Government End Users acquire the
 * source code with only those rights set forth herein.
 *
 * Any use of this source code in individual and commercial software must
 * include, in the user documentation and internal comments to the code,
 * the above Disclaimer and U.S. Government End Users Notice.
 */


/*
 * The NVML device and system queries of the mock (events are in nvml_events.c, GPM in nvml_gpm.c). Every function
 * runs under the state lock (GUARDED) and answers from the simulated node.
 */
#include "mock.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define NEED(p)                                  \
    do {                                         \
        if ((p) == NULL) {                       \
            return NVML_ERROR_INVALID_ARGUMENT;  \
        }                                        \
    } while (0)

#define TRY(expr)                                \
    do {                                         \
        nvmlReturn_t try_ret_ = (expr);          \
        if (try_ret_ != NVML_SUCCESS) {          \
            return try_ret_;                     \
        }                                        \
    } while (0)

static int gpu_index(const mock_gpu *g) {
    return g->index;
}

static int mig_enabled(const mock_gpu *g) {
    return g->mig.capable && g->mig.mode == NVML_DEVICE_MIG_ENABLE;
}

/* ---- system --------------------------------------------------------------------------------------------- */

static nvmlReturn_t system_driver_version(char *version, unsigned length) {
    return copy_string(version, length, S.node->driver_version);
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    GUARDED(nvmlSystemGetDriverVersion, system_driver_version(version, length));
}

static nvmlReturn_t system_nvml_version(char *version, unsigned length) {
    return copy_string(version, length, S.node->nvml_version);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    GUARDED(nvmlSystemGetNVMLVersion, system_nvml_version(version, length));
}

static nvmlReturn_t system_cuda_version(int *version) {
    NEED(version);
    *version = S.node->cuda_version;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion) {
    GUARDED(nvmlSystemGetCudaDriverVersion_v2, system_cuda_version(cudaDriverVersion));
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion) {
    GUARDED(nvmlSystemGetCudaDriverVersion, system_cuda_version(cudaDriverVersion));
}

/* ---- enumeration ---------------------------------------------------------------------------------------- */

static int gpu_count(void) {
    return S.no_gpus ? 0 : S.node->gpu_count;
}

static nvmlReturn_t device_count(unsigned *count) {
    NEED(count);
    *count = (unsigned) gpu_count();
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) {
    GUARDED(nvmlDeviceGetCount_v2, device_count(deviceCount));
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount) {
    GUARDED(nvmlDeviceGetCount, device_count(deviceCount));
}

static nvmlReturn_t handle_by_index(unsigned index, nvmlDevice_t *device) {
    NEED(device);
    if (index >= (unsigned) gpu_count()) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (S.node->gpus[index].lost) {
        return NVML_ERROR_GPU_IS_LOST;
    }
    *device = handle_gpu((int) index);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    GUARDED(nvmlDeviceGetHandleByIndex_v2, handle_by_index(index, device));
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
    GUARDED(nvmlDeviceGetHandleByIndex, handle_by_index(index, device));
}

static nvmlReturn_t handle_by_uuid(const char *uuid, nvmlDevice_t *device) {
    NEED(uuid);
    NEED(device);
    if (!profile_valid_uuid(uuid, "GPU") && !profile_valid_uuid(uuid, "MIG")) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    int mig;
    int g = find_gpu_by_uuid(uuid, &mig);
    if (g < 0) {
        return NVML_ERROR_NOT_FOUND;
    }
    if (S.node->gpus[g].lost) {
        return NVML_ERROR_GPU_IS_LOST;
    }
    *device = mig >= 0 ? handle_mig(g, mig) : handle_gpu(g);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
    GUARDED(nvmlDeviceGetHandleByUUID, handle_by_uuid(uuid, device));
}

static nvmlReturn_t handle_by_bus_id(const char *bus_id, nvmlDevice_t *device) {
    NEED(bus_id);
    NEED(device);
    int g = find_gpu_by_bus_id(bus_id);
    if (g == -2) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (g < 0) {
        return NVML_ERROR_NOT_FOUND;
    }
    if (S.node->gpus[g].lost) {
        return NVML_ERROR_GPU_IS_LOST;
    }
    *device = handle_gpu(g);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device) {
    GUARDED(nvmlDeviceGetHandleByPciBusId_v2, handle_by_bus_id(pciBusId, device));
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device) {
    GUARDED(nvmlDeviceGetHandleByPciBusId, handle_by_bus_id(pciBusId, device));
}

/* ---- identity ------------------------------------------------------------------------------------------- */

static nvmlReturn_t device_index(nvmlDevice_t device, unsigned *index) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(index);
    *index = (unsigned) gpu_index(g);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
    GUARDED(nvmlDeviceGetIndex, device_index(device, index));
}

static nvmlReturn_t device_uuid(nvmlDevice_t device, char *uuid, unsigned length) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    return copy_string(uuid, length, m ? m->uuid : g->uuid);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    GUARDED(nvmlDeviceGetUUID, device_uuid(device, uuid, length));
}

static nvmlReturn_t device_name(nvmlDevice_t device, char *name, unsigned length) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    return copy_string(name, length, m ? m->name : g->name);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    GUARDED(nvmlDeviceGetName, device_name(device, name, length));
}

static nvmlReturn_t device_brand(nvmlDevice_t device, nvmlBrandType_t *type) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(type);
    *type = (nvmlBrandType_t) g->brand;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type) {
    GUARDED(nvmlDeviceGetBrand, device_brand(device, type));
}

static nvmlReturn_t device_architecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(arch);
    *arch = (nvmlDeviceArchitecture_t) g->architecture;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch) {
    GUARDED(nvmlDeviceGetArchitecture, device_architecture(device, arch));
}

static nvmlReturn_t device_cc(nvmlDevice_t device, int *major, int *minor) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(major);
    NEED(minor);
    *major = g->cc_major;
    *minor = g->cc_minor;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    GUARDED(nvmlDeviceGetCudaComputeCapability, device_cc(device, major, minor));
}

static void memory_now(const mock_gpu *g, const mig_device *m, unsigned long long *total,
                       unsigned long long *reserved, unsigned long long *used) {
    *total = m ? m->total : g->mem_total;
    *reserved = m ? m->reserved : g->mem_reserved;
    double u = gauge_now(m ? &m->used : &g->mem_used);
    *used = u <= 0 ? 0 : (unsigned long long) u;
    if (*reserved + *used > *total) {
        *used = *total - *reserved;
    }
}

static nvmlReturn_t device_memory(nvmlDevice_t device, nvmlMemory_t *memory) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(memory);
    unsigned long long total, reserved, used;
    memory_now(g, m, &total, &reserved, &used);
    memory->total = total;
    memory->used = reserved + used;
    memory->free = total - reserved - used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    GUARDED(nvmlDeviceGetMemoryInfo, device_memory(device, memory));
}

static nvmlReturn_t device_memory_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(memory);
    if (memory->version != nvmlMemory_v2) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    unsigned long long total, reserved, used;
    memory_now(g, m, &total, &reserved, &used);
    memory->total = total;
    memory->reserved = reserved;
    memory->used = used;
    memory->free = total - reserved - used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    GUARDED(nvmlDeviceGetMemoryInfo_v2, device_memory_v2(device, memory));
}

static void fill_pci(const mock_pci *p, nvmlPciInfo_t *pci) {
    memset(pci, 0, sizeof *pci);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, NVML_DEVICE_PCI_BUS_ID_LEGACY_FMT, p->domain & 0xFFFFu,
             p->bus, p->device);
    pci->domain = p->domain;
    pci->bus = p->bus;
    pci->device = p->device;
    pci->pciDeviceId = p->device_id;
    pci->pciSubSystemId = p->subsystem_id;
    snprintf(pci->busId, sizeof pci->busId, "%s", p->bus_id);
}

static nvmlReturn_t device_pci(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(pci);
    fill_pci(&g->pci, pci);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    GUARDED(nvmlDeviceGetPciInfo_v3, device_pci(device, pci));
}

/* The layout of nvmlPciInfo_t before v3: a 16-byte busId first, then the numbers and four reserved words. */
typedef struct {
    char busId[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    unsigned int reserved0, reserved1, reserved2, reserved3;
} legacy_pci_info;

static nvmlReturn_t device_pci_legacy(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(pci);
    legacy_pci_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.busId, sizeof info.busId, NVML_DEVICE_PCI_BUS_ID_LEGACY_FMT, g->pci.domain & 0xFFFFu, g->pci.bus,
             g->pci.device);
    info.domain = g->pci.domain;
    info.bus = g->pci.bus;
    info.device = g->pci.device;
    info.pciDeviceId = g->pci.device_id;
    info.pciSubSystemId = g->pci.subsystem_id;
    memcpy((void *) pci, &info, sizeof info); /* old callers pass a buffer of the old, smaller size */
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    GUARDED(nvmlDeviceGetPciInfo_v2, device_pci_legacy(device, pci));
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    GUARDED(nvmlDeviceGetPciInfo, device_pci_legacy(device, pci));
}

static nvmlReturn_t device_minor(nvmlDevice_t device, unsigned *minor) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(minor);
    *minor = g->minor;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber) {
    GUARDED(nvmlDeviceGetMinorNumber, device_minor(device, minorNumber));
}

static nvmlReturn_t device_numa(nvmlDevice_t device, unsigned *node) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(node);
    if (!g->has_numa) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *node = g->numa;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node) {
    GUARDED(nvmlDeviceGetNumaNodeId, device_numa(device, node));
}

static nvmlReturn_t device_serial(nvmlDevice_t device, char *serial, unsigned length) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(serial);
    if (!g->has_serial) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    return copy_string(serial, length, g->serial);
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length) {
    GUARDED(nvmlDeviceGetSerial, device_serial(device, serial, length));
}

static nvmlReturn_t device_vbios(nvmlDevice_t device, char *version, unsigned length) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    return copy_string(version, length, g->vbios);
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length) {
    GUARDED(nvmlDeviceGetVbiosVersion, device_vbios(device, version, length));
}

static nvmlReturn_t device_inforom(nvmlDevice_t device, nvmlInforomObject_t object, char *version,
                                   unsigned length) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(version);
    if ((unsigned) object >= NVML_INFOROM_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_inforom[object]) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    return copy_string(version, length, g->inforom[object]);
}

nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, nvmlInforomObject_t object, char *version,
                                         unsigned int length) {
    GUARDED(nvmlDeviceGetInforomVersion, device_inforom(device, object, version, length));
}

static nvmlReturn_t device_inforom_image(nvmlDevice_t device, char *version, unsigned length) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(version);
    if (!g->has_inforom_image) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    return copy_string(version, length, g->inforom_image);
}

nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version, unsigned int length) {
    GUARDED(nvmlDeviceGetInforomImageVersion, device_inforom_image(device, version, length));
}

static nvmlReturn_t device_compute_mode(nvmlDevice_t device, nvmlComputeMode_t *mode) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(mode);
    if (!g->has_compute_mode) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *mode = (nvmlComputeMode_t) g->compute_mode;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode) {
    GUARDED(nvmlDeviceGetComputeMode, device_compute_mode(device, mode));
}

/* As the driver: the mode changes at once and lasts until the node's profile is loaded again (a reboot); a MIG
 * device is NOT_SUPPORTED (resolve_gpu), a MIG-enabled GPU stays DEFAULT ("changing it is not supported"), a GPU
 * without compute modes is NOT_SUPPORTED, and a value outside nvmlComputeMode_t is INVALID_ARGUMENT. Refusals
 * the mock cannot see (NO_PERMISSION for a user without root) come from mockNvmlFailNext. */
static nvmlReturn_t device_set_compute_mode(nvmlDevice_t device, nvmlComputeMode_t mode) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    if ((unsigned) mode >= NVML_COMPUTEMODE_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_compute_mode) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (mig_enabled(g) && mode != NVML_COMPUTEMODE_DEFAULT) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    g->compute_mode = (int) mode;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetComputeMode(nvmlDevice_t device, nvmlComputeMode_t mode) {
    GUARDED(nvmlDeviceSetComputeMode, device_set_compute_mode(device, mode));
}

static nvmlReturn_t device_virtualization(nvmlDevice_t device, nvmlGpuVirtualizationMode_t *mode) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(mode);
    *mode = (nvmlGpuVirtualizationMode_t) g->virtualization_mode;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t device, nvmlGpuVirtualizationMode_t *pVirtualMode) {
    GUARDED(nvmlDeviceGetVirtualizationMode, device_virtualization(device, pVirtualMode));
}

static nvmlReturn_t device_grid(nvmlDevice_t device, nvmlGridLicensableFeatures_t *features) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(features);
    if (!g->has_grid) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    memset(features, 0, sizeof *features);
    features->isGridLicenseSupported = g->grid.supported;
    features->licensableFeaturesCount = g->grid.feature_count;
    memcpy(features->gridLicensableFeatures, g->grid.features, sizeof g->grid.features);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v4(nvmlDevice_t device,
                                                    nvmlGridLicensableFeatures_t *pGridLicensableFeatures) {
    GUARDED(nvmlDeviceGetGridLicensableFeatures_v4, device_grid(device, pGridLicensableFeatures));
}

static nvmlReturn_t device_fabric(nvmlDevice_t device, nvmlGpuFabricInfo_t *info) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(info);
    if (!g->has_fabric) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *info = g->fabric;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo) {
    GUARDED(nvmlDeviceGetGpuFabricInfo, device_fabric(device, gpuFabricInfo));
}

/* ---- MIG ------------------------------------------------------------------------------------------------ */

static nvmlReturn_t device_mig_mode(nvmlDevice_t device, unsigned *current, unsigned *pending) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(current);
    NEED(pending);
    if (!g->mig.capable) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *current = (unsigned) g->mig.mode;
    *pending = (unsigned) g->mig.pending_mode;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode) {
    GUARDED(nvmlDeviceGetMigMode, device_mig_mode(device, currentMode, pendingMode));
}

static nvmlReturn_t device_max_mig(nvmlDevice_t device, unsigned *count) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(count);
    *count = mig_enabled(g) ? g->mig.max_devices : 0;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count) {
    GUARDED(nvmlDeviceGetMaxMigDeviceCount, device_max_mig(device, count));
}

static nvmlReturn_t device_mig_by_index(nvmlDevice_t device, unsigned index, nvmlDevice_t *mig) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(mig);
    if (!g->mig.capable) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (index >= (mig_enabled(g) ? g->mig.max_devices : 0)) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (index >= (unsigned) g->mig.device_count) {
        return NVML_ERROR_NOT_FOUND;
    }
    *mig = handle_mig(gpu_index(g), (int) index);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice) {
    GUARDED(nvmlDeviceGetMigDeviceHandleByIndex, device_mig_by_index(device, index, migDevice));
}

static nvmlReturn_t device_is_mig(nvmlDevice_t device, unsigned *is_mig) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(is_mig);
    *is_mig = m != NULL;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice) {
    GUARDED(nvmlDeviceIsMigDeviceHandle, device_is_mig(device, isMigDevice));
}

static nvmlReturn_t mig_parent(nvmlDevice_t mig, nvmlDevice_t *device) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(mig, &g, &m));
    NEED(device);
    if (m == NULL) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *device = handle_gpu(gpu_index(g));
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device) {
    GUARDED(nvmlDeviceGetDeviceHandleFromMigDeviceHandle, mig_parent(migDevice, device));
}

static nvmlReturn_t mig_gi_id(nvmlDevice_t device, unsigned *id) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(id);
    if (m == NULL) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *id = m->gi_id;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id) {
    GUARDED(nvmlDeviceGetGpuInstanceId, mig_gi_id(device, id));
}

static nvmlReturn_t mig_ci_id(nvmlDevice_t device, unsigned *id) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(id);
    if (m == NULL) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *id = m->ci_id;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id) {
    GUARDED(nvmlDeviceGetComputeInstanceId, mig_ci_id(device, id));
}

static nvmlReturn_t mig_attributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(attributes);
    if (m == NULL) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *attributes = m->attributes;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes) {
    GUARDED(nvmlDeviceGetAttributes_v2, mig_attributes(device, attributes));
}

nvmlReturn_t nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes) {
    GUARDED(nvmlDeviceGetAttributes, mig_attributes(device, attributes));
}

static nvmlReturn_t gi_by_id(nvmlDevice_t device, unsigned id, nvmlGpuInstance_t *gi) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(gi);
    if (!mig_enabled(g)) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    for (int k = 0; k < g->mig.gi_count; k++) {
        if (g->mig.gis[k].id == id) {
            *gi = handle_gi(gpu_index(g), k);
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t *gpuInstance) {
    GUARDED(nvmlDeviceGetGpuInstanceById, gi_by_id(device, id, gpuInstance));
}

static nvmlReturn_t gi_info(nvmlGpuInstance_t handle, nvmlGpuInstanceInfo_t *info) {
    mock_gpu *g;
    gpu_instance *gi;
    TRY(resolve_gi(handle, &g, &gi));
    NEED(info);
    memset(info, 0, sizeof *info);
    info->device = handle_gpu(gpu_index(g));
    info->id = gi->id;
    info->profileId = gi->profile_id;
    info->placement.start = gi->start;
    info->placement.size = gi->size;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info) {
    GUARDED(nvmlGpuInstanceGetInfo, gi_info(gpuInstance, info));
}

static nvmlReturn_t gi_profile_info(nvmlDevice_t device, unsigned profile, nvmlGpuInstanceProfileInfo_t *info) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(info);
    if (!g->mig.capable) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (profile >= NVML_GPU_INSTANCE_PROFILE_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (int k = 0; k < g->mig.profile_count; k++) {
        if (g->mig.profiles[k].profile == profile) {
            *info = g->mig.profiles[k].info;
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                 nvmlGpuInstanceProfileInfo_t *info) {
    GUARDED(nvmlDeviceGetGpuInstanceProfileInfo, gi_profile_info(device, profile, info));
}

/* ---- compute instances ---------------------------------------------------------------------------------
 * A profile describes each MIG device as one compute instance (mig.devices[]: gpuInstanceId, computeInstanceId,
 * attributes.computeInstanceSliceCount), so a compute instance handle names its MIG device. The compute instance
 * profiles a GPU instance offers follow the A100/H100 tables: 1c, 2c (on 3 slices or more), 3c and 4c (on 7), and
 * the whole instance; a slice count a profile's device uses is always offered. Profile ids are the
 * NVML_COMPUTE_INSTANCE_PROFILE_* constants, as real drivers report them. */

static const unsigned CI_PROFILE_SLICES[NVML_COMPUTE_INSTANCE_PROFILE_COUNT] = {
    [NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE] = 1, [NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE] = 2,
    [NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE] = 3, [NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE] = 4,
    [NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE] = 7, [NVML_COMPUTE_INSTANCE_PROFILE_8_SLICE] = 8,
    [NVML_COMPUTE_INSTANCE_PROFILE_6_SLICE] = 6, [NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE_REV1] = 0,
};

static const mig_profile *gi_profile(const mock_gpu *g, const gpu_instance *gi) {
    return &g->mig.profiles[gi->profile_index];
}

/* the NVML_COMPUTE_INSTANCE_PROFILE_* constant for a slice count, or -1 */
static int ci_profile_for_slices(unsigned slices) {
    for (int p = 0; p < NVML_COMPUTE_INSTANCE_PROFILE_COUNT; p++) {
        if (CI_PROFILE_SLICES[p] == slices && slices != 0) {
            return p;
        }
    }
    return -1;
}

/* the MIG device of this GPU instance with that many compute slices, or NULL */
static const mig_device *ci_with_slices(const mock_gpu *g, const gpu_instance *gi, unsigned slices) {
    for (int k = 0; k < g->mig.device_count; k++) {
        const mig_device *m = &g->mig.devices[k];
        if (m->gi_id == gi->id && m->attributes.computeInstanceSliceCount == slices) {
            return m;
        }
    }
    return NULL;
}

static nvmlReturn_t ci_profile_fill(const mock_gpu *g, const gpu_instance *gi, unsigned profile, unsigned eng_profile,
                                    nvmlComputeInstanceProfileInfo_t *info, char *name, size_t name_size) {
    if (profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT || eng_profile >= NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    const mig_profile *gp = gi_profile(g, gi);
    unsigned gs = gp->info.sliceCount;
    unsigned cs = CI_PROFILE_SLICES[profile];
    const mig_device *used = ci_with_slices(g, gi, cs);
    int offered = cs != 0 && cs <= gs
                  && (cs == 1 || cs == gs || (cs == 2 && gs >= 3) || ((cs == 3 || cs == 4) && gs == 7));
    if (!offered && used == NULL) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    info->id = profile;
    info->sliceCount = cs;
    info->instanceCount = gs / cs;
    info->multiprocessorCount = used != NULL ? used->attributes.multiprocessorCount
                                             : gp->info.multiprocessorCount * cs / gs;
    info->sharedCopyEngineCount = gp->info.copyEngineCount;
    info->sharedDecoderCount = gp->info.decoderCount;
    info->sharedEncoderCount = gp->info.encoderCount;
    info->sharedJpegCount = gp->info.jpegCount;
    info->sharedOfaCount = gp->info.ofaCount;
    if (name != NULL) {
        if (cs == gs) {
            snprintf(name, name_size, "%s", gp->name);
        } else {
            snprintf(name, name_size, "%uc.%s", cs, gp->name);
        }
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t gi_ci_profile_info(nvmlGpuInstance_t handle, unsigned profile, unsigned eng_profile,
                                       nvmlComputeInstanceProfileInfo_t *info) {
    mock_gpu *g;
    gpu_instance *gi;
    TRY(resolve_gi(handle, &g, &gi));
    NEED(info);
    return ci_profile_fill(g, gi, profile, eng_profile, info, NULL, 0);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                          unsigned int engProfile,
                                                          nvmlComputeInstanceProfileInfo_t *info) {
    GUARDED(nvmlGpuInstanceGetComputeInstanceProfileInfo, gi_ci_profile_info(gpuInstance, profile, engProfile, info));
}

static nvmlReturn_t gi_ci_profile_info_v(nvmlGpuInstance_t handle, unsigned profile, unsigned eng_profile,
                                         nvmlComputeInstanceProfileInfo_v2_t *info) {
    mock_gpu *g;
    gpu_instance *gi;
    TRY(resolve_gi(handle, &g, &gi));
    NEED(info);
    unsigned version = info->version;
    if (version != nvmlComputeInstanceProfileInfo_v2 && version != nvmlComputeInstanceProfileInfo_v3) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    nvmlComputeInstanceProfileInfo_t v1;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    TRY(ci_profile_fill(g, gi, profile, eng_profile, &v1, name, sizeof name));
    size_t size = version == nvmlComputeInstanceProfileInfo_v3 ? sizeof(nvmlComputeInstanceProfileInfo_v3_t)
                                                                : sizeof(nvmlComputeInstanceProfileInfo_v2_t);
    memset(info, 0, size);
    info->version = version;
    info->id = v1.id;
    info->sliceCount = v1.sliceCount;
    info->instanceCount = v1.instanceCount;
    info->multiprocessorCount = v1.multiprocessorCount;
    info->sharedCopyEngineCount = v1.sharedCopyEngineCount;
    info->sharedDecoderCount = v1.sharedDecoderCount;
    info->sharedEncoderCount = v1.sharedEncoderCount;
    info->sharedJpegCount = v1.sharedJpegCount;
    info->sharedOfaCount = v1.sharedOfaCount;
    memcpy(info->name, name, sizeof name);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                           unsigned int engProfile,
                                                           nvmlComputeInstanceProfileInfo_v2_t *info) {
    GUARDED(nvmlGpuInstanceGetComputeInstanceProfileInfoV, gi_ci_profile_info_v(gpuInstance, profile, engProfile, info));
}

static nvmlReturn_t gi_ci_by_id(nvmlGpuInstance_t handle, unsigned id, nvmlComputeInstance_t *ci) {
    mock_gpu *g;
    gpu_instance *gi;
    TRY(resolve_gi(handle, &g, &gi));
    NEED(ci);
    for (int k = 0; k < g->mig.device_count; k++) {
        if (g->mig.devices[k].gi_id == gi->id && g->mig.devices[k].ci_id == id) {
            *ci = handle_ci(gpu_index(g), k);
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance, unsigned int id,
                                                   nvmlComputeInstance_t *computeInstance) {
    GUARDED(nvmlGpuInstanceGetComputeInstanceById, gi_ci_by_id(gpuInstance, id, computeInstance));
}

static nvmlReturn_t ci_info(nvmlComputeInstance_t handle, nvmlComputeInstanceInfo_t *info) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_ci(handle, &g, &m));
    NEED(info);
    /* placement: the compute instances of one GPU instance side by side, in the order of their ids */
    unsigned start = 0;
    for (int k = 0; k < g->mig.device_count; k++) {
        const mig_device *other = &g->mig.devices[k];
        if (other->gi_id == m->gi_id && other->ci_id < m->ci_id) {
            start += other->attributes.computeInstanceSliceCount;
        }
    }
    memset(info, 0, sizeof *info);
    info->device = handle_gpu(gpu_index(g));
    info->gpuInstance = handle_gi(gpu_index(g), m->gi_index);
    info->id = m->ci_id;
    info->profileId = (unsigned) ci_profile_for_slices(m->attributes.computeInstanceSliceCount);
    info->placement.start = start;
    info->placement.size = m->attributes.computeInstanceSliceCount;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info) {
    GUARDED(nvmlComputeInstanceGetInfo_v2, ci_info(computeInstance, info));
}

nvmlReturn_t nvmlComputeInstanceGetInfo(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info) {
    GUARDED(nvmlComputeInstanceGetInfo, ci_info(computeInstance, info));
}

/* ---- telemetry ------------------------------------------------------------------------------------------ */

static nvmlReturn_t device_temperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned *temp) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(temp);
    if (sensor != NVML_TEMPERATURE_GPU) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *temp = gauge_now_uint(&g->temp_gpu);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp) {
    GUARDED(nvmlDeviceGetTemperature, device_temperature(device, sensorType, temp));
}

static nvmlReturn_t device_power(nvmlDevice_t device, unsigned *power) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(power);
    *power = gauge_now_uint(&g->power);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
    GUARDED(nvmlDeviceGetPowerUsage, device_power(device, power));
}

static nvmlReturn_t device_power_limit(nvmlDevice_t device, unsigned *limit) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(limit);
    *limit = g->power_limit;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit) {
    GUARDED(nvmlDeviceGetEnforcedPowerLimit, device_power_limit(device, limit));
}

static nvmlReturn_t device_energy(nvmlDevice_t device, unsigned long long *energy) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(energy);
    *energy = counter_now(&g->energy);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy) {
    GUARDED(nvmlDeviceGetTotalEnergyConsumption, device_energy(device, energy));
}

static nvmlReturn_t device_clock(nvmlDevice_t device, nvmlClockType_t type, unsigned *clock) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(clock);
    if ((unsigned) type >= NVML_CLOCK_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *clock = gauge_now_uint(&g->clocks[type]);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock) {
    GUARDED(nvmlDeviceGetClockInfo, device_clock(device, type, clock));
}

static nvmlReturn_t device_utilization(nvmlDevice_t device, nvmlUtilization_t *utilization) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(utilization);
    if (mig_enabled(g)) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    utilization->gpu = gauge_now_uint(&g->util_gpu);
    utilization->memory = gauge_now_uint(&g->util_mem);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
    GUARDED(nvmlDeviceGetUtilizationRates, device_utilization(device, utilization));
}

static nvmlReturn_t device_codec(nvmlDevice_t device, int decoder, unsigned *utilization, unsigned *period) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(utilization);
    NEED(period);
    if (mig_enabled(g) || !(decoder ? g->has_decoder : g->has_encoder)) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *utilization = gauge_now_uint(decoder ? &g->util_dec : &g->util_enc);
    *period = g->sampling_period_us;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs) {
    GUARDED(nvmlDeviceGetEncoderUtilization, device_codec(device, 0, utilization, samplingPeriodUs));
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs) {
    GUARDED(nvmlDeviceGetDecoderUtilization, device_codec(device, 1, utilization, samplingPeriodUs));
}

static nvmlReturn_t device_replay(nvmlDevice_t device, unsigned *value) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(value);
    unsigned long long v = counter_now(&g->replay);
    *value = v > UINT_MAX ? UINT_MAX : (unsigned) v;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value) {
    GUARDED(nvmlDeviceGetPcieReplayCounter, device_replay(device, value));
}

static nvmlReturn_t device_pcie_throughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned *value) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(value);
    if ((unsigned) counter >= NVML_PCIE_UTIL_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_pcie_throughput) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *value = gauge_now_uint(counter == NVML_PCIE_UTIL_TX_BYTES ? &g->pcie_tx_kbps : &g->pcie_rx_kbps);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value) {
    GUARDED(nvmlDeviceGetPcieThroughput, device_pcie_throughput(device, counter, value));
}

static nvmlReturn_t device_remapped(nvmlDevice_t device, unsigned *corr, unsigned *unc, unsigned *pending,
                                    unsigned *failure) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(corr);
    NEED(unc);
    NEED(pending);
    NEED(failure);
    if (!g->has_remapped) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *corr = g->remapped_corr;
    *unc = g->remapped_unc;
    *pending = g->remapped_pending;
    *failure = g->remapped_failure;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                       unsigned int *isPending, unsigned int *failureOccurred) {
    GUARDED(nvmlDeviceGetRemappedRows, device_remapped(device, corrRows, uncRows, isPending, failureOccurred));
}

static nvmlReturn_t device_ecc(nvmlDevice_t device, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter_type,
                               unsigned long long *count) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(count);
    if ((unsigned) type >= NVML_MEMORY_ERROR_TYPE_COUNT || (unsigned) counter_type >= NVML_ECC_COUNTER_TYPE_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_ecc) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    events_scan_global();
    *count = counter_now(&g->ecc[type][counter_type]);
    return NVML_SUCCESS;
}

/* A profile's "ecc" object means ECC is on now and after the next reboot; "ecc": null, a board without ECC. */
static nvmlReturn_t device_ecc_mode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(current);
    NEED(pending);
    if (!g->has_ecc) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *current = NVML_FEATURE_ENABLED;
    *pending = NVML_FEATURE_ENABLED;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending) {
    GUARDED(nvmlDeviceGetEccMode, device_ecc_mode(device, current, pending));
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType, unsigned long long *eccCounts) {
    GUARDED(nvmlDeviceGetTotalEccErrors, device_ecc(device, errorType, counterType, eccCounts));
}

static nvmlReturn_t device_retired(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned *count,
                                   unsigned long long *addresses) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(count);
    if ((unsigned) cause >= NVML_PAGE_RETIREMENT_CAUSE_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_retired) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    unsigned n = g->retired_count[cause];
    if (*count < n) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (n > 0 && addresses == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (n > 0) {
        memcpy(addresses, g->retired[cause], n * sizeof *addresses);
    }
    *count = n;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *pageCount,
                                       unsigned long long *addresses) {
    GUARDED(nvmlDeviceGetRetiredPages, device_retired(device, cause, pageCount, addresses));
}

static nvmlReturn_t device_retired_pending(nvmlDevice_t device, nvmlEnableState_t *pending) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(pending);
    if (!g->has_retired) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *pending = g->retired_pending ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *isPending) {
    GUARDED(nvmlDeviceGetRetiredPagesPendingStatus, device_retired_pending(device, isPending));
}

static int violation_index(nvmlPerfPolicyType_t policy) {
    switch (policy) {
    case NVML_PERF_POLICY_POWER: return VIOL_POWER;
    case NVML_PERF_POLICY_THERMAL: return VIOL_THERMAL;
    case NVML_PERF_POLICY_SYNC_BOOST: return VIOL_SYNC_BOOST;
    case NVML_PERF_POLICY_BOARD_LIMIT: return VIOL_BOARD_LIMIT;
    case NVML_PERF_POLICY_LOW_UTILIZATION: return VIOL_LOW_UTIL;
    case NVML_PERF_POLICY_RELIABILITY: return VIOL_RELIABILITY;
    case NVML_PERF_POLICY_TOTAL_APP_CLOCKS: return VIOL_TOTAL_APP;
    case NVML_PERF_POLICY_TOTAL_BASE_CLOCKS: return VIOL_TOTAL_BASE;
    default: return -1;
    }
}

static nvmlReturn_t device_violation(nvmlDevice_t device, nvmlPerfPolicyType_t policy, nvmlViolationTime_t *viol) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(viol);
    int i = violation_index(policy);
    if (i < 0) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_violation[i]) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    viol->referenceTime = (unsigned long long) mock_realtime_us();
    viol->violationTime = counter_now(&g->violation[i]);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
                                          nvmlViolationTime_t *violTime) {
    GUARDED(nvmlDeviceGetViolationStatus, device_violation(device, perfPolicyType, violTime));
}

static nvmlReturn_t device_clock_reasons(nvmlDevice_t device, unsigned long long *reasons) {
    mock_gpu *g;
    TRY(resolve_gpu(device, &g));
    NEED(reasons);
    *reasons = g->clock_reasons;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *clocksEventReasons) {
    GUARDED(nvmlDeviceGetCurrentClocksEventReasons, device_clock_reasons(device, clocksEventReasons));
}

/* ---- field values --------------------------------------------------------------------------------------- */

static unsigned long long link_data(mock_gpu *g, int link, int rx) {
    return counter_now(rx ? &g->links[link].rx : &g->links[link].tx);
}

static unsigned long long link_raw(mock_gpu *g, int link, int rx) {
    double data = (double) link_data(g, link, rx);
    return (unsigned long long) (data * (1.0 + g->raw_overhead / 100.0));
}

/* Sum over active links (scope UINT_MAX) or one link. -1: bad link. */
static int nvlink_throughput(mock_gpu *g, unsigned scope, int raw, int rx, unsigned long long *out) {
    unsigned long long sum = 0;
    if (scope != UINT_MAX) {
        if (scope >= (unsigned) g->link_count) {
            return -1;
        }
        *out = raw ? link_raw(g, (int) scope, rx) : link_data(g, (int) scope, rx);
        return 0;
    }
    for (int l = 0; l < g->link_count; l++) {
        if (g->links[l].active) {
            sum += raw ? link_raw(g, l, rx) : link_data(g, l, rx);
        }
    }
    *out = sum;
    return 0;
}

static unsigned long long nvlink_errors(mock_gpu *g, int counter_index) {
    unsigned long long sum = 0;
    for (int l = 0; l < g->link_count; l++) {
        if (g->links[l].active) {
            sum += counter_now(&g->links[l].errors[counter_index]);
        }
    }
    return sum;
}

static void field_value(mock_gpu *g, nvmlFieldValue_t *f) {
    f->timestamp = mock_realtime_us();
    f->latencyUsec = 0;
    f->nvmlReturn = NVML_SUCCESS;
    f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    unsigned long long v = 0;
    switch (f->fieldId) {
    case NVML_FI_DEV_MEMORY_TEMP:
        if (!g->has_temp_mem) {
            f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            return;
        }
        f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        f->value.uiVal = gauge_now_uint(&g->temp_mem);
        return;
    case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
        f->value.ullVal = counter_now(&g->energy);
        return;
    case NVML_FI_DEV_REMAPPED_COR:
    case NVML_FI_DEV_REMAPPED_UNC:
        if (!g->has_remapped) {
            f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            return;
        }
        f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        f->value.uiVal = f->fieldId == NVML_FI_DEV_REMAPPED_COR ? g->remapped_corr : g->remapped_unc;
        return;
    case NVML_FI_DEV_PERF_POLICY_POWER:
    case NVML_FI_DEV_PERF_POLICY_THERMAL:
    case NVML_FI_DEV_PERF_POLICY_SYNC_BOOST:
    case NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT:
    case NVML_FI_DEV_PERF_POLICY_LOW_UTILIZATION:
    case NVML_FI_DEV_PERF_POLICY_RELIABILITY:
    case NVML_FI_DEV_PERF_POLICY_TOTAL_APP_CLOCKS:
    case NVML_FI_DEV_PERF_POLICY_TOTAL_BASE_CLOCKS: {
        int i = (int) (f->fieldId - NVML_FI_DEV_PERF_POLICY_POWER); /* same order as VIOL_* */
        if (!g->has_violation[i]) {
            f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            return;
        }
        f->value.ullVal = counter_now(&g->violation[i]);
        return;
    }
    default:
        break;
    }
    if (!g->has_nvlink) {
        f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
    switch (f->fieldId) {
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
    case NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX:
    case NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX: {
        int raw = f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX || f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX;
        int rx = f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX || f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX;
        if (nvlink_throughput(g, f->scopeId, raw, rx, &v) != 0) {
            f->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
            return;
        }
        f->value.ullVal = v;
        return;
    }
    case NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL:
        f->value.ullVal = nvlink_errors(g, NVML_NVLINK_ERROR_DL_CRC_FLIT);
        return;
    case NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL:
        f->value.ullVal = nvlink_errors(g, NVML_NVLINK_ERROR_DL_CRC_DATA);
        return;
    case NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL:
        f->value.ullVal = nvlink_errors(g, NVML_NVLINK_ERROR_DL_REPLAY);
        return;
    case NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL:
        f->value.ullVal = nvlink_errors(g, NVML_NVLINK_ERROR_DL_RECOVERY);
        return;
    case NVML_FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL:
    case NVML_FI_DEV_NVLINK_BANDWIDTH_C1_TOTAL: {
        int raw = f->fieldId == NVML_FI_DEV_NVLINK_BANDWIDTH_C1_TOTAL;
        unsigned long long tx, rx;
        nvlink_throughput(g, UINT_MAX, raw, 0, &tx);
        nvlink_throughput(g, UINT_MAX, raw, 1, &rx);
        f->value.ullVal = tx + rx;
        return;
    }
    case NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON:
        f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        f->value.uiVal = g->nvlink_speed;
        return;
    case NVML_FI_DEV_NVLINK_LINK_COUNT:
        f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        f->value.uiVal = (unsigned) g->link_count;
        return;
    default:
        f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
}

static nvmlReturn_t device_fields(nvmlDevice_t device, int count, nvmlFieldValue_t *values) {
    mock_gpu *g;
    mig_device *m;
    TRY(resolve_device(device, &g, &m));
    NEED(values);
    if (count < 0) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < count; i++) {
        if (m != NULL) {
            values[i].timestamp = mock_realtime_us();
            values[i].latencyUsec = 0;
            values[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            continue;
        }
        field_value(g, &values[i]);
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values) {
    GUARDED(nvmlDeviceGetFieldValues, device_fields(device, valuesCount, values));
}

/* ---- NVLink and topology -------------------------------------------------------------------------------- */

static nvmlReturn_t nvlink_link_of(nvmlDevice_t device, unsigned link, mock_gpu **g) {
    TRY(resolve_gpu(device, g));
    if (!(*g)->has_nvlink) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (link >= (unsigned) (*g)->link_count) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return NVML_SUCCESS;
}

static nvmlReturn_t nvlink_state(nvmlDevice_t device, unsigned link, nvmlEnableState_t *active) {
    mock_gpu *g;
    TRY(nvlink_link_of(device, link, &g));
    NEED(active);
    *active = g->links[link].active ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive) {
    GUARDED(nvmlDeviceGetNvLinkState, nvlink_state(device, link, isActive));
}

static nvmlReturn_t nvlink_remote(nvmlDevice_t device, unsigned link, nvmlPciInfo_t *pci) {
    mock_gpu *g;
    TRY(nvlink_link_of(device, link, &g));
    NEED(pci);
    const nvlink_link *l = &g->links[link];
    if (!l->active) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    const mock_pci *remote = l->remote_gpu >= 0 ? &S.node->gpus[l->remote_gpu].pci
                                                : &S.node->switches[l->remote_switch].pci;
    fill_pci(remote, pci);
    pci->pciSubSystemId = 0; /* "not filled in this function" */
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci) {
    GUARDED(nvmlDeviceGetNvLinkRemotePciInfo_v2, nvlink_remote(device, link, pci));
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci) {
    GUARDED(nvmlDeviceGetNvLinkRemotePciInfo, nvlink_remote(device, link, pci));
}

static nvmlReturn_t nvlink_error(nvmlDevice_t device, unsigned link, nvmlNvLinkErrorCounter_t counter_index,
                                 unsigned long long *value) {
    mock_gpu *g;
    TRY(nvlink_link_of(device, link, &g));
    NEED(value);
    if ((unsigned) counter_index >= NVML_NVLINK_ERROR_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *value = counter_now(&g->links[link].errors[counter_index]);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, nvmlNvLinkErrorCounter_t counter,
                                             unsigned long long *counterValue) {
    GUARDED(nvmlDeviceGetNvLinkErrorCounter, nvlink_error(device, link, counter, counterValue));
}

static nvmlGpuTopologyLevel_t common_ancestor(const mock_gpu *a, const mock_gpu *b) {
    if (a == b) {
        return NVML_TOPOLOGY_INTERNAL;
    }
    if (!a->has_numa || !b->has_numa || a->numa != b->numa) {
        if (strcmp(a->host_bridge, b->host_bridge) != 0) {
            return NVML_TOPOLOGY_SYSTEM;
        }
    } else if (strcmp(a->host_bridge, b->host_bridge) != 0) {
        return NVML_TOPOLOGY_NODE;
    }
    int common = 0;
    while (common < a->switch_count && common < b->switch_count
           && strcmp(a->switches[common], b->switches[common]) == 0) {
        common++;
    }
    if (common == 0) {
        return NVML_TOPOLOGY_HOSTBRIDGE;
    }
    if (common == a->switch_count && common == b->switch_count) {
        return NVML_TOPOLOGY_SINGLE;
    }
    return NVML_TOPOLOGY_MULTIPLE;
}

static nvmlReturn_t topology(nvmlDevice_t d1, nvmlDevice_t d2, nvmlGpuTopologyLevel_t *path) {
    mock_gpu *a, *b;
    TRY(resolve_gpu(d1, &a));
    TRY(resolve_gpu(d2, &b));
    NEED(path);
    *path = common_ancestor(a, b);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                 nvmlGpuTopologyLevel_t *pathInfo) {
    GUARDED(nvmlDeviceGetTopologyCommonAncestor, topology(device1, device2, pathInfo));
}

static int nvlink_connected(const mock_gpu *a, const mock_gpu *b) {
    for (int i = 0; i < a->link_count; i++) {
        const nvlink_link *la = &a->links[i];
        if (!la->active) {
            continue;
        }
        if (la->remote_gpu == b->index) {
            return 1;
        }
        if (la->remote_switch < 0) {
            continue;
        }
        for (int k = 0; k < b->link_count; k++) {
            if (b->links[k].active && b->links[k].remote_switch == la->remote_switch) {
                return 1;
            }
        }
    }
    return 0;
}

static nvmlReturn_t p2p_status(nvmlDevice_t d1, nvmlDevice_t d2, nvmlGpuP2PCapsIndex_t index,
                               nvmlGpuP2PStatus_t *status) {
    mock_gpu *a, *b;
    TRY(resolve_gpu(d1, &a));
    TRY(resolve_gpu(d2, &b));
    NEED(status);
    if ((unsigned) index >= NVML_P2P_CAPS_INDEX_UNKNOWN) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (a == b) {
        *status = NVML_P2P_STATUS_OK;
        return NVML_SUCCESS;
    }
    int nvlink = a->has_nvlink && b->has_nvlink && nvlink_connected(a, b);
    if (index == NVML_P2P_CAPS_INDEX_NVLINK) {
        *status = nvlink ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
    } else if (nvlink) {
        *status = NVML_P2P_STATUS_OK;
    } else if (!a->pcie_p2p || !b->pcie_p2p) {
        *status = NVML_P2P_STATUS_GPU_NOT_SUPPORTED;
    } else if (common_ancestor(a, b) <= NVML_TOPOLOGY_HOSTBRIDGE) {
        *status = NVML_P2P_STATUS_OK;
    } else {
        *status = NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED;
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex,
                                    nvmlGpuP2PStatus_t *p2pStatus) {
    GUARDED(nvmlDeviceGetP2PStatus, p2p_status(device1, device2, p2pIndex, p2pStatus));
}
