/*
 * Internal declarations of the mock libnvidia-ml.so.1: the simulated node built from a profile, the global state
 * that one mutex guards, and the helpers the NVML functions share.
 *
 * This file includes NVIDIA's nvml.h; see NOTICE-NVML at the top of nvml_api.c.
 */
#ifndef MOCK_NVML_INTERNAL_H
#define MOCK_NVML_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Everything nvml.h declares is exported; everything else in the mock stays hidden (-fvisibility=hidden). */
#pragma GCC visibility push(default)
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <nvml.h>
#include "mock_control.h"
#pragma GCC visibility pop

#define MOCK_MAX_GPUS 1024
#define MOCK_MAX_LINKS NVML_NVLINK_MAX_LINKS
#define MOCK_MAX_MIG 8
#define MOCK_MAX_GI_PROFILES NVML_GPU_INSTANCE_PROFILE_COUNT
#define MOCK_UUID_LEN 96
#define MOCK_ERR_LEN 1024

/* ---- walk ---------------------------------------------------------------------------------------------------- */

/* A gauge: fixed (walks == 0) or walking within [min, max] around value. key seeds its periods and phases. */
typedef struct {
    double value;
    double min;
    double max;
    int walks;
    uint64_t key;
    /* the walked value of step cached_step (unsalted), so a step's sines are computed once; under the lock */
    int cached;
    long long cached_step;
    double cached_value;
} walkable;

/* A counter: base plus the integral of rate over walking time, plus injected increments; never decreases. */
typedef struct {
    unsigned long long base;
    walkable rate;            /* per second */
    double acc;               /* integral over whole steps [0, done_steps) */
    long long done_steps;
    unsigned long long injected;
    unsigned long long last;  /* last value handed out (monotonic guard) */
} counter;

/* ---- the node ------------------------------------------------------------------------------------------------ */

typedef struct {
    char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];   /* 00000000:07:00.0 */
    unsigned domain, bus, device;
    unsigned device_id, subsystem_id;
} mock_pci;

typedef struct {
    unsigned profile;              /* NVML_GPU_INSTANCE_PROFILE_* */
    nvmlGpuInstanceProfileInfo_t info;
    char name[32];
} mig_profile;

typedef struct {
    unsigned id;
    unsigned profile_id;           /* mig_profile.info.id */
    int profile_index;
    unsigned start, size;
} gpu_instance;

typedef struct {
    char uuid[MOCK_UUID_LEN];
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned gi_id, ci_id;
    int gi_index;
    nvmlDeviceAttributes_t attributes;
    unsigned long long total, reserved;
    walkable used;
} mig_device;

typedef struct {
    int capable;
    int mode, pending_mode;        /* NVML_DEVICE_MIG_ENABLE/DISABLE */
    unsigned max_devices, memory_slices;
    int profile_count;
    mig_profile profiles[MOCK_MAX_GI_PROFILES];
    int gi_count;
    gpu_instance gis[MOCK_MAX_MIG];
    int device_count;
    mig_device devices[MOCK_MAX_MIG];
} mig_config;

typedef struct {
    int active;
    char remote[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    int remote_gpu;                /* index of the GPU at the other end, or -1 */
    int remote_switch;             /* index in node.switches, or -1 */
    counter tx, rx;                /* data KiB */
    counter errors[NVML_NVLINK_ERROR_COUNT]; /* indexed by nvmlNvLinkErrorCounter_t */
} nvlink_link;

enum {
    GPM_GRAPHICS, GPM_SM, GPM_SM_OCC, GPM_INTEGER, GPM_ANY_TENSOR, GPM_DFMA, GPM_HMMA, GPM_IMMA, GPM_DRAM,
    GPM_FP64, GPM_FP32, GPM_FP16, GPM_PCIE_TX, GPM_PCIE_RX, GPM_NVDEC, GPM_NVJPG, GPM_NVOFA, GPM_VALUE_COUNT
};

enum { VIOL_POWER, VIOL_THERMAL, VIOL_SYNC_BOOST, VIOL_BOARD_LIMIT, VIOL_LOW_UTIL, VIOL_RELIABILITY,
       VIOL_TOTAL_APP, VIOL_TOTAL_BASE, VIOL_COUNT };

typedef struct {
    int has_supported;
    int supported;
    unsigned feature_count;
    nvmlGridLicensableFeature_t features[NVML_GRID_LICENSE_FEATURE_MAX_COUNT];
} grid_license;

typedef struct {
    int index;
    char uuid[MOCK_UUID_LEN];
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    int brand, architecture, cc_major, cc_minor;
    int has_serial;
    char serial[NVML_DEVICE_SERIAL_BUFFER_SIZE];
    char vbios[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE];
    int has_inforom_image;
    char inforom_image[NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE];
    int has_inforom[3];            /* NVML_INFOROM_OEM, _ECC, _POWER */
    char inforom[3][NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE];
    unsigned minor;
    int has_numa;
    unsigned numa;
    mock_pci pci;
    char host_bridge[64];
    int switch_count;
    char switches[8][64];
    int pcie_p2p;
    int has_compute_mode;
    int compute_mode;
    int virtualization_mode;
    int has_grid;
    grid_license grid;
    int has_fabric;
    nvmlGpuFabricInfo_t fabric;
    int lost;

    unsigned long long mem_total, mem_reserved;
    walkable mem_used;
    walkable temp_gpu;
    int has_temp_mem;
    walkable temp_mem;
    walkable power;
    unsigned power_limit;
    counter energy;
    walkable clocks[4];            /* NVML_CLOCK_GRAPHICS, SM, MEM, VIDEO */
    walkable util_gpu, util_mem;
    int has_encoder, has_decoder;
    walkable util_enc, util_dec;
    unsigned sampling_period_us;
    counter replay;
    int has_pcie_throughput;
    walkable pcie_tx_kbps, pcie_rx_kbps; /* nvmlDeviceGetPcieThroughput, KB/s */
    int has_ecc;
    counter ecc[2][2];             /* [errorType corrected/uncorrected][counterType volatile/aggregate] */
    int has_retired;
    unsigned retired_count[2];     /* [cause] */
    unsigned long long *retired[2];
    int retired_pending;
    int has_remapped;
    unsigned remapped_corr, remapped_unc, remapped_pending, remapped_failure;
    int has_violation[VIOL_COUNT];
    counter violation[VIOL_COUNT];
    unsigned long long clock_reasons;
    unsigned long long events;     /* supported event mask */

    int has_nvlink;
    unsigned nvlink_speed;
    double raw_overhead;
    int link_count;
    nvlink_link links[MOCK_MAX_LINKS];

    int has_gpm;
    unsigned gpm_engines[3];       /* nvdec, nvjpg, nvofa */
    walkable gpm[GPM_VALUE_COUNT];

    mig_config mig;
} mock_gpu;

typedef struct {
    char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    mock_pci pci;
} mock_switch;

typedef struct {
    char path[4096];               /* the file it came from */
    char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    char nvml_version[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
    int cuda_version;
    int walk_enabled;
    long long seed;
    long long step_ms;
    int switch_count;
    mock_switch *switches;
    int gpu_count;
    mock_gpu *gpus;
} mock_node;

/* Loads and checks a profile file; NULL with a message naming file, path and value in err. */
mock_node *profile_load(const char *path, char *err, size_t err_size);
void profile_free(mock_node *node);
/* 1 when both nodes have the same GPU and MIG UUIDs in the same order */
int profile_same_devices(const mock_node *a, const mock_node *b);
/* "GPU-..." / "MIG-..." with 8-4-4-4-12 hex digits */
int profile_valid_uuid(const char *s, const char *prefix);

/* ---- events and GPM objects ------------------------------------------------------------------------------ */

typedef struct {
    char uuid[MOCK_UUID_LEN];      /* the GPU (parent for MIG events) */
    unsigned long long type;
    unsigned long long data;
    unsigned gi, ci;
} mock_event;

#define MOCK_EVENT_QUEUE 1024

typedef struct event_set {
    struct event_set *next;
    uint32_t magic;
    int freed;
    int waiters;
    int registration_count;
    struct {
        char uuid[MOCK_UUID_LEN];
        unsigned long long mask;
    } registrations[MOCK_MAX_GPUS];
    /* events file */
    off_t offset;
    unsigned long long lines_read;
    /* queue */
    unsigned head, count;
    mock_event queue[MOCK_EVENT_QUEUE];
} event_set;

typedef struct gpm_sample {
    struct gpm_sample *next;
    uint32_t magic;
    int filled;
    unsigned generation;
    int gpu;
    long long gi;                  /* -1: whole GPU */
    double walk_ms;
    int walking;
    struct timespec taken;
} gpm_sample;

/* ---- global state ------------------------------------------------------------------------------------------ */

#define FN_LIST(X) \
    X(nvmlInit_v2) X(nvmlInit) X(nvmlInitWithFlags) X(nvmlShutdown) \
    X(nvmlSystemGetDriverVersion) X(nvmlSystemGetNVMLVersion) X(nvmlSystemGetCudaDriverVersion_v2) \
    X(nvmlSystemGetCudaDriverVersion) X(nvmlDeviceGetCount_v2) X(nvmlDeviceGetCount) \
    X(nvmlDeviceGetHandleByIndex_v2) X(nvmlDeviceGetHandleByIndex) X(nvmlDeviceGetHandleByUUID) \
    X(nvmlDeviceGetHandleByPciBusId_v2) X(nvmlDeviceGetHandleByPciBusId) X(nvmlDeviceGetIndex) \
    X(nvmlDeviceGetUUID) X(nvmlDeviceGetName) X(nvmlDeviceGetBrand) X(nvmlDeviceGetArchitecture) \
    X(nvmlDeviceGetCudaComputeCapability) X(nvmlDeviceGetMemoryInfo) X(nvmlDeviceGetMemoryInfo_v2) \
    X(nvmlDeviceGetPciInfo_v3) X(nvmlDeviceGetPciInfo_v2) X(nvmlDeviceGetPciInfo) X(nvmlDeviceGetMinorNumber) \
    X(nvmlDeviceGetNumaNodeId) X(nvmlDeviceGetSerial) X(nvmlDeviceGetVbiosVersion) \
    X(nvmlDeviceGetInforomVersion) X(nvmlDeviceGetInforomImageVersion) X(nvmlDeviceGetComputeMode) \
    X(nvmlDeviceSetComputeMode) X(nvmlDeviceGetVirtualizationMode) X(nvmlDeviceGetGridLicensableFeatures_v4) \
    X(nvmlDeviceGetGpuFabricInfo) X(nvmlDeviceGetMigMode) \
    X(nvmlDeviceGetMaxMigDeviceCount) X(nvmlDeviceGetMigDeviceHandleByIndex) X(nvmlDeviceIsMigDeviceHandle) \
    X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle) X(nvmlDeviceGetGpuInstanceId) \
    X(nvmlDeviceGetComputeInstanceId) X(nvmlDeviceGetAttributes_v2) X(nvmlDeviceGetAttributes) \
    X(nvmlDeviceGetGpuInstanceById) X(nvmlGpuInstanceGetInfo) X(nvmlDeviceGetGpuInstanceProfileInfo) \
    X(nvmlGpuInstanceGetComputeInstanceById) X(nvmlComputeInstanceGetInfo_v2) X(nvmlComputeInstanceGetInfo) \
    X(nvmlGpuInstanceGetComputeInstanceProfileInfo) X(nvmlGpuInstanceGetComputeInstanceProfileInfoV) \
    X(nvmlDeviceGetTemperature) X(nvmlDeviceGetPowerUsage) X(nvmlDeviceGetEnforcedPowerLimit) \
    X(nvmlDeviceGetTotalEnergyConsumption) X(nvmlDeviceGetClockInfo) X(nvmlDeviceGetUtilizationRates) \
    X(nvmlDeviceGetEncoderUtilization) X(nvmlDeviceGetDecoderUtilization) X(nvmlDeviceGetPcieReplayCounter) \
    X(nvmlDeviceGetPcieThroughput) X(nvmlDeviceGetEccMode) \
    X(nvmlDeviceGetRemappedRows) X(nvmlDeviceGetTotalEccErrors) X(nvmlDeviceGetRetiredPages) \
    X(nvmlDeviceGetRetiredPagesPendingStatus) X(nvmlDeviceGetViolationStatus) \
    X(nvmlDeviceGetCurrentClocksEventReasons) X(nvmlDeviceGetFieldValues) X(nvmlGpmQueryDeviceSupport) \
    X(nvmlGpmSampleAlloc) X(nvmlGpmSampleFree) X(nvmlGpmSampleGet) X(nvmlGpmMigSampleGet) \
    X(nvmlGpmMetricsGet) X(nvmlDeviceGetNvLinkState) X(nvmlDeviceGetNvLinkRemotePciInfo_v2) \
    X(nvmlDeviceGetNvLinkRemotePciInfo) X(nvmlDeviceGetNvLinkErrorCounter) \
    X(nvmlDeviceGetTopologyCommonAncestor) X(nvmlDeviceGetP2PStatus) X(nvmlEventSetCreate) \
    X(nvmlDeviceRegisterEvents) X(nvmlDeviceGetSupportedEventTypes) X(nvmlEventSetWait_v2) \
    X(nvmlEventSetWait) X(nvmlEventSetFree)

#define FN_ENUM(name) FN_##name,
enum { FN_LIST(FN_ENUM) FN_COUNT };
#undef FN_ENUM

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t events_changed;  /* CLOCK_MONOTONIC */
    int init_count;
    int no_gpus;                    /* nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS) */

    mock_node *node;                /* NULL until a profile is loaded */
    unsigned generation;            /* changes whenever handles must go stale */
    char profile_request[4096];     /* the name or path the node came from */

    /* profile file watch */
    struct timespec watched_mtime;
    off_t watched_size;
    ino_t watched_ino;
    double last_watch_ms;

    double call_ms;                 /* monotonic ms at the start of the current NVML call (one instant per call) */

    /* walk */
    int walk_override;              /* -1: none, else 0/1 (mockNvmlSetWalk) */
    int walking;
    double walk_origin_ms;          /* monotonic ms at which walk time was 0 */
    double walk_frozen_ms;          /* walk time while frozen */

    /* events file: global reader that applies ECC counter increments */
    off_t ecc_offset;
    off_t warned_upto;              /* malformed lines before this offset were reported already */

    char last_error[MOCK_ERR_LEN];

    int fail_active;
    struct {
        int ret;
        int times;                  /* < 0: until cleared */
    } fail[FN_COUNT];

    event_set *sets;
    gpm_sample *samples;
} mock_state;

extern mock_state S;

/* Every NVML entry point: enter() locks, applies injected failures, checks init and watches the profile file;
 * leave() unlocks. NVML_OK_NO_INIT lets nvmlInit and nvmlErrorString-like calls skip the init check. */
nvmlReturn_t mock_enter(int fn, int needs_init);
void mock_leave(void);

#define GUARDED(fn, call)                                   \
    do {                                                    \
        nvmlReturn_t guarded_ret_ = mock_enter(FN_##fn, 1); \
        if (guarded_ret_ == NVML_SUCCESS) {                 \
            guarded_ret_ = (call);                          \
        }                                                   \
        mock_leave();                                       \
        return guarded_ret_;                                \
    } while (0)

/* time */
double mock_monotonic_ms(void);
long long mock_realtime_us(void);

/* walk */
double walk_time_ms(void);
double gauge_at(const walkable *w, double walk_ms, int walking, uint64_t salt);
double gauge_now(const walkable *w);
unsigned gauge_now_uint(const walkable *w);
unsigned long long counter_now(counter *c);
uint64_t mock_hash(const char *s, uint64_t seed);

/* handles */
enum { HANDLE_GPU = 1, HANDLE_MIG = 2, HANDLE_GI = 3, HANDLE_CI = 4 };
nvmlDevice_t handle_gpu(int gpu);
nvmlDevice_t handle_mig(int gpu, int mig);
nvmlGpuInstance_t handle_gi(int gpu, int gi);
/* a compute instance is the MIG device it makes: sub is the MIG device's index */
nvmlComputeInstance_t handle_ci(int gpu, int mig);
/* resolves a device handle (GPU or MIG): INVALID_ARGUMENT for unknown/stale, GPU_IS_LOST for lost GPUs */
nvmlReturn_t resolve_device(nvmlDevice_t handle, mock_gpu **gpu, mig_device **mig);
/* as resolve_device but MIG handles are NOT_SUPPORTED */
nvmlReturn_t resolve_gpu(nvmlDevice_t handle, mock_gpu **gpu);
nvmlReturn_t resolve_gi(nvmlGpuInstance_t handle, mock_gpu **gpu, gpu_instance **gi);
nvmlReturn_t resolve_ci(nvmlComputeInstance_t handle, mock_gpu **gpu, mig_device **mig);

/* lookups */
int find_gpu_by_uuid(const char *uuid, int *mig_index);
int find_gpu_by_bus_id(const char *bus_id);

/* strings into caller buffers: INSUFFICIENT_SIZE unless strlen(value) < length */
nvmlReturn_t copy_string(char *out, unsigned length, const char *value);

/* control helpers */
void mock_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* sets the last error and prints it on stderr (unless MOCK_NVML_QUIET=1) */
void mock_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* events (nvml_events.c) */
void events_deliver(const mock_event *event);                 /* to every matching set, wakes waiters */
void events_reset_global_offset(void);                         /* on profile load */
void events_scan_global(void);                                 /* apply ECC lines to counters */
void events_free_all(int only_unused);                         /* at last shutdown / unload */
int events_parse_line(const char *line, mock_event *out, int *is_ecc_double, char *why, size_t why_size);
const char *events_file(void);
void events_watcher_stop(void);                                /* at unload, the state lock not held */
void ecc_apply(int gpu, int double_bit);

/* GPM (nvml_gpm.c) */
void gpm_free_all(void);

#endif
