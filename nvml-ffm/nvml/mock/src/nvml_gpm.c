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
 * GPM (GPU performance metrics, Hopper and later): sample buffers and nvmlGpmMetricsGet. A sample records the walk
 * time at which it was taken; a metric is the mean of its walked value at the two samples' times, which is the
 * profile's exact value when the walk is off.
 */
#include "mock.h"

#include <stdlib.h>
#include <string.h>

#define SAMPLE_MAGIC 0x47504D53u /* GPMS */

static gpm_sample *find_sample(nvmlGpmSample_t handle) {
    for (gpm_sample *s = S.samples; s != NULL; s = s->next) {
        if ((void *) s == (void *) handle && s->magic == SAMPLE_MAGIC) {
            return s;
        }
    }
    return NULL;
}

void gpm_free_all(void) {
    gpm_sample *s = S.samples;
    S.samples = NULL;
    while (s != NULL) {
        gpm_sample *next = s->next;
        s->magic = 0;
        free(s);
        s = next;
    }
}

static nvmlReturn_t query_support(nvmlDevice_t device, nvmlGpmSupport_t *support) {
    mock_gpu *g;
    nvmlReturn_t r = resolve_gpu(device, &g);
    if (r != NVML_SUCCESS) {
        return r;
    }
    if (support == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (support->version != NVML_GPM_SUPPORT_VERSION) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    support->isSupportedDevice = (unsigned) g->has_gpm;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport) {
    GUARDED(nvmlGpmQueryDeviceSupport, query_support(device, gpmSupport));
}

static nvmlReturn_t sample_alloc(nvmlGpmSample_t *handle) {
    if (handle == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    gpm_sample *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NVML_ERROR_MEMORY;
    }
    s->magic = SAMPLE_MAGIC;
    s->next = S.samples;
    S.samples = s;
    *handle = (nvmlGpmSample_t) s;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample) {
    GUARDED(nvmlGpmSampleAlloc, sample_alloc(gpmSample));
}

static nvmlReturn_t sample_free(nvmlGpmSample_t handle) {
    gpm_sample *s = find_sample(handle);
    if (s == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (gpm_sample **p = &S.samples; *p != NULL; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    s->magic = 0;
    free(s);
    return NVML_SUCCESS;
}

/* Works after the last nvmlShutdown too, so samples and NVML can be closed in either order. */
nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample) {
    nvmlReturn_t r = mock_enter(FN_nvmlGpmSampleFree, 0);
    if (r == NVML_SUCCESS) {
        r = sample_free(gpmSample);
    }
    mock_leave();
    return r;
}

static nvmlReturn_t sample_get(nvmlDevice_t device, int mig, unsigned gi_id, nvmlGpmSample_t handle) {
    mock_gpu *g;
    nvmlReturn_t r = resolve_gpu(device, &g);
    if (r != NVML_SUCCESS) {
        return r;
    }
    gpm_sample *s = find_sample(handle);
    if (s == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_gpm) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (mig) {
        if (!g->mig.capable || g->mig.mode != NVML_DEVICE_MIG_ENABLE) {
            return NVML_ERROR_NOT_SUPPORTED;
        }
        int found = 0;
        for (int k = 0; k < g->mig.gi_count; k++) {
            found |= g->mig.gis[k].id == gi_id;
        }
        if (!found) {
            return NVML_ERROR_INVALID_ARGUMENT;
        }
    }
    s->filled = 1;
    s->generation = S.generation;
    s->gpu = g->index;
    s->gi = mig ? (long long) gi_id : -1;
    s->walking = S.walking;
    s->walk_ms = walk_time_ms();
    clock_gettime(CLOCK_REALTIME, &s->taken);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample) {
    GUARDED(nvmlGpmSampleGet, sample_get(device, 0, 0, gpmSample));
}

nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpuInstanceId, nvmlGpmSample_t gpmSample) {
    GUARDED(nvmlGpmMigSampleGet, sample_get(device, 1, gpuInstanceId, gpmSample));
}

typedef struct {
    int value;          /* GPM_* index, or -1 */
    const char *short_name;
    const char *long_name;
    const char *unit;
} metric_info;

static metric_info info_of(unsigned id) {
    switch (id) {
    case NVML_GPM_METRIC_GRAPHICS_UTIL: return (metric_info) { GPM_GRAPHICS, "gr_util", "graphics engine utilization", "%" };
    case NVML_GPM_METRIC_SM_UTIL: return (metric_info) { GPM_SM, "sm_util", "SM utilization", "%" };
    case NVML_GPM_METRIC_SM_OCCUPANCY: return (metric_info) { GPM_SM_OCC, "sm_occupancy", "SM occupancy", "%" };
    case NVML_GPM_METRIC_INTEGER_UTIL: return (metric_info) { GPM_INTEGER, "integer_util", "integer pipe utilization", "%" };
    case NVML_GPM_METRIC_ANY_TENSOR_UTIL: return (metric_info) { GPM_ANY_TENSOR, "any_tensor_util", "tensor pipe utilization", "%" };
    case NVML_GPM_METRIC_DFMA_TENSOR_UTIL: return (metric_info) { GPM_DFMA, "dfma_tensor_util", "DFMA tensor utilization", "%" };
    case NVML_GPM_METRIC_HMMA_TENSOR_UTIL: return (metric_info) { GPM_HMMA, "hmma_tensor_util", "HMMA tensor utilization", "%" };
    case NVML_GPM_METRIC_IMMA_TENSOR_UTIL: return (metric_info) { GPM_IMMA, "imma_tensor_util", "IMMA tensor utilization", "%" };
    case NVML_GPM_METRIC_DRAM_BW_UTIL: return (metric_info) { GPM_DRAM, "dram_bw_util", "DRAM bandwidth utilization", "%" };
    case NVML_GPM_METRIC_FP64_UTIL: return (metric_info) { GPM_FP64, "fp64_util", "FP64 pipe utilization", "%" };
    case NVML_GPM_METRIC_FP32_UTIL: return (metric_info) { GPM_FP32, "fp32_util", "FP32 pipe utilization", "%" };
    case NVML_GPM_METRIC_FP16_UTIL: return (metric_info) { GPM_FP16, "fp16_util", "FP16 pipe utilization", "%" };
    case NVML_GPM_METRIC_PCIE_TX_PER_SEC: return (metric_info) { GPM_PCIE_TX, "pcie_tx", "PCIe traffic from the GPU", "MiB/sec" };
    case NVML_GPM_METRIC_PCIE_RX_PER_SEC: return (metric_info) { GPM_PCIE_RX, "pcie_rx", "PCIe traffic to the GPU", "MiB/sec" };
    default: break;
    }
    if (id >= NVML_GPM_METRIC_NVDEC_0_UTIL && id <= NVML_GPM_METRIC_NVDEC_7_UTIL) {
        return (metric_info) { GPM_NVDEC, "nvdec_util", "NVDEC utilization", "%" };
    }
    if (id >= NVML_GPM_METRIC_NVJPG_0_UTIL && id <= NVML_GPM_METRIC_NVJPG_7_UTIL) {
        return (metric_info) { GPM_NVJPG, "nvjpg_util", "NVJPG utilization", "%" };
    }
    if (id == NVML_GPM_METRIC_NVOFA_0_UTIL) {
        return (metric_info) { GPM_NVOFA, "nvofa_util", "NVOFA utilization", "%" };
    }
    if (id == NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC) {
        return (metric_info) { -1, "nvlink_total_rx", "NVLink read bandwidth, all links", "MiB/sec" };
    }
    if (id == NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC) {
        return (metric_info) { -1, "nvlink_total_tx", "NVLink write bandwidth, all links", "MiB/sec" };
    }
    if (id >= NVML_GPM_METRIC_NVLINK_L0_RX_PER_SEC && id <= NVML_GPM_METRIC_NVLINK_L17_TX_PER_SEC) {
        int rx = (id - NVML_GPM_METRIC_NVLINK_L0_RX_PER_SEC) % 2 == 0;
        return (metric_info) { -1, rx ? "nvlink_rx" : "nvlink_tx", rx ? "NVLink read bandwidth, one link"
                                                                      : "NVLink write bandwidth, one link", "MiB/sec" };
    }
    return (metric_info) { -1, NULL, NULL, NULL };
}

static double mean_gauge(const walkable *w, const gpm_sample *a, const gpm_sample *b, uint64_t salt) {
    return (gauge_at(w, a->walk_ms, a->walking, salt) + gauge_at(w, b->walk_ms, b->walking, salt)) / 2.0;
}

/* NVLink data rate of one link (KiB/s counter rate) as MiB/s */
static double link_rate(const mock_gpu *g, int link, int rx, const gpm_sample *a, const gpm_sample *b) {
    const nvlink_link *l = &g->links[link];
    if (!l->active) {
        return 0;
    }
    return mean_gauge(rx ? &l->rx.rate : &l->tx.rate, a, b, 0) / 1024.0;
}

static void metric(const mock_gpu *g, const gpm_sample *a, const gpm_sample *b, nvmlGpmMetric_t *m) {
    unsigned id = m->metricId;
    metric_info info = info_of(id);
    m->metricInfo.shortName = (char *) info.short_name;
    m->metricInfo.longName = (char *) info.long_name;
    m->metricInfo.unit = (char *) info.unit;
    m->value = 0;
    m->nvmlReturn = NVML_SUCCESS;
    if (id >= NVML_GPM_METRIC_MAX) {
        m->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
        return;
    }
    if (info.short_name == NULL) {
        m->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
    int mig = a->gi >= 0;
    uint64_t salt = mig ? mock_hash("gpu-instance", (uint64_t) a->gi) : 0;
    if (info.value >= 0) {
        unsigned engine = 0, engines = 1;
        if (info.value == GPM_NVDEC) {
            engine = id - NVML_GPM_METRIC_NVDEC_0_UTIL;
            engines = g->gpm_engines[0];
        } else if (info.value == GPM_NVJPG) {
            engine = id - NVML_GPM_METRIC_NVJPG_0_UTIL;
            engines = g->gpm_engines[1];
        } else if (info.value == GPM_NVOFA) {
            engines = g->gpm_engines[2];
        }
        if (engine >= engines || (mig && (info.value == GPM_PCIE_TX || info.value == GPM_PCIE_RX))) {
            m->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            return;
        }
        m->value = mean_gauge(&g->gpm[info.value], a, b, salt ^ ((uint64_t) engine * 0x9E3779B97F4A7C15ull));
        return;
    }
    if (mig || !g->has_nvlink) {
        m->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
    if (id == NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC || id == NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC) {
        int rx = id == NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC;
        double sum = 0;
        for (int l = 0; l < g->link_count; l++) {
            sum += link_rate(g, l, rx, a, b);
        }
        m->value = sum;
        return;
    }
    int link = (int) (id - NVML_GPM_METRIC_NVLINK_L0_RX_PER_SEC) / 2;
    int rx = (id - NVML_GPM_METRIC_NVLINK_L0_RX_PER_SEC) % 2 == 0;
    if (link >= g->link_count) {
        m->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
    m->value = link_rate(g, link, rx, a, b);
}

static nvmlReturn_t metrics_get(nvmlGpmMetricsGet_t *mg) {
    if (mg == NULL) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (mg->version != NVML_GPM_METRICS_GET_VERSION) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    if (mg->numMetrics > NVML_GPM_METRIC_MAX) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    const gpm_sample *a = find_sample(mg->sample1);
    const gpm_sample *b = find_sample(mg->sample2);
    if (a == NULL || b == NULL || !a->filled || !b->filled || a->generation != S.generation
        || b->generation != S.generation || a->gpu != b->gpu || a->gi != b->gi || a->gpu >= S.node->gpu_count) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    const mock_gpu *g = &S.node->gpus[a->gpu];
    if (g->lost) {
        return NVML_ERROR_GPU_IS_LOST;
    }
    for (unsigned i = 0; i < mg->numMetrics; i++) {
        metric(g, a, b, &mg->metrics[i]);
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet) {
    GUARDED(nvmlGpmMetricsGet, metrics_get(metricsGet));
}
