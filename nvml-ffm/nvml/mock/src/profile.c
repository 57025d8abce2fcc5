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
 * Profile loading: reads a JSON profile (schema in ../README.md), expands `repeat` and `model`, checks every field
 * and builds the simulated node. Errors name the file, the JSON path and the value.
 */
#include "json.h"
#include "mock.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_PROFILE_BYTES (64L * 1024 * 1024)

typedef struct {
    const char *file;
    char *err;
    size_t err_size;
    int failed;
    long long seed;
} ctx;

static int bad(ctx *c, const char *path, const json *value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int bad(ctx *c, const char *path, const json *value, const char *fmt, ...) {
    if (c->failed) {
        return -1;
    }
    c->failed = 1;
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (value == NULL) {
        snprintf(c->err, c->err_size, "%s: %s is missing (it %s)", c->file, path, reason);
    } else {
        char rendered[128];
        json_render(value, rendered, sizeof rendered);
        snprintf(c->err, c->err_size, "%s: %s was '%s' but it %s (line %d column %d)", c->file, path, rendered,
                 reason, value->line, value->column);
    }
    return -1;
}

static void join(char *out, size_t size, const char *base, const char *key) {
    /* base.key (or key when base is empty), truncated to size */
    size_t n = 0;
    for (const char *p = base; *p != '\0' && n + 1 < size; p++) {
        out[n++] = *p;
    }
    if (base[0] != '\0' && n + 1 < size) {
        out[n++] = '.';
    }
    for (const char *p = key; *p != '\0' && n + 1 < size; p++) {
        out[n++] = *p;
    }
    out[n] = '\0';
}

/* Fails on any key of obj that is not in allowed (NULL-terminated); keys starting with '_' are notes. */
static int check_keys(ctx *c, const json *obj, const char *base, const char *const *allowed) {
    for (size_t i = 0; i < obj->as.object.count; i++) {
        const char *key = obj->as.object.keys[i];
        if (key[0] == '_') {
            continue;
        }
        int known = 0;
        for (const char *const *a = allowed; *a != NULL; a++) {
            if (strcmp(*a, key) == 0) {
                known = 1;
                break;
            }
        }
        if (!known) {
            char path[512];
            join(path, sizeof path, base, key);
            return bad(c, path, obj->as.object.values[i], "is not a field of the profile schema (see nvml-ffm/nvml/mock/README.md)");
        }
    }
    return 0;
}

static const json *member(ctx *c, const json *obj, const char *base, const char *key, json_type type,
                          int nullable, char *path, size_t path_size) {
    join(path, path_size, base, key);
    const json *v = json_member(obj, key);
    if (v == NULL) {
        bad(c, path, NULL, "must be %s%s", json_type_name(type), nullable ? " or null" : "");
        return NULL;
    }
    if (v->type == JSON_NULL && nullable) {
        return v;
    }
    if (v->type != type) {
        bad(c, path, v, "must be %s%s", json_type_name(type), nullable ? " or null" : "");
        return NULL;
    }
    return v;
}

static const json *object_at(ctx *c, const json *obj, const char *base, const char *key, int nullable,
                             char *path, size_t path_size) {
    return member(c, obj, base, key, JSON_OBJECT, nullable, path, path_size);
}

static int get_string(ctx *c, const json *obj, const char *base, const char *key, char *out, size_t out_size,
                      int nullable, int *present) {
    char path[512];
    const json *v = member(c, obj, base, key, JSON_STRING, nullable, path, sizeof path);
    if (v == NULL) {
        return -1;
    }
    if (v->type == JSON_NULL) {
        *present = 0;
        out[0] = '\0';
        return 0;
    }
    if (v->as.string.length == 0) {
        return bad(c, path, v, "must not be empty");
    }
    if (v->as.string.length >= out_size) {
        return bad(c, path, v, "must be shorter than %zu bytes (NVML's buffer size)", out_size);
    }
    memcpy(out, v->as.string.chars, v->as.string.length + 1);
    if (present != NULL) {
        *present = 1;
    }
    return 0;
}

static int get_int(ctx *c, const json *obj, const char *base, const char *key, long long min, long long max,
                   long long *out) {
    char path[512];
    const json *v = member(c, obj, base, key, JSON_NUMBER, 0, path, sizeof path);
    if (v == NULL) {
        return -1;
    }
    if (!v->as.number.is_integer || v->as.number.integer < min || v->as.number.integer > max) {
        return bad(c, path, v, "must be an integer in %lld..%lld", min, max);
    }
    *out = v->as.number.integer;
    return 0;
}

static int get_uint(ctx *c, const json *obj, const char *base, const char *key, unsigned max, unsigned *out) {
    long long v;
    if (get_int(c, obj, base, key, 0, max, &v) != 0) {
        return -1;
    }
    *out = (unsigned) v;
    return 0;
}

static int get_bool(ctx *c, const json *obj, const char *base, const char *key, int *out) {
    char path[512];
    const json *v = member(c, obj, base, key, JSON_BOOL, 0, path, sizeof path);
    if (v == NULL) {
        return -1;
    }
    *out = v->as.boolean;
    return 0;
}

typedef struct {
    const char *name;
    long long value;
} named;

static int lookup_name(const named *names, const char *s, long long *out) {
    for (const named *n = names; n->name != NULL; n++) {
        if (strcmp(n->name, s) == 0) {
            *out = n->value;
            return 0;
        }
    }
    return -1;
}

static void list_names(const named *names, char *out, size_t size) {
    size_t n = 0;
    out[0] = '\0';
    for (const named *e = names; e->name != NULL && n + 1 < size; e++) {
        n += (size_t) snprintf(out + n, size - n, "%s%s", e == names ? "" : ", ", e->name);
    }
}

static int enum_value(ctx *c, const json *v, const char *path, const named *names, long long *out) {
    if (v->type != JSON_STRING || lookup_name(names, v->as.string.chars, out) != 0) {
        char list[512];
        list_names(names, list, sizeof list);
        return bad(c, path, v, "must be one of %s", list);
    }
    return 0;
}

static int get_enum(ctx *c, const json *obj, const char *base, const char *key, const named *names, int nullable,
                    long long *out, int *present) {
    char path[512];
    join(path, sizeof path, base, key);
    const json *v = json_member(obj, key);
    if (v == NULL) {
        char list[512];
        list_names(names, list, sizeof list);
        return bad(c, path, NULL, "must be one of %s%s", list, nullable ? " or null" : "");
    }
    if (v->type == JSON_NULL && nullable) {
        *present = 0;
        return 0;
    }
    if (present != NULL) {
        *present = 1;
    }
    return enum_value(c, v, path, names, out);
}

static int get_flags(ctx *c, const json *obj, const char *base, const char *key, const named *names,
                     unsigned long long *out) {
    char path[512];
    const json *arr = member(c, obj, base, key, JSON_ARRAY, 0, path, sizeof path);
    if (arr == NULL) {
        return -1;
    }
    *out = 0;
    for (size_t i = 0; i < arr->as.array.count; i++) {
        char item_path[560];
        snprintf(item_path, sizeof item_path, "%s[%zu]", path, i);
        long long bit = 0;
        if (enum_value(c, arr->as.array.items[i], item_path, names, &bit) != 0) {
            return -1;
        }
        *out |= (unsigned long long) bit;
    }
    return 0;
}

/* A number (fixed) or {"value","min","max"}; nonneg: min must be >= 0. */
static int walkable_value(ctx *c, const json *v, const char *path, int nonneg, walkable *out) {
    memset(out, 0, sizeof *out);
    out->key = mock_hash(path, (uint64_t) c->seed);
    if (v->type == JSON_NUMBER) {
        out->value = out->min = out->max = v->as.number.value;
        if (!isfinite(out->value)) {
            return bad(c, path, v, "must be a finite number");
        }
        if (nonneg && out->value < 0) {
            return bad(c, path, v, "must not be negative");
        }
        return 0;
    }
    if (v->type != JSON_OBJECT) {
        return bad(c, path, v, "must be a number or {\"value\", \"min\", \"max\"}");
    }
    static const char *const keys[] = { "value", "min", "max", NULL };
    if (check_keys(c, v, path, keys) != 0) {
        return -1;
    }
    const char *names[3] = { "value", "min", "max" };
    double *dst[3] = { &out->value, &out->min, &out->max };
    for (int i = 0; i < 3; i++) {
        char p[512];
        const json *n = member(c, v, path, names[i], JSON_NUMBER, 0, p, sizeof p);
        if (n == NULL) {
            return -1;
        }
        *dst[i] = n->as.number.value;
        if (!isfinite(*dst[i])) {
            return bad(c, p, n, "must be a finite number");
        }
    }
    if (nonneg && out->min < 0) {
        return bad(c, path, v, "must have min >= 0");
    }
    if (!(out->min <= out->value && out->value <= out->max)) {
        return bad(c, path, v, "must have min <= value <= max");
    }
    out->walks = out->min < out->max;
    return 0;
}

static int get_walkable(ctx *c, const json *obj, const char *base, const char *key, int nullable, int nonneg,
                        walkable *out, int *present) {
    char path[512];
    join(path, sizeof path, base, key);
    const json *v = json_member(obj, key);
    if (v == NULL) {
        return bad(c, path, NULL, "must be a number or {\"value\", \"min\", \"max\"}%s", nullable ? " or null" : "");
    }
    if (v->type == JSON_NULL && nullable) {
        *present = 0;
        memset(out, 0, sizeof *out);
        return 0;
    }
    if (present != NULL) {
        *present = 1;
    }
    return walkable_value(c, v, path, nonneg, out);
}

static int counter_value(ctx *c, const json *v, const char *path, counter *out) {
    memset(out, 0, sizeof *out);
    out->rate.key = mock_hash(path, (uint64_t) c->seed);
    if (v->type == JSON_NUMBER) {
        if (!v->as.number.is_integer || v->as.number.integer < 0) {
            return bad(c, path, v, "must be a non-negative integer or {\"value\", \"perSecond\"}");
        }
        out->base = (unsigned long long) v->as.number.integer;
        out->last = out->base;
        return 0;
    }
    if (v->type != JSON_OBJECT) {
        return bad(c, path, v, "must be a non-negative integer or {\"value\", \"perSecond\"}");
    }
    static const char *const keys[] = { "value", "perSecond", NULL };
    if (check_keys(c, v, path, keys) != 0) {
        return -1;
    }
    long long base;
    if (get_int(c, v, path, "value", 0, LLONG_MAX, &base) != 0) {
        return -1;
    }
    out->base = (unsigned long long) base;
    out->last = out->base;
    int present;
    uint64_t key = out->rate.key;
    if (get_walkable(c, v, path, "perSecond", 0, 1, &out->rate, &present) != 0) {
        return -1;
    }
    out->rate.key = key;
    return 0;
}

static int get_counter(ctx *c, const json *obj, const char *base, const char *key, counter *out) {
    char path[512];
    join(path, sizeof path, base, key);
    const json *v = json_member(obj, key);
    if (v == NULL) {
        return bad(c, path, NULL, "must be a non-negative integer or {\"value\", \"perSecond\"}");
    }
    return counter_value(c, v, path, out);
}

static int hex_digit(int ch) {
    if (ch >= '0' && ch <= '9') {
        return ch - '0';
    }
    if (ch >= 'a' && ch <= 'f') {
        return ch - 'a' + 10;
    }
    if (ch >= 'A' && ch <= 'F') {
        return ch - 'A' + 10;
    }
    return -1;
}

int profile_valid_uuid(const char *s, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0 || s[n] != '-') {
        return 0;
    }
    s += n + 1;
    static const int groups[] = { 8, 4, 4, 4, 12 };
    for (int g = 0; g < 5; g++) {
        for (int i = 0; i < groups[g]; i++) {
            if (hex_digit((unsigned char) *s) < 0) {
                return 0;
            }
            s++;
        }
        if (g < 4) {
            if (*s != '-') {
                return 0;
            }
            s++;
        }
    }
    return *s == '\0';
}

static int parse_hex32(const char *s, unsigned *out) {
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || strlen(s) != 10) {
        return -1;
    }
    unsigned v = 0;
    for (int i = 2; i < 10; i++) {
        int d = hex_digit((unsigned char) s[i]);
        if (d < 0) {
            return -1;
        }
        v = (v << 4) | (unsigned) d;
    }
    *out = v;
    return 0;
}

/* DDDDDDDD:BB:DD.0, upper-case hex as NVML prints it */
static int parse_bus_id(const char *s, mock_pci *pci) {
    if (strlen(s) != 16 || s[8] != ':' || s[11] != ':' || s[14] != '.' || s[15] != '0') {
        return -1;
    }
    unsigned parts[3] = { 0, 0, 0 };
    const int starts[3] = { 0, 9, 12 };
    const int lens[3] = { 8, 2, 2 };
    for (int p = 0; p < 3; p++) {
        for (int i = 0; i < lens[p]; i++) {
            int ch = (unsigned char) s[starts[p] + i];
            int d = hex_digit(ch);
            if (d < 0 || (ch >= 'a' && ch <= 'f')) {
                return -1;
            }
            parts[p] = (parts[p] << 4) | (unsigned) d;
        }
    }
    if (parts[2] > 31) {
        return -1;
    }
    snprintf(pci->bus_id, sizeof pci->bus_id, "%s", s);
    pci->domain = parts[0];
    pci->bus = parts[1];
    pci->device = parts[2];
    return 0;
}

static int get_bus_id(ctx *c, const json *obj, const char *base, const char *key, mock_pci *pci) {
    char path[512];
    const json *v = member(c, obj, base, key, JSON_STRING, 0, path, sizeof path);
    if (v == NULL) {
        return -1;
    }
    if (parse_bus_id(v->as.string.chars, pci) != 0) {
        return bad(c, path, v, "must be a PCI bus id in NVML's form DDDDDDDD:BB:DD.0 (upper-case hex, device <= 1F)");
    }
    return 0;
}

static int get_hex32(ctx *c, const json *obj, const char *base, const char *key, unsigned *out) {
    char path[512];
    const json *v = member(c, obj, base, key, JSON_STRING, 0, path, sizeof path);
    if (v == NULL) {
        return -1;
    }
    if (parse_hex32(v->as.string.chars, out) != 0) {
        return bad(c, path, v, "must be 0x followed by 8 hex digits");
    }
    return 0;
}

/* ---- enumerations ---------------------------------------------------------------------------------------- */

static const named BRANDS[] = {
    { "UNKNOWN", NVML_BRAND_UNKNOWN }, { "QUADRO", NVML_BRAND_QUADRO }, { "TESLA", NVML_BRAND_TESLA },
    { "NVS", NVML_BRAND_NVS }, { "GRID", NVML_BRAND_GRID }, { "GEFORCE", NVML_BRAND_GEFORCE },
    { "TITAN", NVML_BRAND_TITAN }, { "NVIDIA_VAPPS", NVML_BRAND_NVIDIA_VAPPS }, { "NVIDIA_VPC", NVML_BRAND_NVIDIA_VPC },
    { "NVIDIA_VCS", NVML_BRAND_NVIDIA_VCS }, { "NVIDIA_VWS", NVML_BRAND_NVIDIA_VWS },
    { "NVIDIA_CLOUD_GAMING", NVML_BRAND_NVIDIA_CLOUD_GAMING }, { "QUADRO_RTX", NVML_BRAND_QUADRO_RTX },
    { "NVIDIA_RTX", NVML_BRAND_NVIDIA_RTX }, { "NVIDIA", NVML_BRAND_NVIDIA }, { "GEFORCE_RTX", NVML_BRAND_GEFORCE_RTX },
    { "TITAN_RTX", NVML_BRAND_TITAN_RTX }, { NULL, 0 }
};

static const named ARCHITECTURES[] = {
    { "KEPLER", NVML_DEVICE_ARCH_KEPLER }, { "MAXWELL", NVML_DEVICE_ARCH_MAXWELL },
    { "PASCAL", NVML_DEVICE_ARCH_PASCAL }, { "VOLTA", NVML_DEVICE_ARCH_VOLTA }, { "TURING", NVML_DEVICE_ARCH_TURING },
    { "AMPERE", NVML_DEVICE_ARCH_AMPERE }, { "ADA", NVML_DEVICE_ARCH_ADA }, { "HOPPER", NVML_DEVICE_ARCH_HOPPER },
    { "UNKNOWN", (long long) NVML_DEVICE_ARCH_UNKNOWN }, { NULL, 0 }
};

static const named COMPUTE_MODES[] = {
    { "DEFAULT", NVML_COMPUTEMODE_DEFAULT }, { "EXCLUSIVE_THREAD", NVML_COMPUTEMODE_EXCLUSIVE_THREAD },
    { "PROHIBITED", NVML_COMPUTEMODE_PROHIBITED }, { "EXCLUSIVE_PROCESS", NVML_COMPUTEMODE_EXCLUSIVE_PROCESS },
    { NULL, 0 }
};

static const named VIRTUALIZATION_MODES[] = {
    { "NONE", NVML_GPU_VIRTUALIZATION_MODE_NONE }, { "PASSTHROUGH", NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH },
    { "VGPU", NVML_GPU_VIRTUALIZATION_MODE_VGPU }, { "HOST_VGPU", NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU },
    { "HOST_VSGA", NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA }, { NULL, 0 }
};

static const named FABRIC_STATES[] = {
    { "NOT_SUPPORTED", NVML_GPU_FABRIC_STATE_NOT_SUPPORTED }, { "NOT_STARTED", NVML_GPU_FABRIC_STATE_NOT_STARTED },
    { "IN_PROGRESS", NVML_GPU_FABRIC_STATE_IN_PROGRESS }, { "COMPLETED", NVML_GPU_FABRIC_STATE_COMPLETED },
    { NULL, 0 }
};

static const named GRID_CODES[] = {
    { "UNKNOWN", NVML_GRID_LICENSE_FEATURE_CODE_UNKNOWN }, { "VGPU", NVML_GRID_LICENSE_FEATURE_CODE_VGPU },
    { "NVIDIA_RTX", NVML_GRID_LICENSE_FEATURE_CODE_NVIDIA_RTX },
    { "VWORKSTATION", NVML_GRID_LICENSE_FEATURE_CODE_VWORKSTATION },
    { "GAMING", NVML_GRID_LICENSE_FEATURE_CODE_GAMING }, { "COMPUTE", NVML_GRID_LICENSE_FEATURE_CODE_COMPUTE },
    { NULL, 0 }
};

static const named EXPIRY_STATUS[] = {
    { "NOT_AVAILABLE", NVML_GRID_LICENSE_EXPIRY_NOT_AVAILABLE }, { "INVALID", NVML_GRID_LICENSE_EXPIRY_INVALID },
    { "VALID", NVML_GRID_LICENSE_EXPIRY_VALID }, { "NOT_APPLICABLE", NVML_GRID_LICENSE_EXPIRY_NOT_APPLICABLE },
    { "PERMANENT", NVML_GRID_LICENSE_EXPIRY_PERMANENT }, { NULL, 0 }
};

static const named CLOCK_REASONS[] = {
    { "GpuIdle", (long long) nvmlClocksEventReasonGpuIdle },
    { "ApplicationsClocksSetting", (long long) nvmlClocksEventReasonApplicationsClocksSetting },
    { "SwPowerCap", (long long) nvmlClocksEventReasonSwPowerCap },
    { "HwSlowdown", (long long) nvmlClocksThrottleReasonHwSlowdown },
    { "SyncBoost", (long long) nvmlClocksEventReasonSyncBoost },
    { "SwThermalSlowdown", (long long) nvmlClocksEventReasonSwThermalSlowdown },
    { "HwThermalSlowdown", (long long) nvmlClocksThrottleReasonHwThermalSlowdown },
    { "HwPowerBrakeSlowdown", (long long) nvmlClocksThrottleReasonHwPowerBrakeSlowdown },
    { "DisplayClockSetting", (long long) nvmlClocksEventReasonDisplayClockSetting }, { NULL, 0 }
};

static const named EVENT_TYPES[] = {
    { "SingleBitEccError", (long long) nvmlEventTypeSingleBitEccError },
    { "DoubleBitEccError", (long long) nvmlEventTypeDoubleBitEccError },
    { "PState", (long long) nvmlEventTypePState }, { "XidCriticalError", (long long) nvmlEventTypeXidCriticalError },
    { "Clock", (long long) nvmlEventTypeClock }, { "PowerSourceChange", (long long) nvmlEventTypePowerSourceChange },
    { "MigConfigChange", (long long) nvmlEventMigConfigChange }, { NULL, 0 }
};

static const named GI_PROFILES[] = {
    { "1_SLICE", NVML_GPU_INSTANCE_PROFILE_1_SLICE }, { "2_SLICE", NVML_GPU_INSTANCE_PROFILE_2_SLICE },
    { "3_SLICE", NVML_GPU_INSTANCE_PROFILE_3_SLICE }, { "4_SLICE", NVML_GPU_INSTANCE_PROFILE_4_SLICE },
    { "7_SLICE", NVML_GPU_INSTANCE_PROFILE_7_SLICE }, { "8_SLICE", NVML_GPU_INSTANCE_PROFILE_8_SLICE },
    { "6_SLICE", NVML_GPU_INSTANCE_PROFILE_6_SLICE }, { "1_SLICE_REV1", NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1 },
    { "2_SLICE_REV1", NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1 }, { "1_SLICE_REV2", NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2 },
    { NULL, 0 }
};

static const named MIG_MODES[] = {
    { "enabled", NVML_DEVICE_MIG_ENABLE }, { "disabled", NVML_DEVICE_MIG_DISABLE }, { NULL, 0 }
};

/* ---- GPU sections ------------------------------------------------------------------------------------------ */

static int parse_memory_triple(ctx *c, const json *obj, const char *base, unsigned long long *total,
                               unsigned long long *reserved, walkable *used) {
    char path[512];
    const json *m = object_at(c, obj, base, "memory", 0, path, sizeof path);
    if (m == NULL) {
        return -1;
    }
    static const char *const keys[] = { "totalBytes", "reservedBytes", "usedBytes", NULL };
    long long t, r;
    int present;
    if (check_keys(c, m, path, keys) != 0 || get_int(c, m, path, "totalBytes", 1, LLONG_MAX, &t) != 0
        || get_int(c, m, path, "reservedBytes", 0, LLONG_MAX, &r) != 0
        || get_walkable(c, m, path, "usedBytes", 0, 1, used, &present) != 0) {
        return -1;
    }
    if ((double) r + used->max > (double) t) {
        return bad(c, path, m, "must have reservedBytes + usedBytes (its max) <= totalBytes");
    }
    *total = (unsigned long long) t;
    *reserved = (unsigned long long) r;
    return 0;
}

static int parse_grid(ctx *c, const json *g, const char *path, grid_license *out) {
    static const char *const keys[] = { "supported", "features", NULL };
    if (check_keys(c, g, path, keys) != 0 || get_bool(c, g, path, "supported", &out->supported) != 0) {
        return -1;
    }
    char fpath[512];
    const json *features = member(c, g, path, "features", JSON_ARRAY, 0, fpath, sizeof fpath);
    if (features == NULL) {
        return -1;
    }
    if (features->as.array.count > NVML_GRID_LICENSE_FEATURE_MAX_COUNT) {
        return bad(c, fpath, features, "must have at most %d entries", NVML_GRID_LICENSE_FEATURE_MAX_COUNT);
    }
    out->feature_count = (unsigned) features->as.array.count;
    for (size_t i = 0; i < features->as.array.count; i++) {
        char p[560];
        snprintf(p, sizeof p, "%s[%zu]", fpath, i);
        const json *f = features->as.array.items[i];
        if (f->type != JSON_OBJECT) {
            return bad(c, p, f, "must be an object");
        }
        static const char *const fkeys[] = { "code", "state", "productName", "enabled", "expiry", NULL };
        nvmlGridLicensableFeature_t *nf = &out->features[i];
        long long code, status, year;
        unsigned state;
        int enabled, present;
        if (check_keys(c, f, p, fkeys) != 0 || get_enum(c, f, p, "code", GRID_CODES, 0, &code, &present) != 0
            || get_uint(c, f, p, "state", UINT_MAX, &state) != 0
            || get_string(c, f, p, "productName", nf->productName, sizeof nf->productName, 0, &present) != 0
            || get_bool(c, f, p, "enabled", &enabled) != 0) {
            return -1;
        }
        nf->featureCode = (nvmlGridLicenseFeatureCode_t) code;
        nf->featureState = state;
        nf->featureEnabled = (unsigned) enabled;
        char epath[600];
        const json *e = object_at(c, f, p, "expiry", 0, epath, sizeof epath);
        if (e == NULL) {
            return -1;
        }
        static const char *const ekeys[] = { "year", "month", "day", "hour", "min", "sec", "status", NULL };
        unsigned month, day, hour, min, sec;
        if (check_keys(c, e, epath, ekeys) != 0 || get_int(c, e, epath, "year", 0, 9999, &year) != 0
            || get_uint(c, e, epath, "month", 12, &month) != 0 || get_uint(c, e, epath, "day", 31, &day) != 0
            || get_uint(c, e, epath, "hour", 23, &hour) != 0 || get_uint(c, e, epath, "min", 59, &min) != 0
            || get_uint(c, e, epath, "sec", 59, &sec) != 0
            || get_enum(c, e, epath, "status", EXPIRY_STATUS, 0, &status, &present) != 0) {
            return -1;
        }
        nf->licenseExpiry.year = (unsigned) year;
        nf->licenseExpiry.month = (unsigned short) month;
        nf->licenseExpiry.day = (unsigned short) day;
        nf->licenseExpiry.hour = (unsigned short) hour;
        nf->licenseExpiry.min = (unsigned short) min;
        nf->licenseExpiry.sec = (unsigned short) sec;
        nf->licenseExpiry.status = (unsigned char) status;
    }
    return 0;
}

static int parse_uuid_bytes(const char *s, unsigned char out[16]) {
    /* 8-4-4-4-12 hex without prefix */
    int n = 0;
    for (const char *p = s; *p != '\0'; p++) {
        if (*p == '-') {
            continue;
        }
        int d = hex_digit((unsigned char) *p);
        if (d < 0 || n >= 32) {
            return -1;
        }
        if (n % 2 == 0) {
            out[n / 2] = (unsigned char) (d << 4);
        } else {
            out[n / 2] |= (unsigned char) d;
        }
        n++;
    }
    return n == 32 ? 0 : -1;
}

static int parse_fabric(ctx *c, const json *f, const char *path, nvmlGpuFabricInfo_t *out) {
    static const char *const keys[] = { "clusterUuid", "cliqueId", "state", "status", NULL };
    char uuid[64];
    long long state, status;
    unsigned clique;
    int present;
    if (check_keys(c, f, path, keys) != 0 || get_string(c, f, path, "clusterUuid", uuid, sizeof uuid, 0, &present) != 0
        || get_uint(c, f, path, "cliqueId", UINT_MAX, &clique) != 0
        || get_enum(c, f, path, "state", FABRIC_STATES, 0, &state, &present) != 0
        || get_int(c, f, path, "status", 0, 999, &status) != 0) {
        return -1;
    }
    char tmp[80];
    snprintf(tmp, sizeof tmp, "X-%s", uuid);
    if (!profile_valid_uuid(tmp, "X") || parse_uuid_bytes(uuid, out->clusterUuid) != 0) {
        char p[600];
        join(p, sizeof p, path, "clusterUuid");
        return bad(c, p, json_member(f, "clusterUuid"), "must be a UUID xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
    }
    out->cliqueId = clique;
    out->state = (nvmlGpuFabricState_t) state;
    out->status = (nvmlReturn_t) status;
    return 0;
}

static int parse_retired(ctx *c, const json *r, const char *path, mock_gpu *g) {
    static const char *const keys[] = { "multipleSingleBitEcc", "doubleBitEcc", "pending", NULL };
    if (check_keys(c, r, path, keys) != 0) {
        return -1;
    }
    const char *names[2] = { "multipleSingleBitEcc", "doubleBitEcc" }; /* NVML_PAGE_RETIREMENT_CAUSE_* order */
    for (int cause = 0; cause < 2; cause++) {
        char p[512];
        const json *arr = member(c, r, path, names[cause], JSON_ARRAY, 0, p, sizeof p);
        if (arr == NULL) {
            return -1;
        }
        g->retired_count[cause] = (unsigned) arr->as.array.count;
        g->retired[cause] = arr->as.array.count ? calloc(arr->as.array.count, sizeof(unsigned long long)) : NULL;
        if (arr->as.array.count && g->retired[cause] == NULL) {
            return bad(c, p, arr, "could not be stored (out of memory)");
        }
        for (size_t i = 0; i < arr->as.array.count; i++) {
            const json *a = arr->as.array.items[i];
            char ip[560];
            snprintf(ip, sizeof ip, "%s[%zu]", p, i);
            if (a->type != JSON_NUMBER || !a->as.number.is_integer || a->as.number.integer < 0) {
                return bad(c, ip, a, "must be a non-negative integer (a page address)");
            }
            g->retired[cause][i] = (unsigned long long) a->as.number.integer;
        }
    }
    return get_bool(c, r, path, "pending", &g->retired_pending);
}

static int parse_nvlink(ctx *c, const json *n, const char *path, mock_gpu *g) {
    static const char *const keys[] = { "speedMBps", "links", "dataTxKiB", "dataRxKiB", "rawOverheadPercent", "errors",
                                        NULL };
    if (check_keys(c, n, path, keys) != 0 || get_uint(c, n, path, "speedMBps", UINT_MAX, &g->nvlink_speed) != 0) {
        return -1;
    }
    char p[512];
    const json *links = member(c, n, path, "links", JSON_ARRAY, 0, p, sizeof p);
    if (links == NULL) {
        return -1;
    }
    if (links->as.array.count < 1 || links->as.array.count > MOCK_MAX_LINKS) {
        return bad(c, p, links, "must have 1..%d links", MOCK_MAX_LINKS);
    }
    g->link_count = (int) links->as.array.count;
    counter tx, rx, errors[NVML_NVLINK_ERROR_COUNT];
    if (get_counter(c, n, path, "dataTxKiB", &tx) != 0 || get_counter(c, n, path, "dataRxKiB", &rx) != 0) {
        return -1;
    }
    const json *ov = member(c, n, path, "rawOverheadPercent", JSON_NUMBER, 0, p, sizeof p);
    if (ov == NULL) {
        return -1;
    }
    if (!(ov->as.number.value >= 0 && ov->as.number.value <= 100)) {
        return bad(c, p, ov, "must be in 0..100");
    }
    g->raw_overhead = ov->as.number.value;
    char epath[512];
    const json *e = object_at(c, n, path, "errors", 0, epath, sizeof epath);
    if (e == NULL) {
        return -1;
    }
    static const char *const ekeys[] = { "replay", "recovery", "crcFlit", "crcData", "eccData", NULL };
    if (check_keys(c, e, epath, ekeys) != 0) {
        return -1;
    }
    /* nvmlNvLinkErrorCounter_t order: DL_REPLAY, DL_RECOVERY, DL_CRC_FLIT, DL_CRC_DATA, DL_ECC_DATA */
    for (int i = 0; i < NVML_NVLINK_ERROR_COUNT; i++) {
        if (get_counter(c, e, epath, ekeys[i], &errors[i]) != 0) {
            return -1;
        }
    }
    char lpath[512];
    join(lpath, sizeof lpath, path, "links");
    for (int l = 0; l < g->link_count; l++) {
        nvlink_link *link = &g->links[l];
        const json *item = links->as.array.items[l];
        char ip[560];
        snprintf(ip, sizeof ip, "%s[%d]", lpath, l);
        link->remote_gpu = -1;
        link->remote_switch = -1;
        uint64_t salt = (uint64_t) (l + 1) * 0x9E3779B97F4A7C15ull;
        link->tx = tx;
        link->rx = rx;
        link->tx.rate.key ^= salt;
        link->rx.rate.key ^= salt;
        for (int i = 0; i < NVML_NVLINK_ERROR_COUNT; i++) {
            link->errors[i] = errors[i];
            link->errors[i].rate.key ^= salt;
        }
        if (item->type == JSON_NULL) {
            continue;
        }
        mock_pci pci;
        if (item->type != JSON_STRING || parse_bus_id(item->as.string.chars, &pci) != 0) {
            return bad(c, ip, item, "must be a PCI bus id DDDDDDDD:BB:DD.0 or null (inactive link)");
        }
        link->active = 1;
        snprintf(link->remote, sizeof link->remote, "%s", pci.bus_id);
    }
    return 0;
}

static int parse_gpm(ctx *c, const json *m, const char *path, mock_gpu *g) {
    static const char *const keys[] = { "engines", "graphicsUtil", "smUtil", "smOccupancy", "integerUtil",
                                        "anyTensorUtil", "dfmaTensorUtil", "hmmaTensorUtil", "immaTensorUtil",
                                        "dramBwUtil", "fp64Util", "fp32Util", "fp16Util", "pcieTxMiBps",
                                        "pcieRxMiBps", "nvdecUtil", "nvjpgUtil", "nvofaUtil", NULL };
    if (check_keys(c, m, path, keys) != 0) {
        return -1;
    }
    char epath[512];
    const json *e = object_at(c, m, path, "engines", 0, epath, sizeof epath);
    if (e == NULL) {
        return -1;
    }
    static const char *const ekeys[] = { "nvdec", "nvjpg", "nvofa", NULL };
    if (check_keys(c, e, epath, ekeys) != 0 || get_uint(c, e, epath, "nvdec", 8, &g->gpm_engines[0]) != 0
        || get_uint(c, e, epath, "nvjpg", 8, &g->gpm_engines[1]) != 0
        || get_uint(c, e, epath, "nvofa", 1, &g->gpm_engines[2]) != 0) {
        return -1;
    }
    for (int i = 0; i < GPM_VALUE_COUNT; i++) {
        int present;
        if (get_walkable(c, m, path, keys[i + 1], 0, 1, &g->gpm[i], &present) != 0) {
            return -1;
        }
        int percent = i != GPM_PCIE_TX && i != GPM_PCIE_RX;
        if (percent && g->gpm[i].max > 100) {
            char p[512];
            join(p, sizeof p, path, keys[i + 1]);
            return bad(c, p, json_member(m, keys[i + 1]), "is a percentage and must not exceed 100");
        }
    }
    return 0;
}

static int parse_mig(ctx *c, const json *m, const char *path, mock_gpu *g) {
    mig_config *mig = &g->mig;
    static const char *const keys[] = { "mode", "pendingMode", "maxDevices", "memorySlices", "profiles",
                                        "gpuInstances", "devices", NULL };
    long long mode, pending;
    int present;
    if (check_keys(c, m, path, keys) != 0 || get_enum(c, m, path, "mode", MIG_MODES, 0, &mode, &present) != 0
        || get_enum(c, m, path, "pendingMode", MIG_MODES, 0, &pending, &present) != 0
        || get_uint(c, m, path, "maxDevices", MOCK_MAX_MIG, &mig->max_devices) != 0
        || get_uint(c, m, path, "memorySlices", 8, &mig->memory_slices) != 0) {
        return -1;
    }
    mig->capable = 1;
    mig->mode = (int) mode;
    mig->pending_mode = (int) pending;
    char p[512];
    if (mig->max_devices < 1) {
        join(p, sizeof p, path, "maxDevices");
        return bad(c, p, json_member(m, "maxDevices"), "must be in 1..%d", MOCK_MAX_MIG);
    }
    if (mig->memory_slices < 1) {
        join(p, sizeof p, path, "memorySlices");
        return bad(c, p, json_member(m, "memorySlices"), "must be in 1..8");
    }

    const json *profiles = member(c, m, path, "profiles", JSON_ARRAY, 0, p, sizeof p);
    if (profiles == NULL) {
        return -1;
    }
    if (profiles->as.array.count > MOCK_MAX_GI_PROFILES) {
        return bad(c, p, profiles, "must have at most %d entries", MOCK_MAX_GI_PROFILES);
    }
    for (size_t i = 0; i < profiles->as.array.count; i++) {
        char pp[560];
        snprintf(pp, sizeof pp, "%s[%zu]", p, i);
        const json *pr = profiles->as.array.items[i];
        if (pr->type != JSON_OBJECT) {
            return bad(c, pp, pr, "must be an object");
        }
        static const char *const pkeys[] = { "profile", "id", "name", "isP2pSupported", "sliceCount", "instanceCount",
                                             "multiprocessorCount", "copyEngineCount", "decoderCount", "encoderCount",
                                             "jpegCount", "ofaCount", "memorySizeMB", NULL };
        mig_profile *mp = &mig->profiles[mig->profile_count];
        long long constant, mem;
        nvmlGpuInstanceProfileInfo_t *in = &mp->info;
        if (check_keys(c, pr, pp, pkeys) != 0 || get_enum(c, pr, pp, "profile", GI_PROFILES, 0, &constant, &present) != 0
            || get_uint(c, pr, pp, "id", 1000, &in->id) != 0
            || get_string(c, pr, pp, "name", mp->name, sizeof mp->name, 0, &present) != 0
            || get_uint(c, pr, pp, "isP2pSupported", 1, &in->isP2pSupported) != 0
            || get_uint(c, pr, pp, "sliceCount", 8, &in->sliceCount) != 0
            || get_uint(c, pr, pp, "instanceCount", 8, &in->instanceCount) != 0
            || get_uint(c, pr, pp, "multiprocessorCount", 1024, &in->multiprocessorCount) != 0
            || get_uint(c, pr, pp, "copyEngineCount", 64, &in->copyEngineCount) != 0
            || get_uint(c, pr, pp, "decoderCount", 64, &in->decoderCount) != 0
            || get_uint(c, pr, pp, "encoderCount", 64, &in->encoderCount) != 0
            || get_uint(c, pr, pp, "jpegCount", 64, &in->jpegCount) != 0
            || get_uint(c, pr, pp, "ofaCount", 64, &in->ofaCount) != 0
            || get_int(c, pr, pp, "memorySizeMB", 1, 1LL << 40, &mem) != 0) {
            return -1;
        }
        in->memorySizeMB = (unsigned long long) mem;
        mp->profile = (unsigned) constant;
        for (int k = 0; k < mig->profile_count; k++) {
            if (mig->profiles[k].profile == mp->profile || mig->profiles[k].info.id == in->id) {
                return bad(c, pp, pr, "repeats the profile constant or id of %s[%d]", p, k);
            }
        }
        if (in->sliceCount < 1) {
            return bad(c, pp, pr, "must have sliceCount >= 1");
        }
        mig->profile_count++;
    }

    const json *gis = member(c, m, path, "gpuInstances", JSON_ARRAY, 0, p, sizeof p);
    if (gis == NULL) {
        return -1;
    }
    if (gis->as.array.count > MOCK_MAX_MIG) {
        return bad(c, p, gis, "must have at most %d GPU instances", MOCK_MAX_MIG);
    }
    unsigned used_slices = 0; /* bit mask of memory slices */
    for (size_t i = 0; i < gis->as.array.count; i++) {
        char gp[560];
        snprintf(gp, sizeof gp, "%s[%zu]", p, i);
        const json *gj = gis->as.array.items[i];
        if (gj->type != JSON_OBJECT) {
            return bad(c, gp, gj, "must be an object");
        }
        static const char *const gkeys[] = { "id", "profileId", "placement", NULL };
        gpu_instance *gi = &mig->gis[mig->gi_count];
        if (check_keys(c, gj, gp, gkeys) != 0 || get_uint(c, gj, gp, "id", 1000, &gi->id) != 0
            || get_uint(c, gj, gp, "profileId", 1000, &gi->profile_id) != 0) {
            return -1;
        }
        gi->profile_index = -1;
        for (int k = 0; k < mig->profile_count; k++) {
            if (mig->profiles[k].info.id == gi->profile_id) {
                gi->profile_index = k;
            }
        }
        if (gi->profile_index < 0) {
            char q[600];
            join(q, sizeof q, gp, "profileId");
            return bad(c, q, json_member(gj, "profileId"), "must be the id of one of %s.profiles", path);
        }
        for (int k = 0; k < mig->gi_count; k++) {
            if (mig->gis[k].id == gi->id) {
                char q[600];
                join(q, sizeof q, gp, "id");
                return bad(c, q, json_member(gj, "id"), "repeats the id of %s[%d]", p, k);
            }
        }
        char pl[600];
        const json *place = object_at(c, gj, gp, "placement", 0, pl, sizeof pl);
        if (place == NULL) {
            return -1;
        }
        static const char *const plkeys[] = { "start", "size", NULL };
        if (check_keys(c, place, pl, plkeys) != 0 || get_uint(c, place, pl, "start", 7, &gi->start) != 0
            || get_uint(c, place, pl, "size", 8, &gi->size) != 0) {
            return -1;
        }
        if (gi->size < 1 || gi->start + gi->size > mig->memory_slices) {
            return bad(c, pl, place, "must lie within the %u memory slices", mig->memory_slices);
        }
        unsigned bits = ((1u << gi->size) - 1u) << gi->start;
        if (used_slices & bits) {
            return bad(c, pl, place, "overlaps another GPU instance's placement");
        }
        used_slices |= bits;
        mig->gi_count++;
    }

    const json *devs = member(c, m, path, "devices", JSON_ARRAY, 0, p, sizeof p);
    if (devs == NULL) {
        return -1;
    }
    if (devs->as.array.count > mig->max_devices) {
        return bad(c, p, devs, "must have at most maxDevices (%u) devices", mig->max_devices);
    }
    unsigned ci_slices[MOCK_MAX_MIG] = { 0 };
    for (size_t i = 0; i < devs->as.array.count; i++) {
        char dp[560];
        snprintf(dp, sizeof dp, "%s[%zu]", p, i);
        const json *dj = devs->as.array.items[i];
        if (dj->type != JSON_OBJECT) {
            return bad(c, dp, dj, "must be an object");
        }
        static const char *const dkeys[] = { "uuid", "name", "gpuInstanceId", "computeInstanceId", "attributes",
                                             "memory", NULL };
        mig_device *md = &mig->devices[mig->device_count];
        if (check_keys(c, dj, dp, dkeys) != 0
            || get_string(c, dj, dp, "uuid", md->uuid, sizeof md->uuid, 0, &present) != 0
            || get_string(c, dj, dp, "name", md->name, sizeof md->name, 0, &present) != 0
            || get_uint(c, dj, dp, "gpuInstanceId", 1000, &md->gi_id) != 0
            || get_uint(c, dj, dp, "computeInstanceId", 1000, &md->ci_id) != 0) {
            return -1;
        }
        if (!profile_valid_uuid(md->uuid, "MIG")) {
            char q[600];
            join(q, sizeof q, dp, "uuid");
            return bad(c, q, json_member(dj, "uuid"), "must be MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits)");
        }
        md->gi_index = -1;
        for (int k = 0; k < mig->gi_count; k++) {
            if (mig->gis[k].id == md->gi_id) {
                md->gi_index = k;
            }
        }
        if (md->gi_index < 0) {
            char q[600];
            join(q, sizeof q, dp, "gpuInstanceId");
            return bad(c, q, json_member(dj, "gpuInstanceId"), "must be the id of one of %s.gpuInstances", path);
        }
        for (int k = 0; k < mig->device_count; k++) {
            if (mig->devices[k].gi_id == md->gi_id && mig->devices[k].ci_id == md->ci_id) {
                return bad(c, dp, dj, "repeats gpuInstanceId %u / computeInstanceId %u of %s[%d]", md->gi_id,
                           md->ci_id, p, k);
            }
        }
        char ap[600];
        const json *attrs = object_at(c, dj, dp, "attributes", 0, ap, sizeof ap);
        if (attrs == NULL) {
            return -1;
        }
        static const char *const akeys[] = { "multiprocessorCount", "sharedCopyEngineCount", "sharedDecoderCount",
                                             "sharedEncoderCount", "sharedJpegCount", "sharedOfaCount",
                                             "gpuInstanceSliceCount", "computeInstanceSliceCount", "memorySizeMB",
                                             NULL };
        nvmlDeviceAttributes_t *a = &md->attributes;
        long long mem;
        if (check_keys(c, attrs, ap, akeys) != 0
            || get_uint(c, attrs, ap, "multiprocessorCount", 1024, &a->multiprocessorCount) != 0
            || get_uint(c, attrs, ap, "sharedCopyEngineCount", 64, &a->sharedCopyEngineCount) != 0
            || get_uint(c, attrs, ap, "sharedDecoderCount", 64, &a->sharedDecoderCount) != 0
            || get_uint(c, attrs, ap, "sharedEncoderCount", 64, &a->sharedEncoderCount) != 0
            || get_uint(c, attrs, ap, "sharedJpegCount", 64, &a->sharedJpegCount) != 0
            || get_uint(c, attrs, ap, "sharedOfaCount", 64, &a->sharedOfaCount) != 0
            || get_uint(c, attrs, ap, "gpuInstanceSliceCount", 8, &a->gpuInstanceSliceCount) != 0
            || get_uint(c, attrs, ap, "computeInstanceSliceCount", 8, &a->computeInstanceSliceCount) != 0
            || get_int(c, attrs, ap, "memorySizeMB", 1, 1LL << 40, &mem) != 0) {
            return -1;
        }
        a->memorySizeMB = (unsigned long long) mem;
        const mig_profile *gp = &mig->profiles[mig->gis[md->gi_index].profile_index];
        if (a->gpuInstanceSliceCount != gp->info.sliceCount || a->memorySizeMB != gp->info.memorySizeMB) {
            return bad(c, ap, attrs,
                       "must have the gpuInstanceSliceCount (%u) and memorySizeMB (%llu) of GPU instance %u's profile %s",
                       gp->info.sliceCount, gp->info.memorySizeMB, md->gi_id, gp->name);
        }
        if (a->computeInstanceSliceCount < 1 || a->computeInstanceSliceCount > a->gpuInstanceSliceCount) {
            return bad(c, ap, attrs, "must have 1 <= computeInstanceSliceCount <= gpuInstanceSliceCount");
        }
        if (a->computeInstanceSliceCount == 5) {
            return bad(c, ap, attrs, "must have a computeInstanceSliceCount NVML has a compute instance profile for"
                                     " (1, 2, 3, 4, 6, 7 or 8)");
        }
        ci_slices[md->gi_index] += a->computeInstanceSliceCount;
        if (ci_slices[md->gi_index] > gp->info.sliceCount) {
            return bad(c, dp, dj, "would give GPU instance %u more compute slices than its %u", md->gi_id,
                       gp->info.sliceCount);
        }
        if (parse_memory_triple(c, dj, dp, &md->total, &md->reserved, &md->used) != 0) {
            return -1;
        }
        mig->device_count++;
    }
    if (mig->mode == NVML_DEVICE_MIG_DISABLE && (mig->gi_count > 0 || mig->device_count > 0)) {
        return bad(c, path, m, "must not list gpuInstances or devices while mode is disabled");
    }
    return 0;
}

static int parse_gpu(ctx *c, const json *o, const char *path, int index, mock_gpu *g) {
    static const char *const keys[] = {
        "model", "uuid", "name", "brand", "architecture", "computeCapability", "serial", "vbiosVersion", "inforom",
        "minorNumber", "numaNode", "pci", "topology", "pcieP2pSupported", "computeMode", "virtualizationMode",
        "gridLicense", "fabric", "lost", "memory", "temperature", "power", "clocksMhz", "utilization",
        "pcieReplayCount", "pcieThroughputKBps", "ecc", "retiredPages", "remappedRows", "violationNs", "clocksEventReasons",
        "supportedEvents", "nvlink", "gpm", "mig", NULL
    };
    if (check_keys(c, o, path, keys) != 0) {
        return -1;
    }
    g->index = index;
    long long v;
    int present;
    char p[512];
    if (get_string(c, o, path, "uuid", g->uuid, sizeof g->uuid, 0, &present) != 0) {
        return -1;
    }
    if (!profile_valid_uuid(g->uuid, "GPU")) {
        join(p, sizeof p, path, "uuid");
        return bad(c, p, json_member(o, "uuid"), "must be GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits)");
    }
    if (get_string(c, o, path, "name", g->name, sizeof g->name, 0, &present) != 0
        || get_enum(c, o, path, "brand", BRANDS, 0, &v, &present) != 0) {
        return -1;
    }
    g->brand = (int) v;
    if (get_enum(c, o, path, "architecture", ARCHITECTURES, 0, &v, &present) != 0) {
        return -1;
    }
    g->architecture = (int) v;
    const json *cc = object_at(c, o, path, "computeCapability", 0, p, sizeof p);
    static const char *const cckeys[] = { "major", "minor", NULL };
    long long major, minor;
    if (cc == NULL || check_keys(c, cc, p, cckeys) != 0 || get_int(c, cc, p, "major", 1, 99, &major) != 0
        || get_int(c, cc, p, "minor", 0, 9, &minor) != 0) {
        return -1;
    }
    g->cc_major = (int) major;
    g->cc_minor = (int) minor;
    if (get_string(c, o, path, "serial", g->serial, sizeof g->serial, 1, &g->has_serial) != 0
        || get_string(c, o, path, "vbiosVersion", g->vbios, sizeof g->vbios, 0, &present) != 0) {
        return -1;
    }
    const json *inf = object_at(c, o, path, "inforom", 0, p, sizeof p);
    static const char *const infkeys[] = { "image", "oem", "ecc", "power", NULL };
    if (inf == NULL || check_keys(c, inf, p, infkeys) != 0
        || get_string(c, inf, p, "image", g->inforom_image, sizeof g->inforom_image, 1, &g->has_inforom_image) != 0) {
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        if (get_string(c, inf, p, infkeys[i + 1], g->inforom[i], sizeof g->inforom[i], 1, &g->has_inforom[i]) != 0) {
            return -1;
        }
    }
    if (get_int(c, o, path, "minorNumber", 0, 1000000, &v) != 0) {
        return -1;
    }
    g->minor = (unsigned) v;
    join(p, sizeof p, path, "numaNode");
    const json *numa = json_member(o, "numaNode");
    if (numa != NULL && numa->type == JSON_NULL) {
        g->has_numa = 0;
    } else {
        if (get_int(c, o, path, "numaNode", 0, 1023, &v) != 0) {
            return -1;
        }
        g->has_numa = 1;
        g->numa = (unsigned) v;
    }
    const json *pci = object_at(c, o, path, "pci", 0, p, sizeof p);
    static const char *const pcikeys[] = { "busId", "deviceId", "subsystemId", NULL };
    if (pci == NULL || check_keys(c, pci, p, pcikeys) != 0 || get_bus_id(c, pci, p, "busId", &g->pci) != 0
        || get_hex32(c, pci, p, "deviceId", &g->pci.device_id) != 0
        || get_hex32(c, pci, p, "subsystemId", &g->pci.subsystem_id) != 0) {
        return -1;
    }
    const json *topo = object_at(c, o, path, "topology", 0, p, sizeof p);
    static const char *const topokeys[] = { "hostBridge", "switches", NULL };
    if (topo == NULL || check_keys(c, topo, p, topokeys) != 0
        || get_string(c, topo, p, "hostBridge", g->host_bridge, sizeof g->host_bridge, 0, &present) != 0) {
        return -1;
    }
    char sp[560];
    const json *sw = member(c, topo, p, "switches", JSON_ARRAY, 0, sp, sizeof sp);
    if (sw == NULL) {
        return -1;
    }
    if (sw->as.array.count > 8) {
        return bad(c, sp, sw, "must have at most 8 switches");
    }
    g->switch_count = (int) sw->as.array.count;
    for (int i = 0; i < g->switch_count; i++) {
        const json *s = sw->as.array.items[i];
        if (s->type != JSON_STRING || s->as.string.length == 0 || s->as.string.length >= sizeof g->switches[i]) {
            char ip[600];
            snprintf(ip, sizeof ip, "%s[%d]", sp, i);
            return bad(c, ip, s, "must be a non-empty string shorter than 64 bytes");
        }
        memcpy(g->switches[i], s->as.string.chars, s->as.string.length + 1);
    }
    if (get_bool(c, o, path, "pcieP2pSupported", &g->pcie_p2p) != 0
        || get_enum(c, o, path, "computeMode", COMPUTE_MODES, 1, &v, &g->has_compute_mode) != 0) {
        return -1;
    }
    g->compute_mode = (int) v;
    if (get_enum(c, o, path, "virtualizationMode", VIRTUALIZATION_MODES, 0, &v, &present) != 0) {
        return -1;
    }
    g->virtualization_mode = (int) v;
    const json *grid = object_at(c, o, path, "gridLicense", 1, p, sizeof p);
    if (grid == NULL) {
        return -1;
    }
    if (grid->type == JSON_OBJECT) {
        g->has_grid = 1;
        if (parse_grid(c, grid, p, &g->grid) != 0) {
            return -1;
        }
    }
    const json *fabric = object_at(c, o, path, "fabric", 1, p, sizeof p);
    if (fabric == NULL) {
        return -1;
    }
    if (fabric->type == JSON_OBJECT) {
        g->has_fabric = 1;
        if (parse_fabric(c, fabric, p, &g->fabric) != 0) {
            return -1;
        }
    }
    if (get_bool(c, o, path, "lost", &g->lost) != 0
        || parse_memory_triple(c, o, path, &g->mem_total, &g->mem_reserved, &g->mem_used) != 0) {
        return -1;
    }
    const json *temp = object_at(c, o, path, "temperature", 0, p, sizeof p);
    static const char *const tkeys[] = { "gpuC", "memoryC", NULL };
    if (temp == NULL || check_keys(c, temp, p, tkeys) != 0
        || get_walkable(c, temp, p, "gpuC", 0, 1, &g->temp_gpu, &present) != 0
        || get_walkable(c, temp, p, "memoryC", 1, 1, &g->temp_mem, &g->has_temp_mem) != 0) {
        return -1;
    }
    const json *power = object_at(c, o, path, "power", 0, p, sizeof p);
    static const char *const pkeys[] = { "usageMw", "enforcedLimitMw", "energyMj", NULL };
    long long energy;
    if (power == NULL || check_keys(c, power, p, pkeys) != 0
        || get_walkable(c, power, p, "usageMw", 0, 1, &g->power, &present) != 0
        || get_uint(c, power, p, "enforcedLimitMw", UINT_MAX, &g->power_limit) != 0
        || get_int(c, power, p, "energyMj", 0, LLONG_MAX, &energy) != 0) {
        return -1;
    }
    memset(&g->energy, 0, sizeof g->energy);
    g->energy.base = g->energy.last = (unsigned long long) energy;
    g->energy.rate = g->power; /* mW = mJ per second */
    const json *clocks = object_at(c, o, path, "clocksMhz", 0, p, sizeof p);
    static const char *const ckeys[] = { "graphics", "sm", "memory", "video", NULL }; /* NVML_CLOCK_* order */
    if (clocks == NULL || check_keys(c, clocks, p, ckeys) != 0) {
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        if (get_walkable(c, clocks, p, ckeys[i], 0, 1, &g->clocks[i], &present) != 0) {
            return -1;
        }
    }
    const json *util = object_at(c, o, path, "utilization", 0, p, sizeof p);
    static const char *const ukeys[] = { "gpuPercent", "memoryPercent", "encoderPercent", "decoderPercent",
                                         "samplingPeriodUs", NULL };
    if (util == NULL || check_keys(c, util, p, ukeys) != 0
        || get_walkable(c, util, p, "gpuPercent", 0, 1, &g->util_gpu, &present) != 0
        || get_walkable(c, util, p, "memoryPercent", 0, 1, &g->util_mem, &present) != 0
        || get_walkable(c, util, p, "encoderPercent", 1, 1, &g->util_enc, &g->has_encoder) != 0
        || get_walkable(c, util, p, "decoderPercent", 1, 1, &g->util_dec, &g->has_decoder) != 0
        || get_uint(c, util, p, "samplingPeriodUs", UINT_MAX, &g->sampling_period_us) != 0) {
        return -1;
    }
    const walkable *percents[4] = { &g->util_gpu, &g->util_mem, &g->util_enc, &g->util_dec };
    for (int i = 0; i < 4; i++) {
        if (percents[i]->max > 100) {
            join(sp, sizeof sp, p, ukeys[i]);
            return bad(c, sp, json_member(util, ukeys[i]), "is a percentage and must not exceed 100");
        }
    }
    if (get_counter(c, o, path, "pcieReplayCount", &g->replay) != 0) {
        return -1;
    }
    const json *pcie = object_at(c, o, path, "pcieThroughputKBps", 1, p, sizeof p);
    if (pcie == NULL) {
        return -1;
    }
    if (pcie->type == JSON_OBJECT) {
        static const char *const pkeys[] = { "tx", "rx", NULL };
        g->has_pcie_throughput = 1;
        if (check_keys(c, pcie, p, pkeys) != 0
            || get_walkable(c, pcie, p, "tx", 0, 1, &g->pcie_tx_kbps, &present) != 0
            || get_walkable(c, pcie, p, "rx", 0, 1, &g->pcie_rx_kbps, &present) != 0) {
            return -1;
        }
    }
    const json *ecc = object_at(c, o, path, "ecc", 1, p, sizeof p);
    if (ecc == NULL) {
        return -1;
    }
    if (ecc->type == JSON_OBJECT) {
        g->has_ecc = 1;
        static const char *const ekeys[] = { "volatile", "aggregate", NULL };
        if (check_keys(c, ecc, p, ekeys) != 0) {
            return -1;
        }
        for (int t = 0; t < 2; t++) { /* counter type: volatile, aggregate */
            char ep[600];
            const json *e = object_at(c, ecc, p, ekeys[t], 0, ep, sizeof ep);
            static const char *const kinds[] = { "corrected", "uncorrected", NULL };
            if (e == NULL || check_keys(c, e, ep, kinds) != 0 || get_counter(c, e, ep, "corrected", &g->ecc[0][t]) != 0
                || get_counter(c, e, ep, "uncorrected", &g->ecc[1][t]) != 0) {
                return -1;
            }
        }
    }
    const json *retired = object_at(c, o, path, "retiredPages", 1, p, sizeof p);
    if (retired == NULL) {
        return -1;
    }
    if (retired->type == JSON_OBJECT) {
        g->has_retired = 1;
        if (parse_retired(c, retired, p, g) != 0) {
            return -1;
        }
    }
    const json *rows = object_at(c, o, path, "remappedRows", 1, p, sizeof p);
    if (rows == NULL) {
        return -1;
    }
    if (rows->type == JSON_OBJECT) {
        g->has_remapped = 1;
        static const char *const rkeys[] = { "correctable", "uncorrectable", "pending", "failure", NULL };
        int pending, failure;
        if (check_keys(c, rows, p, rkeys) != 0 || get_uint(c, rows, p, "correctable", UINT_MAX, &g->remapped_corr) != 0
            || get_uint(c, rows, p, "uncorrectable", UINT_MAX, &g->remapped_unc) != 0
            || get_bool(c, rows, p, "pending", &pending) != 0 || get_bool(c, rows, p, "failure", &failure) != 0) {
            return -1;
        }
        g->remapped_pending = (unsigned) pending;
        g->remapped_failure = (unsigned) failure;
    }
    const json *viol = object_at(c, o, path, "violationNs", 1, p, sizeof p);
    if (viol == NULL) {
        return -1;
    }
    if (viol->type == JSON_OBJECT) {
        static const char *const vkeys[] = { "power", "thermal", "syncBoost", "boardLimit", "lowUtilization",
                                             "reliability", "totalAppClocks", "totalBaseClocks", NULL };
        if (check_keys(c, viol, p, vkeys) != 0) {
            return -1;
        }
        for (int i = 0; i < VIOL_COUNT; i++) {
            const json *vv = json_member(viol, vkeys[i]);
            if (vv == NULL || vv->type == JSON_NULL) {
                continue;
            }
            g->has_violation[i] = 1;
            if (get_counter(c, viol, p, vkeys[i], &g->violation[i]) != 0) {
                return -1;
            }
        }
    }
    if (get_flags(c, o, path, "clocksEventReasons", CLOCK_REASONS, &g->clock_reasons) != 0
        || get_flags(c, o, path, "supportedEvents", EVENT_TYPES, &g->events) != 0) {
        return -1;
    }
    const json *nvlink = object_at(c, o, path, "nvlink", 1, p, sizeof p);
    if (nvlink == NULL) {
        return -1;
    }
    if (nvlink->type == JSON_OBJECT) {
        g->has_nvlink = 1;
        if (parse_nvlink(c, nvlink, p, g) != 0) {
            return -1;
        }
    }
    const json *gpm = object_at(c, o, path, "gpm", 1, p, sizeof p);
    if (gpm == NULL) {
        return -1;
    }
    if (gpm->type == JSON_OBJECT) {
        g->has_gpm = 1;
        if (parse_gpm(c, gpm, p, g) != 0) {
            return -1;
        }
    }
    const json *mig = object_at(c, o, path, "mig", 1, p, sizeof p);
    if (mig == NULL) {
        return -1;
    }
    if (mig->type == JSON_OBJECT && parse_mig(c, mig, p, g) != 0) {
        return -1;
    }
    return 0;
}

/* ---- model merge and repeat ------------------------------------------------------------------------------ */

/* Merges overlay into base (both objects): objects recursively, everything else replaced. Takes no ownership. */
static int merge_into(json *base, const json *overlay) {
    for (size_t i = 0; i < overlay->as.object.count; i++) {
        const char *key = overlay->as.object.keys[i];
        const json *ov = overlay->as.object.values[i];
        json *bv = json_member(base, key);
        if (bv != NULL && bv->type == JSON_OBJECT && ov->type == JSON_OBJECT) {
            if (merge_into(bv, ov) != 0) {
                return -1;
            }
            continue;
        }
        json *copy = json_clone(ov);
        if (copy == NULL || json_set_member(base, key, copy) != 0) {
            json_free(copy);
            return -1;
        }
    }
    return 0;
}

/* Evaluates "{i...}" placeholders in s for repeat number i. Returns a malloc'd string, or NULL with why set.
 * *whole_number is set when s is exactly one placeholder without a format (the caller makes it a number). */
static char *substitute(const char *s, long long i, int *whole_number, long long *number, char *why, size_t why_size) {
    size_t cap = strlen(s) * 2 + 64;
    char *out = malloc(cap);
    if (out == NULL) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    size_t n = 0;
    int placeholders = 0, formatted = 0;
    long long last = 0;
    const char *p = s;
    while (*p != '\0') {
        if (p[0] == '{' && p[1] == 'i') {
            const char *q = p + 2;
            long long v = i;
            while (*q == '/' || *q == '%' || *q == '*' || *q == '+' || *q == '-') {
                char op = *q++;
                if (!isdigit((unsigned char) *q)) {
                    snprintf(why, why_size, "has an operator '%c' without a number in a {i...} placeholder", op);
                    free(out);
                    return NULL;
                }
                long long k = 0;
                while (isdigit((unsigned char) *q)) {
                    k = k * 10 + (*q++ - '0');
                    if (k > 1000000000) {
                        break;
                    }
                }
                if ((op == '/' || op == '%') && k == 0) {
                    snprintf(why, why_size, "divides by zero in a {i...} placeholder");
                    free(out);
                    return NULL;
                }
                switch (op) {
                case '/': v /= k; break;
                case '%': v %= k; break;
                case '*': v *= k; break;
                case '+': v += k; break;
                default: v -= k; break;
                }
            }
            char fmt[32] = "%lld";
            if (*q == ':') {
                q++;
                int zero = 0, width = 0;
                if (*q == '0') {
                    zero = 1;
                    q++;
                }
                while (isdigit((unsigned char) *q)) {
                    width = width * 10 + (*q++ - '0');
                    if (width > 32) {
                        width = 32;
                    }
                }
                char type = *q;
                if (type != 'd' && type != 'x' && type != 'X') {
                    snprintf(why, why_size, "has a {i:...} format that is not [0][width](d|x|X)");
                    free(out);
                    return NULL;
                }
                q++;
                snprintf(fmt, sizeof fmt, "%%%s%dll%c", zero ? "0" : "", width, type);
                formatted = 1;
            }
            if (*q != '}') {
                snprintf(why, why_size, "has an unterminated or malformed {i...} placeholder");
                free(out);
                return NULL;
            }
            q++;
            if (n + 40 >= cap) {
                cap = cap * 2 + 64;
                char *grown = realloc(out, cap);
                if (grown == NULL) {
                    free(out);
                    snprintf(why, why_size, "out of memory");
                    return NULL;
                }
                out = grown;
            }
            n += (size_t) snprintf(out + n, cap - n, fmt, v);
            placeholders++;
            last = v;
            p = q;
            continue;
        }
        if (n + 2 >= cap) {
            cap = cap * 2 + 64;
            char *grown = realloc(out, cap);
            if (grown == NULL) {
                free(out);
                snprintf(why, why_size, "out of memory");
                return NULL;
            }
            out = grown;
        }
        out[n++] = *p++;
    }
    out[n] = '\0';
    *whole_number = placeholders == 1 && !formatted && s[0] == '{' && s[strlen(s) - 1] == '}'
                    && strchr(s + 1, '{') == NULL;
    *number = last;
    return out;
}

static int substitute_tree(ctx *c, json *v, long long i, const char *path) {
    switch (v->type) {
    case JSON_STRING: {
        if (strstr(v->as.string.chars, "{i") == NULL) {
            return 0;
        }
        int whole;
        long long number;
        char why[160];
        char *s = substitute(v->as.string.chars, i, &whole, &number, why, sizeof why);
        if (s == NULL) {
            return bad(c, path, v, "%s", why);
        }
        free(v->as.string.chars);
        if (whole) {
            free(s);
            v->type = JSON_NUMBER;
            v->as.number.value = (double) number;
            v->as.number.is_integer = 1;
            v->as.number.integer = number;
        } else {
            v->as.string.chars = s;
            v->as.string.length = strlen(s);
        }
        return 0;
    }
    case JSON_ARRAY:
        for (size_t k = 0; k < v->as.array.count; k++) {
            char p[600];
            snprintf(p, sizeof p, "%s[%zu]", path, k);
            if (substitute_tree(c, v->as.array.items[k], i, p) != 0) {
                return -1;
            }
        }
        return 0;
    case JSON_OBJECT:
        for (size_t k = 0; k < v->as.object.count; k++) {
            char p[600];
            join(p, sizeof p, path, v->as.object.keys[k]);
            if (substitute_tree(c, v->as.object.values[k], i, p) != 0) {
                return -1;
            }
        }
        return 0;
    default:
        return 0;
    }
}

/* Builds the merged GPU object for entry (a gpus[] item) and repeat number i (or -1 without repeat). */
static json *expand_gpu(ctx *c, const json *models, const json *entry, const char *path, long long i) {
    json *own = json_clone(entry);
    if (own == NULL) {
        bad(c, path, entry, "could not be copied (out of memory)");
        return NULL;
    }
    /* drop "repeat" */
    for (size_t k = 0; k < own->as.object.count; k++) {
        if (strcmp(own->as.object.keys[k], "repeat") == 0) {
            free(own->as.object.keys[k]);
            json_free(own->as.object.values[k]);
            memmove(&own->as.object.keys[k], &own->as.object.keys[k + 1],
                    (own->as.object.count - k - 1) * sizeof(char *));
            memmove(&own->as.object.values[k], &own->as.object.values[k + 1],
                    (own->as.object.count - k - 1) * sizeof(json *));
            own->as.object.count--;
            break;
        }
    }
    if (i >= 0 && substitute_tree(c, own, i, path) != 0) {
        json_free(own);
        return NULL;
    }
    const json *model_name = json_member(own, "model");
    if (model_name == NULL) {
        return own;
    }
    char mp[600];
    join(mp, sizeof mp, path, "model");
    if (model_name->type != JSON_STRING) {
        bad(c, mp, model_name, "must be a string naming one of the profile's models");
        json_free(own);
        return NULL;
    }
    const json *model = json_member(models, model_name->as.string.chars);
    if (model == NULL || model->type != JSON_OBJECT) {
        bad(c, mp, model_name, "must name one of the profile's models");
        json_free(own);
        return NULL;
    }
    json *merged = json_clone(model);
    if (merged == NULL || merge_into(merged, own) != 0) {
        bad(c, path, entry, "could not be merged with its model (out of memory)");
        json_free(merged);
        json_free(own);
        return NULL;
    }
    json_free(own);
    return merged;
}

/* ---- the whole profile ---------------------------------------------------------------------------------- */

static int parse_node(ctx *c, const json *root, mock_node *node) {
    if (root->type != JSON_OBJECT) {
        return bad(c, "(the document)", root, "must be a JSON object");
    }
    static const char *const keys[] = { "schemaVersion", "description", "system", "walk", "nvswitches", "models",
                                        "gpus", NULL };
    if (check_keys(c, root, "", keys) != 0) {
        return -1;
    }
    long long v;
    if (get_int(c, root, "", "schemaVersion", 1, 1, &v) != 0) {
        return -1;
    }
    const json *desc = json_member(root, "description");
    if (desc != NULL && desc->type != JSON_STRING) {
        return bad(c, "description", desc, "must be a string");
    }
    char p[512];
    const json *sys = object_at(c, root, "", "system", 0, p, sizeof p);
    static const char *const skeys[] = { "driverVersion", "nvmlVersion", "cudaDriverVersion", NULL };
    int present;
    if (sys == NULL || check_keys(c, sys, p, skeys) != 0
        || get_string(c, sys, p, "driverVersion", node->driver_version, sizeof node->driver_version, 0, &present) != 0
        || get_string(c, sys, p, "nvmlVersion", node->nvml_version, sizeof node->nvml_version, 0, &present) != 0
        || get_int(c, sys, p, "cudaDriverVersion", 1000, 99990, &v) != 0) {
        return -1;
    }
    node->cuda_version = (int) v;
    const json *walk = object_at(c, root, "", "walk", 0, p, sizeof p);
    static const char *const wkeys[] = { "enabled", "seed", "stepMs", NULL };
    if (walk == NULL || check_keys(c, walk, p, wkeys) != 0 || get_bool(c, walk, p, "enabled", &node->walk_enabled) != 0
        || get_int(c, walk, p, "seed", LLONG_MIN, LLONG_MAX, &node->seed) != 0
        || get_int(c, walk, p, "stepMs", 10, 3600000, &node->step_ms) != 0) {
        return -1;
    }
    c->seed = node->seed;

    const json *switches = json_member(root, "nvswitches");
    if (switches != NULL) {
        if (switches->type != JSON_ARRAY) {
            return bad(c, "nvswitches", switches, "must be an array");
        }
        node->switch_count = (int) switches->as.array.count;
        node->switches = node->switch_count ? calloc((size_t) node->switch_count, sizeof *node->switches) : NULL;
        if (node->switch_count && node->switches == NULL) {
            return bad(c, "nvswitches", switches, "could not be stored (out of memory)");
        }
        for (int i = 0; i < node->switch_count; i++) {
            char sp[64];
            snprintf(sp, sizeof sp, "nvswitches[%d]", i);
            const json *s = switches->as.array.items[i];
            if (s->type != JSON_OBJECT) {
                return bad(c, sp, s, "must be an object");
            }
            static const char *const nkeys[] = { "busId", "deviceId", "subsystemId", NULL };
            mock_switch *ms = &node->switches[i];
            if (check_keys(c, s, sp, nkeys) != 0 || get_bus_id(c, s, sp, "busId", &ms->pci) != 0
                || get_hex32(c, s, sp, "deviceId", &ms->pci.device_id) != 0
                || get_hex32(c, s, sp, "subsystemId", &ms->pci.subsystem_id) != 0) {
                return -1;
            }
            snprintf(ms->bus_id, sizeof ms->bus_id, "%s", ms->pci.bus_id);
            for (int k = 0; k < i; k++) {
                if (strcmp(node->switches[k].bus_id, ms->bus_id) == 0) {
                    return bad(c, sp, s, "repeats the busId of nvswitches[%d]", k);
                }
            }
        }
    }
    const json *models = json_member(root, "models");
    if (models != NULL && models->type != JSON_OBJECT) {
        return bad(c, "models", models, "must be an object of named GPU models");
    }
    if (models != NULL) {
        for (size_t i = 0; i < models->as.object.count; i++) {
            if (models->as.object.values[i]->type != JSON_OBJECT) {
                char mp[600];
                join(mp, sizeof mp, "models", models->as.object.keys[i]);
                return bad(c, mp, models->as.object.values[i], "must be an object (a partial GPU)");
            }
        }
    }
    const json *gpus = member(c, root, "", "gpus", JSON_ARRAY, 0, p, sizeof p);
    if (gpus == NULL) {
        return -1;
    }
    /* count GPUs after repeat */
    long long total = 0;
    for (size_t k = 0; k < gpus->as.array.count; k++) {
        const json *entry = gpus->as.array.items[k];
        char ep[64];
        snprintf(ep, sizeof ep, "gpus[%zu]", k);
        if (entry->type != JSON_OBJECT) {
            return bad(c, ep, entry, "must be an object");
        }
        const json *repeat = json_member(entry, "repeat");
        if (repeat == NULL) {
            total++;
            continue;
        }
        long long r;
        if (get_int(c, entry, ep, "repeat", 1, MOCK_MAX_GPUS, &r) != 0) {
            return -1;
        }
        total += r;
    }
    if (total > MOCK_MAX_GPUS) {
        return bad(c, "gpus", gpus, "must describe at most %d GPUs (it describes %lld)", MOCK_MAX_GPUS, total);
    }
    node->gpus = total ? calloc((size_t) total, sizeof *node->gpus) : NULL;
    if (total && node->gpus == NULL) {
        return bad(c, "gpus", gpus, "could not be stored (out of memory)");
    }
    for (size_t k = 0; k < gpus->as.array.count; k++) {
        const json *entry = gpus->as.array.items[k];
        const json *repeat = json_member(entry, "repeat");
        long long count = repeat ? repeat->as.number.integer : 1;
        for (long long i = 0; i < count; i++) {
            char gp[96];
            if (repeat) {
                snprintf(gp, sizeof gp, "gpus[%zu] (repeat %lld)", k, i);
            } else {
                snprintf(gp, sizeof gp, "gpus[%zu]", k);
            }
            json *merged = expand_gpu(c, models, entry, gp, repeat ? i : -1);
            if (merged == NULL) {
                return -1;
            }
            int rc = parse_gpu(c, merged, gp, node->gpu_count, &node->gpus[node->gpu_count]);
            json_free(merged);
            node->gpu_count++;
            if (rc != 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* Cross-GPU checks and NVLink endpoint resolution. */
static int check_node(ctx *c, mock_node *node) {
    for (int i = 0; i < node->gpu_count; i++) {
        mock_gpu *g = &node->gpus[i];
        for (int k = 0; k < i; k++) {
            mock_gpu *o = &node->gpus[k];
            if (strcasecmp(g->uuid, o->uuid) == 0) {
                snprintf(c->err, c->err_size, "%s: GPUs %d and %d have the same uuid %s", c->file, k, i, g->uuid);
                c->failed = 1;
                return -1;
            }
            if (strcmp(g->pci.bus_id, o->pci.bus_id) == 0) {
                snprintf(c->err, c->err_size, "%s: GPUs %d and %d have the same pci.busId %s", c->file, k, i,
                         g->pci.bus_id);
                c->failed = 1;
                return -1;
            }
            if (g->minor == o->minor) {
                snprintf(c->err, c->err_size, "%s: GPUs %d and %d have the same minorNumber %u", c->file, k, i,
                         g->minor);
                c->failed = 1;
                return -1;
            }
        }
        for (int s = 0; s < node->switch_count; s++) {
            if (strcmp(node->switches[s].bus_id, g->pci.bus_id) == 0) {
                snprintf(c->err, c->err_size, "%s: GPU %d's pci.busId %s is also an NVSwitch's", c->file, i,
                         g->pci.bus_id);
                c->failed = 1;
                return -1;
            }
        }
        for (int m = 0; m < g->mig.device_count; m++) {
            const char *u = g->mig.devices[m].uuid;
            for (int k = 0; k <= i; k++) {
                const mock_gpu *o = &node->gpus[k];
                int limit = k == i ? m : o->mig.device_count;
                for (int n = 0; n < limit; n++) {
                    if (strcasecmp(o->mig.devices[n].uuid, u) == 0) {
                        snprintf(c->err, c->err_size, "%s: MIG UUID %s appears twice (GPU %d and GPU %d)", c->file, u,
                                 k, i);
                        c->failed = 1;
                        return -1;
                    }
                }
            }
        }
    }
    for (int i = 0; i < node->gpu_count; i++) {
        mock_gpu *g = &node->gpus[i];
        for (int l = 0; l < g->link_count; l++) {
            nvlink_link *link = &g->links[l];
            if (!link->active) {
                continue;
            }
            for (int k = 0; k < node->gpu_count; k++) {
                if (strcmp(node->gpus[k].pci.bus_id, link->remote) == 0) {
                    link->remote_gpu = k;
                }
            }
            for (int s = 0; s < node->switch_count; s++) {
                if (strcmp(node->switches[s].bus_id, link->remote) == 0) {
                    link->remote_switch = s;
                }
            }
            if (link->remote_gpu == i) {
                snprintf(c->err, c->err_size, "%s: GPU %d's nvlink.links[%d] was '%s' but it must not be the GPU itself",
                         c->file, i, l, link->remote);
                c->failed = 1;
                return -1;
            }
            if (link->remote_gpu < 0 && link->remote_switch < 0) {
                snprintf(c->err, c->err_size,
                         "%s: GPU %d's nvlink.links[%d] was '%s' but it must be the bus id of a GPU or of one of nvswitches",
                         c->file, i, l, link->remote);
                c->failed = 1;
                return -1;
            }
        }
    }
    return 0;
}

mock_node *profile_load(const char *path, char *err, size_t err_size) {
    ctx c = { path, err, err_size, 0, 0 };
    err[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_size, "%s: cannot be read: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "%s: is not a regular file", path);
        fclose(f);
        return NULL;
    }
    if (st.st_size > MAX_PROFILE_BYTES) {
        snprintf(err, err_size, "%s: is larger than %ld bytes", path, MAX_PROFILE_BYTES);
        fclose(f);
        return NULL;
    }
    size_t size = (size_t) st.st_size;
    char *text = malloc(size + 1);
    if (text == NULL) {
        snprintf(err, err_size, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    size_t got = fread(text, 1, size, f);
    int read_error = ferror(f);
    fclose(f);
    if (read_error || got != size) {
        snprintf(err, err_size, "%s: could not be read completely", path);
        free(text);
        return NULL;
    }
    text[size] = '\0';
    char jerr[512];
    json *root = json_parse(text, size, jerr, sizeof jerr);
    free(text);
    if (root == NULL) {
        snprintf(err, err_size, "%s: is not valid JSON: %s", path, jerr);
        return NULL;
    }
    mock_node *node = calloc(1, sizeof *node);
    if (node == NULL) {
        json_free(root);
        snprintf(err, err_size, "%s: out of memory", path);
        return NULL;
    }
    snprintf(node->path, sizeof node->path, "%s", path);
    int rc = parse_node(&c, root, node);
    json_free(root);
    if (rc == 0) {
        rc = check_node(&c, node);
    }
    if (rc != 0) {
        profile_free(node);
        return NULL;
    }
    return node;
}

void profile_free(mock_node *node) {
    if (node == NULL) {
        return;
    }
    for (int i = 0; i < node->gpu_count; i++) {
        free(node->gpus[i].retired[0]);
        free(node->gpus[i].retired[1]);
    }
    free(node->gpus);
    free(node->switches);
    free(node);
}

int profile_same_devices(const mock_node *a, const mock_node *b) {
    if (a == NULL || b == NULL || a->gpu_count != b->gpu_count) {
        return 0;
    }
    for (int i = 0; i < a->gpu_count; i++) {
        const mock_gpu *x = &a->gpus[i], *y = &b->gpus[i];
        if (strcmp(x->uuid, y->uuid) != 0 || x->mig.device_count != y->mig.device_count
            || x->mig.gi_count != y->mig.gi_count) {
            return 0;
        }
        for (int m = 0; m < x->mig.device_count; m++) {
            if (strcmp(x->mig.devices[m].uuid, y->mig.devices[m].uuid) != 0) {
                return 0;
            }
        }
        for (int k = 0; k < x->mig.gi_count; k++) {
            if (x->mig.gis[k].id != y->mig.gis[k].id) {
                return 0;
            }
        }
    }
    return 1;
}
