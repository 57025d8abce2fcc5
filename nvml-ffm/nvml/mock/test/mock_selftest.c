/*
 * NVIDIA Management Library (NVML) header notice: this file includes NVIDIA's nvml.h.
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
 * Selftest of the mock libnvidia-ml.so.1, linked against it: init counting, error codes, every shipped profile
 * (values and a sweep of every function), events within 100 ms, failure injection, profile errors and reloads,
 * the walk, and many threads at once. Usage: mock_selftest <nvml-ffm/nvml/mock folder>. Exit status 0 when all pass.
 */
#define NVML_NO_UNVERSIONED_FUNC_DEFS /* call the unversioned aliases by their own names */
#include <nvml.h>

#include "mock_control.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int checks, failures;
/* MOCK_NVML_SELFTEST_SLACK multiplies every time limit (valgrind: more). The limits only tell a wake-up by the event
 * from one by a timeout or a poll, on a machine as loaded as CI's: 10x the quiet-machine figures. How fast the mock
 * delivers is measured by the benchmarks, never asserted here. */
static double slack = 10;
static char tmpdir[256];
static char events_path[300];
static const char *profile_dir; /* nvml-ffm/nvml/mock/profiles (argv[1]/profiles) */
static char profile_dir_buf[300];

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                   \
            printf(__VA_ARGS__);                                          \
            putchar('\n');                                                \
            fflush(stdout);                                               \
        }                                                                 \
    } while (0)

#define RC(call, want)                                                                                  \
    do {                                                                                                \
        nvmlReturn_t rc_ = (call);                                                                      \
        CHECK(rc_ == (want), "%s returned %d (%s), expected %d (%s)", #call, rc_, nvmlErrorString(rc_), \
              (int) (want), nvmlErrorString(want));                                                     \
    } while (0)

#define OK(call) RC(call, NVML_SUCCESS)

#define OK_OR_NS(call)                                                                                   \
    do {                                                                                                 \
        nvmlReturn_t rc_ = (call);                                                                       \
        CHECK(rc_ == NVML_SUCCESS || rc_ == NVML_ERROR_NOT_SUPPORTED, "%s returned %d (%s)", #call, rc_, \
              nvmlErrorString(rc_));                                                                     \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1000.0 + (double) ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms) {
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void load(const char *profile) {
    int rc = mockNvmlSetProfile(profile);
    CHECK(rc == 0, "mockNvmlSetProfile(%s) failed: %s", profile, mockNvmlLastError());
}

static nvmlDevice_t dev(unsigned i) {
    nvmlDevice_t d = NULL;
    OK(nvmlDeviceGetHandleByIndex_v2(i, &d));
    return d;
}

static void append(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    CHECK(fd >= 0, "cannot open %s: %s", path, strerror(errno));
    if (fd >= 0) {
        ssize_t n = write(fd, text, strlen(text));
        CHECK(n == (ssize_t) strlen(text), "short write to %s", path);
        close(fd);
    }
}

/* writes path atomically (temp file + rename), as editors and kgpu do */
static void write_file(const char *path, const char *text) {
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL, "cannot write %s", tmp);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
        CHECK(rename(tmp, path) == 0, "cannot rename %s", tmp);
    }
}

static const char *uuid_of(nvmlDevice_t d) {
    static char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    buf[0] = '\0';
    OK(nvmlDeviceGetUUID(d, buf, sizeof buf));
    return buf;
}

/* A one-GPU profile with %TOKENS% to vary. */
static const char *MINI =
    "{\"schemaVersion\":1,\"system\":{\"driverVersion\":\"550.54.15\",\"nvmlVersion\":\"12.550.54.15\","
    "\"cudaDriverVersion\":12040},\"walk\":{\"enabled\":false,\"seed\":1,\"stepMs\":1000},\"gpus\":[{"
    "\"uuid\":\"GPU-11111111-2222-4333-8444-555555555555\",\"name\":\"Mini GPU\",\"brand\":\"TESLA\","
    "\"architecture\":\"VOLTA\",\"computeCapability\":{\"major\":7,\"minor\":0},\"serial\":\"0000000000001\","
    "\"vbiosVersion\":\"88.00.4F.00.09\",\"inforom\":{\"image\":\"G503.0201.00.03\",\"oem\":\"1.1\",\"ecc\":\"5.0\","
    "\"power\":null},\"minorNumber\":0,\"numaNode\":0,"
    "\"pci\":{\"busId\":\"00000000:3B:00.0\",\"deviceId\":\"0x1DB110DE\",\"subsystemId\":\"0x121210DE\"},"
    "\"topology\":{\"hostBridge\":\"hb\",\"switches\":[]},\"pcieP2pSupported\":true,\"computeMode\":\"DEFAULT\","
    "\"virtualizationMode\":\"NONE\",\"gridLicense\":null,\"fabric\":null,\"lost\":%LOST%,"
    "\"memory\":{\"totalBytes\":%TOTAL%,\"reservedBytes\":0,\"usedBytes\":0},"
    "\"temperature\":{\"gpuC\":%TEMP%,\"memoryC\":null},"
    "\"power\":{\"usageMw\":50000,\"enforcedLimitMw\":300000,\"energyMj\":1000},"
    "\"clocksMhz\":{\"graphics\":135,\"sm\":135,\"memory\":877,\"video\":555},"
    "\"utilization\":{\"gpuPercent\":0,\"memoryPercent\":0,\"encoderPercent\":0,\"decoderPercent\":0,"
    "\"samplingPeriodUs\":167000},\"pcieReplayCount\":0,\"pcieThroughputKBps\":{\"tx\":100,\"rx\":200},"
    "\"ecc\":{\"volatile\":{\"corrected\":0,\"uncorrected\":0},\"aggregate\":{\"corrected\":0,\"uncorrected\":0}},"
    "\"retiredPages\":{\"multipleSingleBitEcc\":[4096,8192],\"doubleBitEcc\":[12288],\"pending\":true},"
    "\"remappedRows\":null,\"violationNs\":null,\"clocksEventReasons\":[],"
    "\"supportedEvents\":[\"XidCriticalError\",\"SingleBitEccError\",\"DoubleBitEccError\"],"
    "\"nvlink\":null,\"gpm\":null,\"mig\":null%EXTRA%}]}";

/* MINI with its tokens replaced: lost, total, temp, extra */
static char *mini(const char *lost, const char *total, const char *temp, const char *extra) {
    static char out[8192];
    const char *keys[4] = { "%LOST%", "%TOTAL%", "%TEMP%", "%EXTRA%" };
    const char *vals[4] = { lost, total, temp, extra };
    size_t n = 0;
    for (const char *p = MINI; *p != '\0';) {
        int hit = 0;
        for (int k = 0; k < 4; k++) {
            size_t len = strlen(keys[k]);
            if (strncmp(p, keys[k], len) == 0) {
                n += (size_t) snprintf(out + n, sizeof out - n, "%s", vals[k]);
                p += len;
                hit = 1;
                break;
            }
        }
        if (!hit) {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    return out;
}

/* ---- tests ---------------------------------------------------------------------------------------------- */

static void test_uninitialized(void) {
    unsigned count;
    RC(nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
    RC(nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
    char buf[80];
    RC(nvmlSystemGetDriverVersion(buf, sizeof buf), NVML_ERROR_UNINITIALIZED);
    CHECK(strcmp(nvmlErrorString(NVML_ERROR_UNINITIALIZED), "Uninitialized") == 0, "error string 1");
    CHECK(strcmp(nvmlErrorString(NVML_ERROR_INVALID_ARGUMENT), "Invalid Argument") == 0, "error string 2");
    CHECK(strcmp(nvmlErrorString(NVML_ERROR_NOT_SUPPORTED), "Not Supported") == 0, "error string 3");
    CHECK(strcmp(nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost") == 0, "error string 15");
    CHECK(strcmp(nvmlErrorString(NVML_ERROR_DRIVER_NOT_LOADED), "Driver Not Loaded") == 0, "error string 9");
    CHECK(strcmp(nvmlErrorString((nvmlReturn_t) 12345), "Unknown Error") == 0, "error string unknown");
}

static void test_init_counting(void) {
    load("rtx3060");
    unsigned count = 0;
    OK(nvmlInit_v2());
    OK(nvmlInit_v2());
    OK(nvmlShutdown());
    OK(nvmlDeviceGetCount_v2(&count));
    CHECK(count == 1, "rtx3060 has %u GPUs", count);
    OK(nvmlShutdown());
    RC(nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
    OK(nvmlInit());
    OK(nvmlDeviceGetCount(&count));
    OK(nvmlShutdown());
    OK(nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS));
    OK(nvmlDeviceGetCount_v2(&count));
    CHECK(count == 0, "NO_GPUS init sees %u GPUs", count);
    OK(nvmlShutdown());
}

static const unsigned FIELDS[] = {
    NVML_FI_DEV_MEMORY_TEMP, NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
    NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX, NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX,
    NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL,
    NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL, NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL,
    NVML_FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL, NVML_FI_DEV_NVLINK_BANDWIDTH_C1_TOTAL, NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON,
    NVML_FI_DEV_NVLINK_LINK_COUNT, NVML_FI_DEV_PERF_POLICY_POWER, NVML_FI_DEV_REMAPPED_COR, 9999
};
#define FIELD_COUNT (sizeof FIELDS / sizeof FIELDS[0])

/* Calls every query on one GPU or MIG device and checks invariants that hold for any profile. */
static void sweep_device(nvmlDevice_t d, int is_mig) {
    char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned u, u2, u3, u4;
    int i1, i2;
    unsigned long long ull;
    OK(nvmlDeviceGetUUID(d, buf, sizeof buf));
    CHECK(strncmp(buf, is_mig ? "MIG-" : "GPU-", 4) == 0 && strlen(buf) == 40, "uuid %s", buf);
    nvmlDevice_t again;
    OK(nvmlDeviceGetHandleByUUID(buf, &again));
    CHECK(again == d, "handle by UUID %s differs", buf);
    OK(nvmlDeviceGetName(d, buf, sizeof buf));
    nvmlBrandType_t brand;
    OK(nvmlDeviceGetBrand(d, &brand));
    nvmlDeviceArchitecture_t arch;
    OK(nvmlDeviceGetArchitecture(d, &arch));
    OK(nvmlDeviceGetCudaComputeCapability(d, &i1, &i2));
    nvmlMemory_t m1;
    OK(nvmlDeviceGetMemoryInfo(d, &m1));
    CHECK(m1.total == m1.free + m1.used, "v1 memory %llu != %llu + %llu", m1.total, m1.free, m1.used);
    nvmlMemory_v2_t m2;
    m2.version = nvmlMemory_v2;
    OK(nvmlDeviceGetMemoryInfo_v2(d, &m2));
    CHECK(m2.total == m2.free + m2.used + m2.reserved, "v2 memory does not add up");
    OK(nvmlDeviceIsMigDeviceHandle(d, &u));
    CHECK(u == (unsigned) is_mig, "IsMigDeviceHandle %u", u);
    if (is_mig) {
        nvmlDeviceAttributes_t a;
        OK(nvmlDeviceGetAttributes_v2(d, &a));
        CHECK(a.computeInstanceSliceCount <= a.gpuInstanceSliceCount && a.memorySizeMB > 0, "MIG attributes");
        OK(nvmlDeviceGetGpuInstanceId(d, &u));
        OK(nvmlDeviceGetComputeInstanceId(d, &u2));
        nvmlDevice_t parent;
        OK(nvmlDeviceGetDeviceHandleFromMigDeviceHandle(d, &parent));
        nvmlGpuInstance_t gi;
        OK(nvmlDeviceGetGpuInstanceById(parent, u, &gi));
        nvmlGpuInstanceInfo_t info;
        OK(nvmlGpuInstanceGetInfo(gi, &info));
        CHECK(info.device == parent && info.id == u, "GPU instance info of GI %u", u);
        /* the compute instance behind the MIG device, as go-nvlib's MigDevice.GetProfile finds it */
        nvmlComputeInstance_t ci;
        OK(nvmlGpuInstanceGetComputeInstanceById(gi, u2, &ci));
        nvmlComputeInstanceInfo_t cinfo;
        OK(nvmlComputeInstanceGetInfo_v2(ci, &cinfo));
        CHECK(cinfo.device == parent && cinfo.gpuInstance == gi && cinfo.id == u2
                  && cinfo.placement.size == a.computeInstanceSliceCount,
              "compute instance info of GI %u CI %u", u, u2);
        nvmlComputeInstanceProfileInfo_t cp;
        OK(nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, cinfo.profileId, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &cp));
        CHECK(cp.id == cinfo.profileId && cp.sliceCount == a.computeInstanceSliceCount
                  && cp.multiprocessorCount == a.multiprocessorCount,
              "compute instance profile %u of GI %u", cinfo.profileId, u);
        unsigned t;
        RC(nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t), NVML_ERROR_NOT_SUPPORTED);
        RC(nvmlDeviceGetIndex(d, &t), NVML_ERROR_NOT_SUPPORTED);
        return;
    }
    RC(nvmlDeviceGetAttributes_v2(d, &(nvmlDeviceAttributes_t) { 0 }), NVML_ERROR_NOT_SUPPORTED);
    RC(nvmlDeviceGetGpuInstanceId(d, &u), NVML_ERROR_NOT_SUPPORTED);
    nvmlPciInfo_t pci;
    OK(nvmlDeviceGetPciInfo_v3(d, &pci));
    OK(nvmlDeviceGetHandleByPciBusId_v2(pci.busId, &again));
    CHECK(again == d, "handle by bus id %s differs", pci.busId);
    OK(nvmlDeviceGetHandleByPciBusId_v2(pci.busIdLegacy, &again));
    CHECK(again == d, "handle by legacy bus id %s differs", pci.busIdLegacy);
    OK(nvmlDeviceGetIndex(d, &u));
    OK(nvmlDeviceGetMinorNumber(d, &u));
    OK_OR_NS(nvmlDeviceGetNumaNodeId(d, &u));
    OK_OR_NS(nvmlDeviceGetSerial(d, buf, NVML_DEVICE_SERIAL_BUFFER_SIZE));
    OK(nvmlDeviceGetVbiosVersion(d, buf, NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE));
    for (int o = 0; o < NVML_INFOROM_COUNT; o++) {
        OK_OR_NS(nvmlDeviceGetInforomVersion(d, (nvmlInforomObject_t) o, buf, NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE));
    }
    OK_OR_NS(nvmlDeviceGetInforomImageVersion(d, buf, NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE));
    nvmlComputeMode_t cm;
    OK_OR_NS(nvmlDeviceGetComputeMode(d, &cm));
    nvmlGpuVirtualizationMode_t vm;
    OK(nvmlDeviceGetVirtualizationMode(d, &vm));
    nvmlGridLicensableFeatures_t grid;
    OK_OR_NS(nvmlDeviceGetGridLicensableFeatures_v4(d, &grid));
    nvmlGpuFabricInfo_t fabric;
    OK_OR_NS(nvmlDeviceGetGpuFabricInfo(d, &fabric));
    OK_OR_NS(nvmlDeviceGetMigMode(d, &u, &u2));
    OK(nvmlDeviceGetMaxMigDeviceCount(d, &u3));
    for (unsigned k = 0; k < u3; k++) {
        nvmlDevice_t mig;
        nvmlReturn_t r = nvmlDeviceGetMigDeviceHandleByIndex(d, k, &mig);
        CHECK(r == NVML_SUCCESS || r == NVML_ERROR_NOT_FOUND, "MIG device %u: %d", k, r);
        if (r == NVML_SUCCESS) {
            sweep_device(mig, 1);
        }
    }
    for (unsigned p = 0; p < NVML_GPU_INSTANCE_PROFILE_COUNT; p++) {
        nvmlGpuInstanceProfileInfo_t pi;
        OK_OR_NS(nvmlDeviceGetGpuInstanceProfileInfo(d, p, &pi));
    }
    OK(nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &u));
    CHECK(u < 120, "temperature %u", u);
    OK(nvmlDeviceGetPowerUsage(d, &u));
    OK(nvmlDeviceGetEnforcedPowerLimit(d, &u2));
    CHECK(u <= u2, "power %u above limit %u", u, u2);
    OK(nvmlDeviceGetTotalEnergyConsumption(d, &ull));
    for (int c = 0; c < NVML_CLOCK_COUNT; c++) {
        OK(nvmlDeviceGetClockInfo(d, (nvmlClockType_t) c, &u));
    }
    nvmlUtilization_t util;
    OK_OR_NS(nvmlDeviceGetUtilizationRates(d, &util));
    OK_OR_NS(nvmlDeviceGetEncoderUtilization(d, &u, &u2));
    OK_OR_NS(nvmlDeviceGetDecoderUtilization(d, &u, &u2));
    OK(nvmlDeviceGetPcieReplayCounter(d, &u));
    OK_OR_NS(nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_TX_BYTES, &u));
    OK_OR_NS(nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_RX_BYTES, &u));
    RC(nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_COUNT, &u), NVML_ERROR_INVALID_ARGUMENT);
    nvmlEnableState_t ecc_current, ecc_pending;
    OK_OR_NS(nvmlDeviceGetEccMode(d, &ecc_current, &ecc_pending));
    OK_OR_NS(nvmlDeviceGetRemappedRows(d, &u, &u2, &u3, &u4));
    for (int t = 0; t < 2; t++) {
        for (int c = 0; c < 2; c++) {
            OK_OR_NS(nvmlDeviceGetTotalEccErrors(d, (nvmlMemoryErrorType_t) t, (nvmlEccCounterType_t) c, &ull));
        }
    }
    unsigned pages = 0;
    nvmlReturn_t r = nvmlDeviceGetRetiredPages(d, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &pages, NULL);
    CHECK(r == NVML_SUCCESS || r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_INSUFFICIENT_SIZE, "retired %d", r);
    nvmlEnableState_t pending;
    OK_OR_NS(nvmlDeviceGetRetiredPagesPendingStatus(d, &pending));
    nvmlViolationTime_t viol;
    OK_OR_NS(nvmlDeviceGetViolationStatus(d, NVML_PERF_POLICY_POWER, &viol));
    OK(nvmlDeviceGetCurrentClocksEventReasons(d, &ull));
    nvmlFieldValue_t fv[FIELD_COUNT];
    memset(fv, 0, sizeof fv);
    for (size_t k = 0; k < FIELD_COUNT; k++) {
        fv[k].fieldId = FIELDS[k];
        fv[k].scopeId = UINT_MAX;
    }
    OK(nvmlDeviceGetFieldValues(d, (int) FIELD_COUNT, fv));
    for (size_t k = 0; k < FIELD_COUNT; k++) {
        CHECK(fv[k].nvmlReturn == NVML_SUCCESS || fv[k].nvmlReturn == NVML_ERROR_NOT_SUPPORTED, "field %u: %d",
              FIELDS[k], fv[k].nvmlReturn);
    }
    CHECK(fv[FIELD_COUNT - 1].nvmlReturn == NVML_ERROR_NOT_SUPPORTED, "unknown field 9999 answered");
    nvmlGpmSupport_t gs = { NVML_GPM_SUPPORT_VERSION, 0 };
    OK(nvmlGpmQueryDeviceSupport(d, &gs));
    for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
        nvmlEnableState_t active;
        r = nvmlDeviceGetNvLinkState(d, l, &active);
        CHECK(r == NVML_SUCCESS || r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_INVALID_ARGUMENT, "link %u", l);
        if (r == NVML_SUCCESS && active == NVML_FEATURE_ENABLED) {
            OK(nvmlDeviceGetNvLinkRemotePciInfo_v2(d, l, &pci));
            OK(nvmlDeviceGetNvLinkErrorCounter(d, l, NVML_NVLINK_ERROR_DL_REPLAY, &ull));
        }
    }
    nvmlGpuTopologyLevel_t level;
    OK(nvmlDeviceGetTopologyCommonAncestor(d, d, &level));
    CHECK(level == NVML_TOPOLOGY_INTERNAL, "self topology %d", level);
    unsigned long long events;
    OK(nvmlDeviceGetSupportedEventTypes(d, &events));
}

static void test_profile(const char *name, unsigned expected_gpus, int full_sweep) {
    load(name);
    OK(nvmlInit_v2());
    unsigned count = 0;
    OK(nvmlDeviceGetCount_v2(&count));
    CHECK(count == expected_gpus, "%s: %u GPUs, expected %u", name, count, expected_gpus);
    for (unsigned i = 0; i < count; i++) {
        if (full_sweep || i < 2 || i == count - 1) {
            sweep_device(dev(i), 0);
        }
    }
    char version[80];
    OK(nvmlSystemGetDriverVersion(version, sizeof version));
    CHECK(strcmp(version, "550.54.15") == 0, "driver %s", version);
    OK(nvmlSystemGetNVMLVersion(version, sizeof version));
    CHECK(strcmp(version, "12.550.54.15") == 0, "nvml %s", version);
    int cuda;
    OK(nvmlSystemGetCudaDriverVersion_v2(&cuda));
    CHECK(cuda == 12040, "cuda %d", cuda);
    OK(nvmlShutdown());
}

static void test_rtx3060_values(void) {
    mockNvmlSetWalk(0);
    load("rtx3060");
    OK(nvmlInit_v2());
    nvmlDevice_t d = dev(0);
    CHECK(strcmp(uuid_of(d), "GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93") == 0, "uuid %s", uuid_of(d));
    nvmlPciInfo_t pci;
    OK(nvmlDeviceGetPciInfo_v3(d, &pci));
    CHECK(strcmp(pci.busId, "00000000:01:00.0") == 0 && strcmp(pci.busIdLegacy, "0000:01:00.0") == 0, "bus %s",
          pci.busId);
    CHECK(pci.pciDeviceId == 0x250310DEu && pci.bus == 1 && pci.domain == 0, "pci ids");
    nvmlMemory_v2_t m = { .version = nvmlMemory_v2 };
    OK(nvmlDeviceGetMemoryInfo_v2(d, &m));
    CHECK(m.total == 12884901888ull && m.reserved == 264241152ull && m.used == 536870912ull
              && m.free == 12884901888ull - 264241152ull - 536870912ull,
          "memory v2 %llu %llu %llu %llu", m.total, m.reserved, m.used, m.free);
    nvmlMemory_t m1;
    OK(nvmlDeviceGetMemoryInfo(d, &m1));
    CHECK(m1.used == 264241152ull + 536870912ull, "memory v1 used %llu", m1.used);
    unsigned u, u2;
    OK(nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &u));
    CHECK(u == 41, "temperature %u", u);
    OK(nvmlDeviceGetPowerUsage(d, &u));
    CHECK(u == 17000, "power %u", u);
    unsigned long long e;
    OK(nvmlDeviceGetTotalEnergyConsumption(d, &e));
    CHECK(e == 5234567890ull, "energy %llu", e);
    nvmlBrandType_t brand;
    OK(nvmlDeviceGetBrand(d, &brand));
    CHECK(brand == NVML_BRAND_GEFORCE, "brand %d", brand);
    int major, minor;
    OK(nvmlDeviceGetCudaComputeCapability(d, &major, &minor));
    CHECK(major == 8 && minor == 6, "cc %d.%d", major, minor);
    char buf[96];
    RC(nvmlDeviceGetSerial(d, buf, sizeof buf), NVML_ERROR_NOT_SUPPORTED);
    RC(nvmlDeviceGetMigMode(d, &u, &u2), NVML_ERROR_NOT_SUPPORTED);
    OK(nvmlDeviceGetMaxMigDeviceCount(d, &u));
    CHECK(u == 0, "max MIG %u", u);
    nvmlDevice_t mig;
    RC(nvmlDeviceGetMigDeviceHandleByIndex(d, 0, &mig), NVML_ERROR_NOT_SUPPORTED);
    nvmlGpuInstanceProfileInfo_t pi;
    RC(nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &pi), NVML_ERROR_NOT_SUPPORTED);
    nvmlEnableState_t active;
    RC(nvmlDeviceGetNvLinkState(d, 0, &active), NVML_ERROR_NOT_SUPPORTED);
    unsigned long long ull;
    RC(nvmlDeviceGetTotalEccErrors(d, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &ull),
       NVML_ERROR_NOT_SUPPORTED);
    RC(nvmlDeviceGetRemappedRows(d, &u, &u, &u, &u), NVML_ERROR_NOT_SUPPORTED);
    nvmlViolationTime_t viol;
    RC(nvmlDeviceGetViolationStatus(d, NVML_PERF_POLICY_THERMAL, &viol), NVML_ERROR_NOT_SUPPORTED);
    RC(nvmlDeviceGetNumaNodeId(d, &u), NVML_ERROR_NOT_SUPPORTED);
    nvmlGpuFabricInfo_t fi;
    RC(nvmlDeviceGetGpuFabricInfo(d, &fi), NVML_ERROR_NOT_SUPPORTED);
    nvmlFieldValue_t fv = { .fieldId = NVML_FI_DEV_MEMORY_TEMP };
    OK(nvmlDeviceGetFieldValues(d, 1, &fv));
    CHECK(fv.nvmlReturn == NVML_ERROR_NOT_SUPPORTED, "memory temperature on GDDR6: %d", fv.nvmlReturn);
    nvmlGpmSupport_t gs = { NVML_GPM_SUPPORT_VERSION, 1 };
    OK(nvmlGpmQueryDeviceSupport(d, &gs));
    CHECK(gs.isSupportedDevice == 0, "GPM on Ampere");
    nvmlGpmSample_t s;
    OK(nvmlGpmSampleAlloc(&s));
    RC(nvmlGpmSampleGet(d, s), NVML_ERROR_NOT_SUPPORTED);
    OK(nvmlGpmSampleFree(s));
    RC(nvmlGpmSampleFree(s), NVML_ERROR_INVALID_ARGUMENT);
    OK(nvmlDeviceGetSupportedEventTypes(d, &ull));
    CHECK(ull == (nvmlEventTypePState | nvmlEventTypeXidCriticalError), "events 0x%llx", ull);
    OK(nvmlDeviceGetDecoderUtilization(d, &u, &u2));
    CHECK(u == 0 && u2 == 167000, "decoder %u %u", u, u2);
    nvmlGpuP2PStatus_t p2p;
    OK(nvmlDeviceGetP2PStatus(d, d, NVML_P2P_CAPS_INDEX_READ, &p2p));
    CHECK(p2p == NVML_P2P_STATUS_OK, "self p2p %d", p2p);
    OK(nvmlShutdown());
}

static void test_dgx_a100_values(void) {
    mockNvmlSetWalk(0);
    load("dgx-a100");
    OK(nvmlInit_v2());
    static const char *const buses[8] = { "00000000:07:00.0", "00000000:0F:00.0", "00000000:47:00.0",
                                          "00000000:4E:00.0", "00000000:87:00.0", "00000000:90:00.0",
                                          "00000000:B7:00.0", "00000000:BD:00.0" };
    nvmlDevice_t d[8];
    for (unsigned i = 0; i < 8; i++) {
        d[i] = dev(i);
        nvmlPciInfo_t pci;
        OK(nvmlDeviceGetPciInfo_v3(d[i], &pci));
        CHECK(strcmp(pci.busId, buses[i]) == 0, "GPU %u bus %s", i, pci.busId);
        unsigned numa;
        OK(nvmlDeviceGetNumaNodeId(d[i], &numa));
        CHECK(numa == (i < 4 ? 0u : 1u), "GPU %u NUMA %u", i, numa);
    }
    nvmlGpuTopologyLevel_t level;
    struct {
        int a, b;
        nvmlGpuTopologyLevel_t want;
    } pairs[] = { { 0, 1, NVML_TOPOLOGY_SINGLE }, { 2, 3, NVML_TOPOLOGY_MULTIPLE }, { 0, 2, NVML_TOPOLOGY_HOSTBRIDGE },
                  { 4, 6, NVML_TOPOLOGY_NODE }, { 0, 4, NVML_TOPOLOGY_SYSTEM }, { 6, 7, NVML_TOPOLOGY_MULTIPLE },
                  { 4, 5, NVML_TOPOLOGY_SINGLE } };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        OK(nvmlDeviceGetTopologyCommonAncestor(d[pairs[k].a], d[pairs[k].b], &level));
        CHECK(level == pairs[k].want, "topology %d-%d is %d, expected %d", pairs[k].a, pairs[k].b, level,
              pairs[k].want);
    }
    nvmlGpuP2PStatus_t p2p;
    OK(nvmlDeviceGetP2PStatus(d[0], d[7], NVML_P2P_CAPS_INDEX_NVLINK, &p2p));
    CHECK(p2p == NVML_P2P_STATUS_OK, "NVLink p2p 0-7 %d", p2p);
    OK(nvmlDeviceGetP2PStatus(d[0], d[4], NVML_P2P_CAPS_INDEX_READ, &p2p));
    CHECK(p2p == NVML_P2P_STATUS_OK, "read p2p 0-4 over NVLink %d", p2p);
    RC(nvmlDeviceGetP2PStatus(d[0], d[4], NVML_P2P_CAPS_INDEX_UNKNOWN, &p2p), NVML_ERROR_INVALID_ARGUMENT);
    nvmlPciInfo_t remote;
    OK(nvmlDeviceGetNvLinkRemotePciInfo_v2(d[0], 0, &remote));
    CHECK(strcmp(remote.busId, "00000000:C1:00.0") == 0 && remote.pciDeviceId == 0x1AF110DEu, "remote %s",
          remote.busId);
    OK(nvmlDeviceGetNvLinkRemotePciInfo_v2(d[0], 11, &remote));
    CHECK(strcmp(remote.busId, "00000000:C6:00.0") == 0, "remote of link 11 %s", remote.busId);
    RC(nvmlDeviceGetNvLinkRemotePciInfo_v2(d[0], 12, &remote), NVML_ERROR_INVALID_ARGUMENT);
    unsigned long long ull;
    OK(nvmlDeviceGetTotalEccErrors(d[3], NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &ull));
    CHECK(ull == 2, "GPU3 aggregate corrected ECC %llu", ull);
    OK(nvmlDeviceGetTotalEccErrors(d[0], NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &ull));
    CHECK(ull == 0, "GPU0 aggregate corrected ECC %llu", ull);
    RC(nvmlDeviceGetTotalEccErrors(d[0], (nvmlMemoryErrorType_t) 7, NVML_AGGREGATE_ECC, &ull),
       NVML_ERROR_INVALID_ARGUMENT);
    unsigned corr, unc, pend, fail;
    OK(nvmlDeviceGetRemappedRows(d[5], &corr, &unc, &pend, &fail));
    CHECK(corr == 1 && unc == 0 && pend == 0 && fail == 0, "GPU5 remapped rows %u %u %u %u", corr, unc, pend, fail);
    unsigned cur, pending, max;
    OK(nvmlDeviceGetMigMode(d[0], &cur, &pending));
    CHECK(cur == NVML_DEVICE_MIG_DISABLE && pending == NVML_DEVICE_MIG_DISABLE, "MIG mode %u %u", cur, pending);
    OK(nvmlDeviceGetMaxMigDeviceCount(d[0], &max));
    CHECK(max == 0, "max MIG devices with MIG off %u", max);
    nvmlDevice_t mig;
    RC(nvmlDeviceGetMigDeviceHandleByIndex(d[0], 0, &mig), NVML_ERROR_INVALID_ARGUMENT);
    nvmlGpuInstance_t gi;
    RC(nvmlDeviceGetGpuInstanceById(d[0], 1, &gi), NVML_ERROR_NOT_SUPPORTED);
    nvmlGpuInstanceProfileInfo_t pi;
    OK(nvmlDeviceGetGpuInstanceProfileInfo(d[0], NVML_GPU_INSTANCE_PROFILE_1_SLICE, &pi));
    CHECK(pi.id == 19 && pi.memorySizeMB == 9856 && pi.multiprocessorCount == 14 && pi.instanceCount == 7,
          "1_SLICE profile id %u mem %llu", pi.id, pi.memorySizeMB);
    RC(nvmlDeviceGetGpuInstanceProfileInfo(d[0], NVML_GPU_INSTANCE_PROFILE_6_SLICE, &pi), NVML_ERROR_NOT_SUPPORTED);
    RC(nvmlDeviceGetGpuInstanceProfileInfo(d[0], NVML_GPU_INSTANCE_PROFILE_COUNT, &pi), NVML_ERROR_INVALID_ARGUMENT);
    nvmlFieldValue_t fv[9];
    memset(fv, 0, sizeof fv);
    unsigned ids[9] = { NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
                        NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX, NVML_FI_DEV_NVLINK_LINK_COUNT,
                        NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON, NVML_FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL,
                        NVML_FI_DEV_MEMORY_TEMP, NVML_FI_DEV_PERF_POLICY_LOW_UTILIZATION,
                        NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL };
    for (int k = 0; k < 9; k++) {
        fv[k].fieldId = ids[k];
        fv[k].scopeId = UINT_MAX;
    }
    fv[1].scopeId = 0;
    OK(nvmlDeviceGetFieldValues(d[0], 9, fv));
    CHECK(fv[0].nvmlReturn == NVML_SUCCESS && fv[0].value.ullVal == 12ull * 52428800ull, "data tx %llu",
          fv[0].value.ullVal);
    CHECK(fv[1].value.ullVal == 52428800ull, "data tx link 0 %llu", fv[1].value.ullVal);
    CHECK(fv[2].value.ullVal == 12ull * 55574528ull, "raw rx %llu", fv[2].value.ullVal);
    CHECK(fv[3].valueType == NVML_VALUE_TYPE_UNSIGNED_INT && fv[3].value.uiVal == 12, "link count %u",
          fv[3].value.uiVal);
    CHECK(fv[4].value.uiVal == 25000, "speed %u", fv[4].value.uiVal);
    CHECK(fv[5].value.ullVal == 24ull * 52428800ull, "C0 total %llu", fv[5].value.ullVal);
    CHECK(fv[6].nvmlReturn == NVML_SUCCESS && fv[6].value.uiVal == 40, "memory temperature %u", fv[6].value.uiVal);
    CHECK(fv[7].value.ullVal == 864000000000000ull, "low-utilization violation %llu", fv[7].value.ullVal);
    CHECK(fv[8].nvmlReturn == NVML_SUCCESS && fv[8].value.ullVal == 0, "CRC flit %llu", fv[8].value.ullVal);
    CHECK(fv[0].timestamp > 1600000000000000LL, "field timestamp %lld", fv[0].timestamp);
    nvmlViolationTime_t viol;
    OK(nvmlDeviceGetViolationStatus(d[0], NVML_PERF_POLICY_LOW_UTILIZATION, &viol));
    CHECK(viol.violationTime == 864000000000000ull, "violation %llu", viol.violationTime);
    RC(nvmlDeviceGetViolationStatus(d[0], (nvmlPerfPolicyType_t) 7, &viol), NVML_ERROR_INVALID_ARGUMENT);
    nvmlGpmSample_t s;
    OK(nvmlGpmSampleAlloc(&s));
    RC(nvmlGpmSampleGet(d[0], s), NVML_ERROR_NOT_SUPPORTED);
    OK(nvmlGpmSampleFree(s));
    OK(nvmlShutdown());
}

static double gpm_value(nvmlGpmMetricsGet_t *mg, unsigned id, nvmlReturn_t *rc) {
    for (unsigned i = 0; i < mg->numMetrics; i++) {
        if (mg->metrics[i].metricId == id) {
            *rc = mg->metrics[i].nvmlReturn;
            return mg->metrics[i].value;
        }
    }
    *rc = NVML_ERROR_UNKNOWN;
    return -1;
}

static void test_dgx_h100_gpm(void) {
    mockNvmlSetWalk(0);
    load("dgx-h100");
    OK(nvmlInit_v2());
    nvmlDevice_t d0 = dev(0), d1 = dev(1);
    nvmlGpmSupport_t gs = { NVML_GPM_SUPPORT_VERSION, 0 };
    OK(nvmlGpmQueryDeviceSupport(d0, &gs));
    CHECK(gs.isSupportedDevice == 1, "GPM on Hopper");
    gs.version = 7;
    RC(nvmlGpmQueryDeviceSupport(d0, &gs), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    nvmlGpmSample_t a, b, c;
    OK(nvmlGpmSampleAlloc(&a));
    OK(nvmlGpmSampleAlloc(&b));
    OK(nvmlGpmSampleAlloc(&c));
    static nvmlGpmMetricsGet_t mg;
    memset(&mg, 0, sizeof mg);
    mg.version = NVML_GPM_METRICS_GET_VERSION;
    mg.sample1 = a;
    mg.sample2 = b;
    unsigned ids[] = { NVML_GPM_METRIC_GRAPHICS_UTIL, NVML_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_SM_OCCUPANCY,
                       NVML_GPM_METRIC_ANY_TENSOR_UTIL, NVML_GPM_METRIC_DRAM_BW_UTIL, NVML_GPM_METRIC_FP64_UTIL,
                       NVML_GPM_METRIC_FP32_UTIL, NVML_GPM_METRIC_FP16_UTIL, NVML_GPM_METRIC_PCIE_TX_PER_SEC,
                       NVML_GPM_METRIC_PCIE_RX_PER_SEC, NVML_GPM_METRIC_NVDEC_6_UTIL, NVML_GPM_METRIC_NVDEC_7_UTIL,
                       NVML_GPM_METRIC_NVOFA_0_UTIL, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC,
                       NVML_GPM_METRIC_NVLINK_L17_TX_PER_SEC, 8, 200 };
    double want[] = { 12.5, 10.0, 8.25, 4.0, 6.0, 0.25, 3.5, 1.0, 120.0, 250.0, 0.0, -1, 0.0, 144.0, 8.0, -1, -1 };
    unsigned n = sizeof ids / sizeof ids[0];
    mg.numMetrics = n;
    for (unsigned i = 0; i < n; i++) {
        mg.metrics[i].metricId = ids[i];
    }
    RC(nvmlGpmMetricsGet(&mg), NVML_ERROR_INVALID_ARGUMENT); /* samples not taken yet */
    OK(nvmlGpmSampleGet(d0, a));
    OK(nvmlGpmSampleGet(d0, b));
    OK(nvmlGpmMetricsGet(&mg));
    for (unsigned i = 0; i < n; i++) {
        nvmlReturn_t rc;
        double v = gpm_value(&mg, ids[i], &rc);
        if (want[i] < 0) {
            CHECK(rc == (ids[i] == 200 ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_NOT_SUPPORTED), "metric %u: %d",
                  ids[i], rc);
        } else {
            CHECK(rc == NVML_SUCCESS && v == want[i], "metric %u = %g (rc %d), expected %g", ids[i], v, rc, want[i]);
        }
    }
    CHECK(mg.metrics[0].metricInfo.unit != NULL && strcmp(mg.metrics[0].metricInfo.unit, "%") == 0, "metric unit");
    OK(nvmlGpmSampleGet(d1, c));
    mg.sample2 = c;
    RC(nvmlGpmMetricsGet(&mg), NVML_ERROR_INVALID_ARGUMENT); /* two devices */
    mg.sample2 = b;
    mg.version = 2;
    RC(nvmlGpmMetricsGet(&mg), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    mg.version = NVML_GPM_METRICS_GET_VERSION;
    mg.numMetrics = NVML_GPM_METRIC_MAX + 1;
    RC(nvmlGpmMetricsGet(&mg), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlGpmMigSampleGet(d0, 1, a), NVML_ERROR_NOT_SUPPORTED); /* MIG is off */
    nvmlGpuFabricInfo_t fi;
    OK(nvmlDeviceGetGpuFabricInfo(d0, &fi));
    CHECK(fi.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED, "fabric state %u", fi.state);
    nvmlGpuTopologyLevel_t level;
    OK(nvmlDeviceGetTopologyCommonAncestor(d0, d1, &level));
    CHECK(level == NVML_TOPOLOGY_MULTIPLE, "H100 0-1 %d", level);
    OK(nvmlDeviceGetTopologyCommonAncestor(d0, dev(2), &level));
    CHECK(level == NVML_TOPOLOGY_NODE, "H100 0-2 %d", level);
    OK(nvmlGpmSampleFree(a));
    OK(nvmlGpmSampleFree(b));
    OK(nvmlShutdown());
    OK(nvmlGpmSampleFree(c)); /* after the last shutdown */
    RC(nvmlGpmSampleFree(c), NVML_ERROR_INVALID_ARGUMENT);
}

static void test_mig(void) {
    mockNvmlSetWalk(0);
    load("mig-mixed");
    OK(nvmlInit_v2());
    nvmlDevice_t g0 = dev(0), g2 = dev(2), g3 = dev(3);
    unsigned max, cur, pending;
    OK(nvmlDeviceGetMigMode(g0, &cur, &pending));
    CHECK(cur == NVML_DEVICE_MIG_ENABLE, "MIG on");
    OK(nvmlDeviceGetMaxMigDeviceCount(g0, &max));
    CHECK(max == 7, "max %u", max);
    nvmlDevice_t mig;
    for (unsigned i = 0; i < 7; i++) {
        OK(nvmlDeviceGetMigDeviceHandleByIndex(g0, i, &mig));
    }
    RC(nvmlDeviceGetMigDeviceHandleByIndex(g0, 7, &mig), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetMigDeviceHandleByIndex(g2, 3, &mig), NVML_ERROR_NOT_FOUND);
    nvmlDevice_t m1, m2;
    OK(nvmlDeviceGetMigDeviceHandleByIndex(g3, 1, &m1));
    OK(nvmlDeviceGetMigDeviceHandleByIndex(g3, 2, &m2));
    unsigned gi1, ci1, gi2, ci2;
    OK(nvmlDeviceGetGpuInstanceId(m1, &gi1));
    OK(nvmlDeviceGetComputeInstanceId(m1, &ci1));
    OK(nvmlDeviceGetGpuInstanceId(m2, &gi2));
    OK(nvmlDeviceGetComputeInstanceId(m2, &ci2));
    CHECK(gi1 == 3 && gi2 == 3 && ci1 == 0 && ci2 == 1, "1c.2g.20gb ids %u/%u %u/%u", gi1, ci1, gi2, ci2);
    nvmlDeviceAttributes_t at;
    OK(nvmlDeviceGetAttributes_v2(m1, &at));
    CHECK(at.gpuInstanceSliceCount == 2 && at.computeInstanceSliceCount == 1 && at.multiprocessorCount == 14
              && at.memorySizeMB == 19968 && at.sharedCopyEngineCount == 2,
          "1c.2g.20gb attributes");
    char name[96];
    OK(nvmlDeviceGetName(m1, name, sizeof name));
    CHECK(strcmp(name, "NVIDIA A100-SXM4-80GB MIG 1c.2g.20gb") == 0, "MIG name %s", name);
    nvmlGpuInstance_t gi;
    OK(nvmlDeviceGetGpuInstanceById(g3, 3, &gi));
    nvmlGpuInstanceInfo_t info;
    OK(nvmlGpuInstanceGetInfo(gi, &info));
    CHECK(info.profileId == 14 && info.placement.start == 0 && info.placement.size == 2 && info.device == g3,
          "GI 3 info profile %u", info.profileId);
    RC(nvmlDeviceGetGpuInstanceById(g3, 42, &gi), NVML_ERROR_NOT_FOUND);

    /* compute instances: GI 3 of GPU 3 (2 slices) holds two 1-slice compute instances, CI 0 and CI 1 */
    OK(nvmlDeviceGetGpuInstanceById(g3, 3, &gi));
    nvmlComputeInstance_t cix0, cix1, ci_bad;
    OK(nvmlGpuInstanceGetComputeInstanceById(gi, 0, &cix0));
    OK(nvmlGpuInstanceGetComputeInstanceById(gi, 1, &cix1));
    RC(nvmlGpuInstanceGetComputeInstanceById(gi, 2, &ci_bad), NVML_ERROR_NOT_FOUND);
    RC(nvmlGpuInstanceGetComputeInstanceById(gi, 0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlGpuInstanceGetComputeInstanceById((nvmlGpuInstance_t) g3, 0, &ci_bad), NVML_ERROR_INVALID_ARGUMENT);
    nvmlComputeInstanceInfo_t cinfo;
    OK(nvmlComputeInstanceGetInfo(cix1, &cinfo));
    CHECK(cinfo.id == 1 && cinfo.gpuInstance == gi && cinfo.device == g3
              && cinfo.profileId == NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE && cinfo.placement.start == 1
              && cinfo.placement.size == 1,
          "CI 1 info: id %u profile %u placement %u+%u", cinfo.id, cinfo.profileId, cinfo.placement.start,
          cinfo.placement.size);
    OK(nvmlComputeInstanceGetInfo_v2(cix0, &cinfo));
    CHECK(cinfo.id == 0 && cinfo.placement.start == 0, "CI 0 placement %u", cinfo.placement.start);
    RC(nvmlComputeInstanceGetInfo_v2((nvmlComputeInstance_t) gi, &cinfo), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlComputeInstanceGetInfo_v2(cix0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    nvmlComputeInstanceProfileInfo_t cp;
    OK(nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, 0, &cp));
    CHECK(cp.id == 0 && cp.sliceCount == 1 && cp.instanceCount == 2 && cp.multiprocessorCount == 14
              && cp.sharedCopyEngineCount == 2 && cp.sharedDecoderCount == 1,
          "1c profile on a 2g GI: count %u SMs %u CE %u", cp.instanceCount, cp.multiprocessorCount,
          cp.sharedCopyEngineCount);
    OK(nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE, 0, &cp));
    CHECK(cp.sliceCount == 2 && cp.instanceCount == 1 && cp.multiprocessorCount == 28, "2c profile on a 2g GI");
    RC(nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE, 0, &cp),
       NVML_ERROR_NOT_SUPPORTED);
    RC(nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, NVML_COMPUTE_INSTANCE_PROFILE_COUNT, 0, &cp),
       NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, 0, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_COUNT, &cp),
       NVML_ERROR_INVALID_ARGUMENT);
    nvmlComputeInstanceProfileInfo_v2_t cpv;
    memset(&cpv, 0, sizeof cpv);
    cpv.version = nvmlComputeInstanceProfileInfo_v2;
    OK(nvmlGpuInstanceGetComputeInstanceProfileInfoV(gi, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, 0, &cpv));
    CHECK(cpv.version == nvmlComputeInstanceProfileInfo_v2 && cpv.sliceCount == 1 && strcmp(cpv.name, "1c.2g.20gb") == 0,
          "V profile name %s", cpv.name);
    cpv.version = 1;
    RC(nvmlGpuInstanceGetComputeInstanceProfileInfoV(gi, 0, 0, &cpv), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    /* a 7-slice GI offers 1c, 2c, 3c, 4c and 7c; GPU 0's 1-slice GIs only 1c */
    nvmlDevice_t g1 = dev(1);
    nvmlGpuInstance_t whole;
    OK(nvmlDeviceGetGpuInstanceById(g1, 2, &whole));
    OK(nvmlGpuInstanceGetComputeInstanceProfileInfo(whole, NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE, 0, &cp));
    CHECK(cp.sliceCount == 3 && cp.instanceCount == 1, "3c on a 3g GI");
    OK(nvmlDeviceGetGpuInstanceById(g0, 7, &whole));
    RC(nvmlGpuInstanceGetComputeInstanceProfileInfo(whole, NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE, 0, &cp),
       NVML_ERROR_NOT_SUPPORTED);
    CHECK(mockNvmlFailNext("nvmlGpuInstanceGetComputeInstanceById", NVML_ERROR_GPU_IS_LOST, 1) == 0, "fail next");
    RC(nvmlGpuInstanceGetComputeInstanceById(gi, 0, &cix0), NVML_ERROR_GPU_IS_LOST);
    OK(nvmlGpuInstanceGetComputeInstanceById(gi, 0, &cix0));

    char uuid[96];
    OK(nvmlDeviceGetUUID(m2, uuid, sizeof uuid));
    nvmlDevice_t by_uuid;
    OK(nvmlDeviceGetHandleByUUID(uuid, &by_uuid));
    CHECK(by_uuid == m2, "MIG handle by UUID");
    nvmlMemory_t mem;
    OK(nvmlDeviceGetMemoryInfo(m2, &mem));
    CHECK(mem.total == 19968ull * 1048576ull, "MIG memory %llu", mem.total);
    nvmlUtilization_t util;
    RC(nvmlDeviceGetUtilizationRates(g0, &util), NVML_ERROR_NOT_SUPPORTED);
    unsigned long long ev;
    RC(nvmlDeviceGetSupportedEventTypes(m1, &ev), NVML_ERROR_NOT_SUPPORTED);
    OK(nvmlShutdown());

    load("h100-mig");
    OK(nvmlInit_v2());
    nvmlDevice_t h = dev(0);
    nvmlGpmSample_t a, b;
    OK(nvmlGpmSampleAlloc(&a));
    OK(nvmlGpmSampleAlloc(&b));
    OK(nvmlGpmMigSampleGet(h, 2, a));
    OK(nvmlGpmMigSampleGet(h, 2, b));
    RC(nvmlGpmMigSampleGet(h, 99, b), NVML_ERROR_INVALID_ARGUMENT);
    static nvmlGpmMetricsGet_t mg;
    memset(&mg, 0, sizeof mg);
    mg.version = NVML_GPM_METRICS_GET_VERSION;
    mg.numMetrics = 2;
    mg.sample1 = a;
    mg.sample2 = b;
    mg.metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
    mg.metrics[1].metricId = NVML_GPM_METRIC_PCIE_TX_PER_SEC;
    OK(nvmlGpmMetricsGet(&mg));
    CHECK(mg.metrics[0].nvmlReturn == NVML_SUCCESS && mg.metrics[0].value == 10.0, "MIG SM util %g",
          mg.metrics[0].value);
    CHECK(mg.metrics[1].nvmlReturn == NVML_ERROR_NOT_SUPPORTED, "MIG PCIe metric");
    OK(nvmlGpmSampleGet(h, b));
    RC(nvmlGpmMetricsGet(&mg), NVML_ERROR_INVALID_ARGUMENT); /* GPU instance vs whole GPU */
    OK(nvmlGpmSampleFree(a));
    OK(nvmlGpmSampleFree(b));
    OK(nvmlShutdown());
}

static void test_large(void) {
    mockNvmlSetWalk(0);
    load("large-256");
    OK(nvmlInit_v2());
    nvmlDevice_t last = dev(255);
    CHECK(strcmp(uuid_of(last), "GPU-6c2b7f00-0000-4000-8000-0000000000ff") == 0, "GPU 255 %s", uuid_of(last));
    nvmlPciInfo_t pci;
    OK(nvmlDeviceGetPciInfo_v3(last, &pci));
    CHECK(strcmp(pci.busId, "00000003:8E:00.0") == 0, "GPU 255 bus %s", pci.busId);
    unsigned numa, minor;
    OK(nvmlDeviceGetNumaNodeId(last, &numa));
    OK(nvmlDeviceGetMinorNumber(last, &minor));
    CHECK(numa == 7 && minor == 255, "GPU 255 NUMA %u minor %u", numa, minor);
    nvmlDevice_t by_bus;
    OK(nvmlDeviceGetHandleByPciBusId_v2("0003:8e:00.0", &by_bus));
    CHECK(by_bus == last, "lower-case 4-digit bus id");
    nvmlGpuFabricInfo_t fi;
    OK(nvmlDeviceGetGpuFabricInfo(last, &fi));
    CHECK(fi.state == NVML_GPU_FABRIC_STATE_COMPLETED && fi.cliqueId == 32766 && fi.clusterUuid[0] == 0x5e
              && fi.clusterUuid[15] == 0x10,
          "fabric");
    nvmlDevice_t d0 = dev(0);
    int others[] = { 1, 2, 4, 16, 32 };
    nvmlGpuTopologyLevel_t want[] = { NVML_TOPOLOGY_SINGLE, NVML_TOPOLOGY_MULTIPLE, NVML_TOPOLOGY_HOSTBRIDGE,
                                      NVML_TOPOLOGY_NODE, NVML_TOPOLOGY_SYSTEM };
    for (int k = 0; k < 5; k++) {
        nvmlGpuTopologyLevel_t level;
        OK(nvmlDeviceGetTopologyCommonAncestor(d0, dev((unsigned) others[k]), &level));
        CHECK(level == want[k], "large 0-%d: %d", others[k], level);
    }
    OK(nvmlShutdown());
}

static void test_invalid_arguments(void) {
    mockNvmlSetWalk(0);
    load("dgx-a100");
    OK(nvmlInit_v2());
    nvmlDevice_t d = dev(0);
    char buf[96];
    RC(nvmlDeviceGetCount_v2(NULL), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetHandleByIndex_v2(0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    nvmlDevice_t out;
    RC(nvmlDeviceGetHandleByIndex_v2(8, &out), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetUUID(d, NULL, 80), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetMemoryInfo(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetUUID(NULL, buf, sizeof buf), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetUUID((nvmlDevice_t) (uintptr_t) 0x1234, buf, sizeof buf), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetUUID((nvmlDevice_t) (void *) buf, buf, sizeof buf), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetUUID(d, buf, 10), NVML_ERROR_INSUFFICIENT_SIZE);
    RC(nvmlDeviceGetUUID(d, buf, 40), NVML_ERROR_INSUFFICIENT_SIZE); /* 40 characters need 41 bytes */
    OK(nvmlDeviceGetUUID(d, buf, 41));
    RC(nvmlSystemGetDriverVersion(buf, 9), NVML_ERROR_INSUFFICIENT_SIZE);
    OK(nvmlSystemGetDriverVersion(buf, 10));
    RC(nvmlDeviceGetHandleByUUID("GPU-00000000-0000-4000-8000-000000000000", &out), NVML_ERROR_NOT_FOUND);
    RC(nvmlDeviceGetHandleByUUID("not-a-uuid", &out), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetHandleByPciBusId_v2("zz", &out), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetHandleByPciBusId_v2("0000:99:00.0", &out), NVML_ERROR_NOT_FOUND);
    nvmlMemory_v2_t m2 = { .version = 1 };
    RC(nvmlDeviceGetMemoryInfo_v2(d, &m2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    unsigned u;
    RC(nvmlDeviceGetTemperature(d, (nvmlTemperatureSensors_t) 1, &u), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetClockInfo(d, (nvmlClockType_t) 9, &u), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetInforomVersion(d, (nvmlInforomObject_t) 9, buf, 16), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetFieldValues(d, 1, NULL), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceGetNvLinkState(d, 12, &(nvmlEnableState_t) { 0 }), NVML_ERROR_INVALID_ARGUMENT);
    /* handles from before a profile change are stale */
    load("dgx-a100");
    RC(nvmlDeviceGetUUID(d, buf, sizeof buf), NVML_ERROR_INVALID_ARGUMENT);
    OK(nvmlDeviceGetUUID(dev(0), buf, sizeof buf));
    OK(nvmlShutdown());

    /* retired pages (a Volta-like profile) */
    char path[400];
    snprintf(path, sizeof path, "%s/mini.json", tmpdir);
    write_file(path, mini("false", "34359738368", "40", ""));
    load(path);
    OK(nvmlInit_v2());
    d = dev(0);
    unsigned count = 0;
    RC(nvmlDeviceGetRetiredPages(d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &count, NULL),
       NVML_ERROR_INSUFFICIENT_SIZE);
    CHECK(count == 2, "retired page count %u", count);
    unsigned long long addresses[4];
    count = 4;
    OK(nvmlDeviceGetRetiredPages(d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &count, addresses));
    CHECK(count == 2 && addresses[0] == 4096 && addresses[1] == 8192, "retired pages");
    RC(nvmlDeviceGetRetiredPages(d, NVML_PAGE_RETIREMENT_CAUSE_COUNT, &count, addresses), NVML_ERROR_INVALID_ARGUMENT);
    nvmlEnableState_t pending;
    OK(nvmlDeviceGetRetiredPagesPendingStatus(d, &pending));
    CHECK(pending == NVML_FEATURE_ENABLED, "retired pages pending");
    unsigned kbps = 0;
    OK(nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_TX_BYTES, &kbps));
    CHECK(kbps == 100, "PCIe tx %u KB/s", kbps);
    OK(nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_RX_BYTES, &kbps));
    CHECK(kbps == 200, "PCIe rx %u KB/s", kbps);
    RC(nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_TX_BYTES, NULL), NVML_ERROR_INVALID_ARGUMENT);
    nvmlEnableState_t ecc_current = NVML_FEATURE_DISABLED, ecc_pending = NVML_FEATURE_DISABLED;
    OK(nvmlDeviceGetEccMode(d, &ecc_current, &ecc_pending));
    CHECK(ecc_current == NVML_FEATURE_ENABLED && ecc_pending == NVML_FEATURE_ENABLED, "ECC mode %d/%d", ecc_current,
          ecc_pending);
    RC(nvmlDeviceGetEccMode(d, NULL, &ecc_pending), NVML_ERROR_INVALID_ARGUMENT);
    OK(nvmlShutdown());
}

static void test_failure_injection(void) {
    load("dgx-a100");
    OK(nvmlInit_v2());
    nvmlDevice_t d = dev(0);
    char buf[96];
    CHECK(mockNvmlFailNext("nvmlDeviceGetUUID", NVML_ERROR_GPU_IS_LOST, 1) == 0, "FailNext");
    RC(nvmlDeviceGetUUID(d, buf, sizeof buf), NVML_ERROR_GPU_IS_LOST);
    OK(nvmlDeviceGetUUID(d, buf, sizeof buf));
    unsigned count;
    CHECK(mockNvmlFailNext("nvmlDeviceGetCount_v2", NVML_ERROR_UNKNOWN, -1) == 0, "FailNext forever");
    for (int i = 0; i < 3; i++) {
        RC(nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNKNOWN);
    }
    mockNvmlClearFailures();
    OK(nvmlDeviceGetCount_v2(&count));
    CHECK(mockNvmlFailNext("nvmlDeviceGetName", NVML_ERROR_TIMEOUT, 5) == 0, "FailNext 5");
    CHECK(mockNvmlFailNext("nvmlDeviceGetName", NVML_ERROR_TIMEOUT, 0) == 0, "FailNext 0 clears");
    OK(nvmlDeviceGetName(d, buf, sizeof buf));
    CHECK(mockNvmlFailNext("nvmlBogus", NVML_ERROR_UNKNOWN, 1) == -1, "unknown function accepted");
    CHECK(strstr(mockNvmlLastError(), "nvmlBogus") != NULL, "error names the function: %s", mockNvmlLastError());
    CHECK(mockNvmlFailNext("nvmlDeviceGetName", 0, 1) == -1, "success code accepted");
    OK(nvmlShutdown());
    CHECK(mockNvmlFailNext("nvmlInit_v2", NVML_ERROR_DRIVER_NOT_LOADED, 1) == 0, "FailNext init");
    RC(nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
    RC(nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
    OK(nvmlInit_v2());
    OK(nvmlShutdown());
    RC(nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
}

/* nvmlDeviceSetComputeMode: per GPU, as the driver refuses it, and gone with the next profile load (a reboot) */
static void test_compute_mode(void) {
    mockNvmlSetWalk(0);
    load("dgx-a100");
    OK(nvmlInit_v2());
    nvmlDevice_t g0 = dev(0), g1 = dev(1);
    nvmlComputeMode_t cm;
    OK(nvmlDeviceSetComputeMode(g0, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS));
    OK(nvmlDeviceGetComputeMode(g0, &cm));
    CHECK(cm == NVML_COMPUTEMODE_EXCLUSIVE_PROCESS, "GPU 0 mode after set: %d", cm);
    OK(nvmlDeviceGetComputeMode(g1, &cm));
    CHECK(cm == NVML_COMPUTEMODE_DEFAULT, "GPU 1 changed with GPU 0: %d", cm);
    OK(nvmlDeviceSetComputeMode(g0, NVML_COMPUTEMODE_PROHIBITED));
    OK(nvmlDeviceGetComputeMode(g0, &cm));
    CHECK(cm == NVML_COMPUTEMODE_PROHIBITED, "GPU 0 mode after second set: %d", cm);
    RC(nvmlDeviceSetComputeMode(g0, NVML_COMPUTEMODE_COUNT), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceSetComputeMode(g0, (nvmlComputeMode_t) -1), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceSetComputeMode(NULL, NVML_COMPUTEMODE_DEFAULT), NVML_ERROR_INVALID_ARGUMENT);
    OK(nvmlDeviceGetComputeMode(g0, &cm));
    CHECK(cm == NVML_COMPUTEMODE_PROHIBITED, "a refused set changed the mode: %d", cm);
    CHECK(mockNvmlFailNext("nvmlDeviceSetComputeMode", NVML_ERROR_NO_PERMISSION, 1) == 0, "FailNext set");
    RC(nvmlDeviceSetComputeMode(g1, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS), NVML_ERROR_NO_PERMISSION);
    OK(nvmlDeviceGetComputeMode(g1, &cm));
    CHECK(cm == NVML_COMPUTEMODE_DEFAULT, "an injected refusal changed the mode: %d", cm);
    OK(nvmlShutdown());
    load("dgx-a100");
    OK(nvmlInit_v2());
    OK(nvmlDeviceGetComputeMode(dev(0), &cm));
    CHECK(cm == NVML_COMPUTEMODE_DEFAULT, "the mode outlived a profile load: %d", cm);
    OK(nvmlShutdown());

    load("mig-mixed"); /* every GPU has MIG enabled */
    OK(nvmlInit_v2());
    nvmlDevice_t mig0 = dev(0), m;
    unsigned cur, pending;
    OK(nvmlDeviceGetMigMode(mig0, &cur, &pending));
    CHECK(cur == NVML_DEVICE_MIG_ENABLE, "mig-mixed GPU 0 has MIG on");
    RC(nvmlDeviceSetComputeMode(mig0, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS), NVML_ERROR_NOT_SUPPORTED);
    OK(nvmlDeviceSetComputeMode(mig0, NVML_COMPUTEMODE_DEFAULT));
    OK(nvmlDeviceGetComputeMode(mig0, &cm));
    CHECK(cm == NVML_COMPUTEMODE_DEFAULT, "MIG-enabled GPU mode %d", cm);
    OK(nvmlDeviceGetMigDeviceHandleByIndex(mig0, 0, &m));
    RC(nvmlDeviceSetComputeMode(m, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS), NVML_ERROR_NOT_SUPPORTED);
    OK(nvmlShutdown());

    char path[400], text[8192];
    snprintf(path, sizeof path, "%s/mini.json", tmpdir);
    const char *from = "\"computeMode\":\"DEFAULT\"";
    const char *base = mini("false", "34359738368", "40", "");
    const char *at = strstr(base, from);
    CHECK(at != NULL, "MINI has a compute mode");
    if (at != NULL) {
        snprintf(text, sizeof text, "%.*s\"computeMode\":null%s", (int) (at - base), base, at + strlen(from));
        write_file(path, text);
        load(path);
        OK(nvmlInit_v2());
        RC(nvmlDeviceSetComputeMode(dev(0), NVML_COMPUTEMODE_EXCLUSIVE_PROCESS), NVML_ERROR_NOT_SUPPORTED);
        OK(nvmlShutdown());
    }
}

static void test_bad_profiles(void) {
    char path[400];
    snprintf(path, sizeof path, "%s/bad.json", tmpdir);
    struct {
        const char *text;
        const char *needle1;
        const char *needle2;
    } cases[] = {
        { strdup(mini("false", "-5", "40", "")), "gpus[0].memory.totalBytes was '-5'", "integer" },
        { strdup(mini("false", "34359738368", "1e999", "")), "gpus[0].temperature.gpuC", "finite" },
        { strdup(mini("false", "34359738368", "40", ",\"temprature\":1")), "gpus[0].temprature", "not a field" },
        { strdup(mini("maybe", "34359738368", "40", "")), "line 1 column", "not valid JSON" },
        { strdup(mini("false", "34359738368", "{\"value\":40,\"min\":50,\"max\":60}", "")),
          "gpus[0].temperature.gpuC", "min <= value <= max" },
        { "{\"schemaVersion\":2}", "schemaVersion was '2'", "1..1" },
        { "[1,2", "line 1 column", "not closed" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_file(path, cases[k].text);
        int rc = mockNvmlSetProfile(path);
        const char *err = mockNvmlLastError();
        CHECK(rc == -1, "bad profile %zu accepted", k);
        CHECK(strstr(err, path) != NULL && strstr(err, cases[k].needle1) != NULL
                  && strstr(err, cases[k].needle2) != NULL,
              "bad profile %zu: message '%s' lacks '%s' / '%s'", k, err, cases[k].needle1, cases[k].needle2);
        if (k < 5) {
            free((void *) cases[k].text);
        }
    }
    /* shipped profiles with one value broken */
    struct {
        const char *profile, *from, *to, *needle;
    } edits[] = {
        { "mig-mixed", "\"gpuInstanceId\": 3,", "\"gpuInstanceId\": 42,", "gpuInstanceId was '42' but it must be the id" },
        { "mig-mixed", "\"computeInstanceSliceCount\": 1,", "\"computeInstanceSliceCount\": 3,",
          "computeInstanceSliceCount <= gpuInstanceSliceCount" },
        { "large-256", "{i/32}", "{i/0}", "divides by zero" },
        { "dgx-a100", "\"00000000:C1:00.0\", \"00000000:C1:00.0\"", "\"00000000:C9:00.0\", \"00000000:C1:00.0\"",
          "nvlink.links[0] was '00000000:C9:00.0' but it must be the bus id of a GPU or of one of nvswitches" },
        { "dgx-a100", "\"serial\": \"1563721001935\"", "\"serial\": \"1563721001935\", \"serail\": 1",
          "gpus[1].serail" },
    };
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
        char src[400];
        snprintf(src, sizeof src, "%s/%s.json", profile_dir, edits[k].profile);
        FILE *f = fopen(src, "r");
        CHECK(f != NULL, "cannot read %s", src);
        if (f == NULL) {
            continue;
        }
        static char text[1 << 20];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        char *at = strstr(text, edits[k].from);
        CHECK(at != NULL, "%s has no '%s'", src, edits[k].from);
        if (at == NULL) {
            continue;
        }
        static char edited[(1 << 20) + 256];
        snprintf(edited, sizeof edited, "%.*s%s%s", (int) (at - text), text, edits[k].to, at + strlen(edits[k].from));
        write_file(path, edited);
        CHECK(mockNvmlSetProfile(path) == -1 && strstr(mockNvmlLastError(), edits[k].needle) != NULL,
              "edited %s: '%s'", edits[k].profile, mockNvmlLastError());
    }
    CHECK(mockNvmlSetProfile("no-such-profile") == -1 && strstr(mockNvmlLastError(), "no-such-profile.json"),
          "missing profile: %s", mockNvmlLastError());
    CHECK(mockNvmlSetProfile("../etc/passwd") == -1, "a path-like name must be a .json path");

    /* nvmlInit with a broken profile from the environment */
    setenv("MOCK_NVML_PROFILE", path, 1);
    mockNvmlReset();
    RC(nvmlInit_v2(), NVML_ERROR_UNKNOWN);
    CHECK(strstr(mockNvmlLastError(), path) != NULL, "init error names the file: %s", mockNvmlLastError());
    setenv("MOCK_NVML_PROFILE", "rtx3060", 1);
    setenv("MOCK_NVML_WALK", "sometimes", 1);
    mockNvmlReset();
    RC(nvmlInit_v2(), NVML_ERROR_UNKNOWN);
    CHECK(strstr(mockNvmlLastError(), "MOCK_NVML_WALK was 'sometimes'") != NULL, "walk env: %s",
          mockNvmlLastError());
    unsetenv("MOCK_NVML_WALK");
    mockNvmlReset();
    OK(nvmlInit_v2());
    OK(nvmlShutdown());
}

static void test_reload(void) {
    char path[400];
    snprintf(path, sizeof path, "%s/reload.json", tmpdir);
    write_file(path, mini("false", "34359738368", "40", ""));
    mockNvmlSetWalk(0);
    load(path);
    OK(nvmlInit_v2());
    nvmlDevice_t d = dev(0);
    unsigned t = 0;
    OK(nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t));
    CHECK(t == 40, "temperature before reload %u", t);
    write_file(path, mini("false", "34359738368", "55", ""));
    double start = now_ms();
    while (now_ms() - start < 1000 * slack && t != 55) {
        sleep_ms(10);
        OK(nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t));
    }
    CHECK(t == 55, "reloaded temperature %u after %.0f ms", t, now_ms() - start);
    CHECK(now_ms() - start < 1000 * slack, "reload took %.0f ms", now_ms() - start);
    write_file(path, "{ broken");
    sleep_ms(150);
    OK(nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t));
    CHECK(t == 55, "a broken file replaced the node");
    CHECK(strstr(mockNvmlLastError(), path) != NULL, "broken reload reported: %s", mockNvmlLastError());
    /* the GPU falls off the bus */
    nvmlEventSet_t set;
    OK(nvmlEventSetCreate(&set));
    OK(nvmlDeviceRegisterEvents(d, nvmlEventTypeXidCriticalError, set));
    write_file(path, mini("true", "34359738368", "55", ""));
    char buf[96];
    nvmlReturn_t r = NVML_SUCCESS;
    start = now_ms();
    while (now_ms() - start < 3000 && r != NVML_ERROR_GPU_IS_LOST) {
        sleep_ms(10);
        r = nvmlDeviceGetUUID(d, buf, sizeof buf);
    }
    CHECK(r == NVML_ERROR_GPU_IS_LOST, "lost GPU answered %d", r);
    nvmlEventData_t data;
    RC(nvmlEventSetWait_v2(set, &data, 100), NVML_ERROR_GPU_IS_LOST);
    nvmlDevice_t again;
    RC(nvmlDeviceGetHandleByIndex_v2(0, &again), NVML_ERROR_GPU_IS_LOST);
    OK(nvmlEventSetFree(set));
    OK(nvmlShutdown());
}

static void test_walk(void) {
    mockNvmlSetWalk(1);
    load("dgx-a100");
    OK(nvmlInit_v2());
    nvmlDevice_t d = dev(0);
    unsigned long long e0 = 0, e = 0, prev = 0;
    OK(nvmlDeviceGetTotalEnergyConsumption(d, &e0));
    prev = e0;
    double start = now_ms();
    for (int i = 0; i < 200; i++) {
        unsigned t, p;
        OK(nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t));
        CHECK(t >= 28 && t <= 75, "walked temperature %u outside 28..75", t);
        OK(nvmlDeviceGetPowerUsage(d, &p));
        CHECK(p >= 50000 && p <= 400000, "walked power %u", p);
        OK(nvmlDeviceGetTotalEnergyConsumption(d, &e));
        CHECK(e >= prev, "energy went back from %llu to %llu", prev, e);
        prev = e;
    }
    while (e == e0 && now_ms() - start < 3000) {
        sleep_ms(5);
        OK(nvmlDeviceGetTotalEnergyConsumption(d, &e));
    }
    CHECK(e > e0, "energy does not grow while walking");
    mockNvmlSetWalk(0);
    unsigned t;
    OK(nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t));
    CHECK(t == 32, "frozen temperature %u", t);
    unsigned long long f1, f2;
    OK(nvmlDeviceGetTotalEnergyConsumption(d, &f1));
    sleep_ms(30);
    OK(nvmlDeviceGetTotalEnergyConsumption(d, &f2));
    CHECK(f1 == f2 && f1 >= e, "frozen energy moved %llu -> %llu", f1, f2);
    mockNvmlSetWalk(1);
    OK(nvmlDeviceGetTotalEnergyConsumption(d, &f2));
    CHECK(f2 >= f1, "energy went back after resuming");
    CHECK(mockNvmlSetWalk(2) == -1, "SetWalk(2) accepted");
    mockNvmlSetWalk(0);
    OK(nvmlShutdown());
}

/* ---- events --------------------------------------------------------------------------------------------- */

typedef struct {
    nvmlEventSet_t set;
    unsigned timeout;
    nvmlReturn_t rc;
    nvmlEventData_t data;
    double returned_at;
} waiter;

static void *wait_thread(void *arg) {
    waiter *w = arg;
    w->rc = nvmlEventSetWait_v2(w->set, &w->data, w->timeout);
    w->returned_at = now_ms();
    return NULL;
}

/* appends line while a thread waits and returns how long delivery took */
static double deliver(nvmlEventSet_t set, const char *line, waiter *w) {
    memset(w, 0, sizeof *w);
    w->set = set;
    w->timeout = 5000;
    pthread_t th;
    pthread_create(&th, NULL, wait_thread, w);
    sleep_ms(30); /* let it block; delivery must not depend on this */
    double t0 = now_ms();
    append(events_path, line);
    pthread_join(th, NULL);
    return w->returned_at - t0;
}

static void test_events(void) {
    mockNvmlSetWalk(0);
    load("dgx-a100");
    OK(nvmlInit_v2());
    nvmlDevice_t d0 = dev(0), d1 = dev(1), d2 = dev(2), d3 = dev(3);
    char u0[96], u1[96], u2[96], u3[96], line[256];
    snprintf(u0, sizeof u0, "%s", uuid_of(d0));
    snprintf(u1, sizeof u1, "%s", uuid_of(d1));
    snprintf(u2, sizeof u2, "%s", uuid_of(d2));
    snprintf(u3, sizeof u3, "%s", uuid_of(d3));
    append(events_path, "# lines from before the sets exist are not events\n");
    snprintf(line, sizeof line, "xid %s 31\n", u0);
    append(events_path, line);
    nvmlEventSet_t a, b;
    OK(nvmlEventSetCreate(&a));
    OK(nvmlEventSetCreate(&b));
    OK(nvmlDeviceRegisterEvents(d0, nvmlEventTypeXidCriticalError, a));
    OK(nvmlDeviceRegisterEvents(d0, nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError, b));
    OK(nvmlDeviceRegisterEvents(d1, nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError, a));
    RC(nvmlDeviceRegisterEvents(d0, nvmlEventTypePowerSourceChange, a), NVML_ERROR_NOT_SUPPORTED);
    RC(nvmlDeviceRegisterEvents(d0, 1ull << 40, a), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlDeviceRegisterEvents(d0, nvmlEventTypeXidCriticalError, (nvmlEventSet_t) (void *) line),
       NVML_ERROR_INVALID_ARGUMENT);
    nvmlEventData_t data;
    RC(nvmlEventSetWait_v2(a, &data, 0), NVML_ERROR_TIMEOUT);

    waiter w;
    snprintf(line, sizeof line, "xid %s 79\n", u0);
    double latency = deliver(a, line, &w);
    CHECK(w.rc == NVML_SUCCESS, "xid not delivered: %d", w.rc);
    CHECK(latency < 100.0 * slack, "xid took %.1f ms", latency);
    CHECK(w.data.device == d0 && w.data.eventType == nvmlEventTypeXidCriticalError && w.data.eventData == 79
              && w.data.gpuInstanceId == 0xFFFFFFFFu && w.data.computeInstanceId == 0xFFFFFFFFu,
          "xid event data");
    OK(nvmlEventSetWait_v2(b, &data, 1000)); /* the other set gets it too, once */
    CHECK(data.eventData == 79, "set b xid %llu", data.eventData);
    RC(nvmlEventSetWait_v2(b, &data, 0), NVML_ERROR_TIMEOUT);
    RC(nvmlEventSetWait_v2(a, &data, 0), NVML_ERROR_TIMEOUT);

    snprintf(line, sizeof line, "xid %s 43\n", u2); /* GPU2 is registered nowhere */
    append(events_path, line);
    RC(nvmlEventSetWait_v2(a, &data, 60), NVML_ERROR_TIMEOUT);

    unsigned long long before = 0, after = 0;
    OK(nvmlDeviceGetTotalEccErrors(d1, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &before));
    snprintf(line, sizeof line, "ecc %s dbe\n", u1);
    latency = deliver(a, line, &w);
    CHECK(w.rc == NVML_SUCCESS && w.data.device == d1 && w.data.eventType == nvmlEventTypeDoubleBitEccError,
          "dbe event: rc %d type 0x%llx", w.rc, w.data.eventType);
    CHECK(latency < 100.0 * slack, "ecc took %.1f ms", latency);
    OK(nvmlDeviceGetTotalEccErrors(d1, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &after));
    CHECK(after == before + 1, "ecc line counted %llu -> %llu", before, after);

    snprintf(line, sizeof line, "xid %s 31\n", u3); /* before GPU3 is registered */
    append(events_path, line);
    OK(nvmlDeviceRegisterEvents(d3, nvmlEventTypeXidCriticalError, a));
    RC(nvmlEventSetWait_v2(a, &data, 50), NVML_ERROR_TIMEOUT);
    snprintf(line, sizeof line, "xid %s 32\n", u3);
    append(events_path, line);
    OK(nvmlEventSetWait_v2(a, &data, 1000));
    CHECK(data.device == d3 && data.eventData == 32, "GPU3 xid %llu", data.eventData);

    snprintf(line, sizeof line, "xid %s 4", u0); /* half a line */
    append(events_path, line);
    RC(nvmlEventSetWait_v2(a, &data, 60), NVML_ERROR_TIMEOUT);
    append(events_path, "8\n");
    OK(nvmlEventSetWait_v2(a, &data, 1000));
    CHECK(data.eventData == 48, "completed line gave xid %llu", data.eventData);
    OK(nvmlEventSetWait_v2(b, &data, 1000));
    CHECK(data.eventData == 48, "set b completed line gave xid %llu", data.eventData);

    append(events_path, "garbage here\n");
    RC(nvmlEventSetWait_v2(a, &data, 60), NVML_ERROR_TIMEOUT);
    CHECK(strstr(mockNvmlLastError(), "line skipped") != NULL && strstr(mockNvmlLastError(), events_path) != NULL,
          "bad line reported: %s", mockNvmlLastError());
    append(events_path, "xid GPU-00000000-0000-4000-8000-000000000000 13\n");
    RC(nvmlEventSetWait_v2(a, &data, 60), NVML_ERROR_TIMEOUT);
    CHECK(strstr(mockNvmlLastError(), "no GPU or MIG device GPU-00000000-0000-4000-8000-000000000000") != NULL,
          "unknown uuid reported: %s", mockNvmlLastError());
    snprintf(line, sizeof line, "xid %s 0x3f\n", u0);
    append(events_path, line);
    OK(nvmlEventSetWait_v2(a, &data, 1000));
    CHECK(data.eventData == 63, "hex xid after bad lines %llu", data.eventData);
    OK(nvmlEventSetWait_v2(b, &data, 1000));

    /* injection wakes a waiter at once */
    memset(&w, 0, sizeof w);
    w.set = a;
    w.timeout = 5000;
    pthread_t th;
    pthread_create(&th, NULL, wait_thread, &w);
    sleep_ms(30);
    double t0 = now_ms();
    CHECK(mockNvmlInjectXid(u0, 13) == 0, "inject: %s", mockNvmlLastError());
    pthread_join(th, NULL);
    CHECK(w.rc == NVML_SUCCESS && w.data.eventData == 13, "injected xid %d %llu", w.rc, w.data.eventData);
    CHECK(w.returned_at - t0 < 50.0 * slack, "injected xid took %.1f ms", w.returned_at - t0);
    OK(nvmlEventSetWait_v2(b, &data, 0));
    CHECK(mockNvmlInjectXid("GPU-00000000-0000-4000-8000-000000000000", 13) == -1, "unknown uuid injected");
    CHECK(mockNvmlInjectEcc(u0, 0) == 0, "inject sbe");
    RC(nvmlEventSetWait_v2(a, &data, 0), NVML_ERROR_TIMEOUT); /* a did not register SBE on GPU0 */

    /* a line another writer appends wakes a waiter through the file's watcher (inotify), not the waiter's reading of
     * the file every 20 ms: with that reading put off for 10 minutes, the 5 s wait gets the line long before its
     * end (without the watcher it would read the file only at the end of its wait) */
    setenv("MOCK_NVML_EVENTS_POLL_MS", "600000", 1);
    snprintf(line, sizeof line, "xid %s 94\n", u0);
    latency = deliver(a, line, &w);
    unsetenv("MOCK_NVML_EVENTS_POLL_MS");
    CHECK(w.rc == NVML_SUCCESS && w.data.eventData == 94, "watched xid: rc %d xid %llu", w.rc, w.data.eventData);
    CHECK(latency < 2500.0, "a written line woke no waiter: it was read at the end of the 5 s wait (%.1f ms)", latency);
    OK(nvmlEventSetWait_v2(b, &data, 0));
    CHECK(data.eventData == 94, "set b watched xid %llu", data.eventData);

    /* timeouts are honoured */
    t0 = now_ms();
    RC(nvmlEventSetWait_v2(a, &data, 120), NVML_ERROR_TIMEOUT);
    double waited = now_ms() - t0;
    CHECK(waited >= 119.0 && waited < 1000.0 * slack, "a 120 ms wait took %.1f ms", waited);
    RC(nvmlEventSetWait_v2(a, NULL, 0), NVML_ERROR_INVALID_ARGUMENT);

    /* freeing a set wakes its waiter */
    memset(&w, 0, sizeof w);
    w.set = b;
    w.timeout = 10000;
    pthread_create(&th, NULL, wait_thread, &w);
    sleep_ms(30);
    t0 = now_ms();
    OK(nvmlEventSetFree(b));
    pthread_join(th, NULL);
    CHECK(w.rc == NVML_ERROR_INVALID_ARGUMENT && w.returned_at - t0 < 500.0 * slack, "waiter on a freed set: %d after %.0f",
          w.rc, w.returned_at - t0);
    RC(nvmlEventSetFree(b), NVML_ERROR_INVALID_ARGUMENT);
    RC(nvmlEventSetWait_v2(b, &data, 0), NVML_ERROR_INVALID_ARGUMENT);

    /* the unversioned wait fills the old, shorter struct */
    CHECK(mockNvmlInjectXid(u0, 94) == 0, "inject");
    struct {
        nvmlDevice_t device;
        unsigned long long type, data;
        unsigned long long guard;
    } legacy = { NULL, 0, 0, 0xABCDEFull };
    OK(nvmlEventSetWait(a, (nvmlEventData_t *) (void *) &legacy, 1000));
    CHECK(legacy.device == d0 && legacy.data == 94 && legacy.guard == 0xABCDEFull, "legacy event data");

    /* the last shutdown wakes waiters */
    memset(&w, 0, sizeof w);
    w.set = a;
    w.timeout = 10000;
    pthread_create(&th, NULL, wait_thread, &w);
    sleep_ms(30);
    OK(nvmlShutdown());
    pthread_join(th, NULL);
    CHECK(w.rc == NVML_ERROR_UNINITIALIZED, "waiter after shutdown: %d", w.rc);

    /* MIG: an event on a MIG UUID arrives on the parent with its instance ids */
    load("mig-mixed");
    OK(nvmlInit_v2());
    nvmlDevice_t g3 = dev(3), m2;
    OK(nvmlDeviceGetMigDeviceHandleByIndex(g3, 2, &m2));
    char mu[96];
    OK(nvmlDeviceGetUUID(m2, mu, sizeof mu));
    OK(nvmlEventSetCreate(&a));
    RC(nvmlDeviceRegisterEvents(m2, nvmlEventTypeXidCriticalError, a), NVML_ERROR_NOT_SUPPORTED);
    OK(nvmlDeviceRegisterEvents(g3, nvmlEventTypeXidCriticalError, a));
    snprintf(line, sizeof line, "xid %s 94\n", mu);
    latency = deliver(a, line, &w);
    CHECK(w.rc == NVML_SUCCESS && w.data.device == g3 && w.data.gpuInstanceId == 3 && w.data.computeInstanceId == 1,
          "MIG xid: rc %d GI %u CI %u", w.rc, w.data.gpuInstanceId, w.data.computeInstanceId);
    CHECK(latency < 100.0 * slack, "MIG xid took %.1f ms", latency);
    OK(nvmlEventSetFree(a));
    CHECK(mockNvmlFailNext("nvmlEventSetWait_v2", NVML_ERROR_GPU_IS_LOST, 1) == 0, "fail wait");
    OK(nvmlEventSetCreate(&a));
    RC(nvmlEventSetWait_v2(a, &data, 1000), NVML_ERROR_GPU_IS_LOST);
    OK(nvmlEventSetFree(a));
    OK(nvmlShutdown());
}

/* ---- threads -------------------------------------------------------------------------------------------- */

static void *reader_thread(void *arg) {
    int *bad = arg;
    for (int i = 0; i < 1500; i++) {
        nvmlDevice_t d;
        char buf[96];
        unsigned t;
        unsigned long long e;
        nvmlFieldValue_t fv = { .fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, .scopeId = UINT_MAX };
        if (nvmlDeviceGetHandleByIndex_v2((unsigned) i % 8, &d) != NVML_SUCCESS
            || nvmlDeviceGetUUID(d, buf, sizeof buf) != NVML_SUCCESS
            || nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t) != NVML_SUCCESS
            || nvmlDeviceGetTotalEnergyConsumption(d, &e) != NVML_SUCCESS
            || nvmlDeviceGetFieldValues(d, 1, &fv) != NVML_SUCCESS || fv.nvmlReturn != NVML_SUCCESS) {
            (*bad)++;
        }
    }
    return NULL;
}

typedef struct {
    nvmlEventSet_t set;
    int received;
} collector;

static void *collect_thread(void *arg) {
    collector *c = arg;
    nvmlEventData_t data;
    while (c->received < 10) {
        nvmlReturn_t r = nvmlEventSetWait_v2(c->set, &data, 3000);
        if (r != NVML_SUCCESS) {
            break;
        }
        c->received++;
    }
    return NULL;
}

static void test_threads(void) {
    mockNvmlSetWalk(1);
    load("dgx-a100");
    OK(nvmlInit_v2());
    collector c = { NULL, 0 };
    OK(nvmlEventSetCreate(&c.set));
    OK(nvmlDeviceRegisterEvents(dev(5), nvmlEventTypeXidCriticalError, c.set));
    pthread_t readers[4], col;
    int bad[4] = { 0, 0, 0, 0 };
    pthread_create(&col, NULL, collect_thread, &c);
    for (int i = 0; i < 4; i++) {
        pthread_create(&readers[i], NULL, reader_thread, &bad[i]);
    }
    char u5[96];
    snprintf(u5, sizeof u5, "%s", uuid_of(dev(5)));
    for (int i = 0; i < 10; i++) {
        CHECK(mockNvmlInjectXid(u5, (unsigned long long) (100 + i)) == 0, "inject %d", i);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(readers[i], NULL);
        CHECK(bad[i] == 0, "reader %d saw %d failures", i, bad[i]);
    }
    pthread_join(col, NULL);
    CHECK(c.received == 10, "collector received %d of 10 events", c.received);
    OK(nvmlEventSetFree(c.set));
    mockNvmlSetWalk(0);
    OK(nvmlShutdown());
}

static void test_legacy_aliases(void) {
    load("dgx-a100");
    OK(nvmlInit());
    unsigned count;
    OK(nvmlDeviceGetCount(&count));
    nvmlDevice_t d;
    OK(nvmlDeviceGetHandleByIndex(0, &d));
    struct {
        char busId[16];
        unsigned domain, bus, device, pciDeviceId, pciSubSystemId, r0, r1, r2, r3;
        unsigned guard;
    } old = { .guard = 0x5A5A5A5Au };
    OK(nvmlDeviceGetPciInfo(d, (nvmlPciInfo_t *) (void *) &old));
    CHECK(strcmp(old.busId, "0000:07:00.0") == 0 && old.bus == 7 && old.pciDeviceId == 0x20B210DEu
              && old.guard == 0x5A5A5A5Au,
          "legacy pci %s", old.busId);
    nvmlDevice_t by_bus;
    OK(nvmlDeviceGetHandleByPciBusId("0000:07:00.0", &by_bus));
    CHECK(by_bus == d, "legacy bus lookup");
    int cuda;
    OK(nvmlSystemGetCudaDriverVersion(&cuda));
    OK(nvmlShutdown());
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: mock_selftest <nvml-ffm/nvml/mock folder>\n");
        return 2;
    }
    snprintf(profile_dir_buf, sizeof profile_dir_buf, "%s/profiles", argv[1]);
    profile_dir = profile_dir_buf;
    setenv("MOCK_NVML_PROFILE_DIR", profile_dir, 1); /* the checkout under test, whatever was compiled in */
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mock-nvml-selftest-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(events_path, sizeof events_path, "%s/events", tmpdir);
    const char *s = getenv("MOCK_NVML_SELFTEST_SLACK");
    if (s != NULL && atof(s) >= 1) {
        slack = atof(s);
    }
    setenv("MOCK_NVML_EVENTS", events_path, 1);
    setenv("MOCK_NVML_QUIET", "1", 1); /* the expected warnings are checked through mockNvmlLastError */
    unsetenv("MOCK_NVML_PROFILE");
    unsetenv("MOCK_NVML_WALK");

    struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        { "uninitialized", test_uninitialized },
        { "init counting", test_init_counting },
        { "rtx3060 values", test_rtx3060_values },
        { "dgx-a100 values", test_dgx_a100_values },
        { "dgx-h100 GPM", test_dgx_h100_gpm },
        { "MIG", test_mig },
        { "large-256", test_large },
        { "invalid arguments", test_invalid_arguments },
        { "failure injection", test_failure_injection },
        { "compute mode", test_compute_mode },
        { "bad profiles", test_bad_profiles },
        { "reload", test_reload },
        { "walk", test_walk },
        { "events", test_events },
        { "threads", test_threads },
        { "legacy aliases", test_legacy_aliases },
    };
    double start = now_ms();
    mockNvmlSetWalk(1);
    test_profile("rtx3060", 1, 1);
    test_profile("dgx-a100", 8, 1);
    test_profile("dgx-h100", 8, 1);
    test_profile("mig-mixed", 4, 1);
    test_profile("h100-mig", 1, 1);
    test_profile("large-256", 256, 0);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        int before = failures;
        tests[i].fn();
        if (failures != before) {
            printf("mock selftest: '%s' failed\n", tests[i].name);
        }
    }
    mockNvmlReset();
    unlink(events_path);
    char path[400];
    const char *files[] = { "mini.json", "bad.json", "reload.json" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, files[i]);
        unlink(path);
    }
    rmdir(tmpdir);
    printf("mock selftest: %d checks, %d failed, %.0f ms\n", checks, failures, now_ms() - start);
    return failures == 0 ? 0 : 1;
}
