/*
 * Strict JSON parser for the mock's profiles (see json.h).
 */
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

typedef struct {
    const char *text;
    size_t length;
    size_t pos;
    int line;
    size_t line_start;
    char *err;
    size_t err_size;
    int failed;
} parser;

static void fail_at(parser *p, size_t pos, const char *fmt, ...) {
    if (p->failed) {
        return;
    }
    p->failed = 1;
    /* recompute line/column of pos (pos >= line_start in all callers, but be safe) */
    int line = 1;
    size_t start = 0;
    for (size_t i = 0; i < pos && i < p->length; i++) {
        if (p->text[i] == '\n') {
            line++;
            start = i + 1;
        }
    }
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->err_size, "line %d column %zu: %s", line, pos - start + 1, what);
}

static json *new_node(parser *p, json_type type, size_t pos) {
    json *node = calloc(1, sizeof *node);
    if (node == NULL) {
        fail_at(p, pos, "out of memory");
        return NULL;
    }
    node->type = type;
    /* strings cannot hold raw newlines, so the line tracked by skip_ws is the line of pos */
    node->line = p->line;
    node->column = (int) (pos - p->line_start + 1);
    return node;
}

static void skip_ws(parser *p) {
    while (p->pos < p->length) {
        char c = p->text[p->pos];
        if (c == '\n') {
            p->line++;
            p->pos++;
            p->line_start = p->pos;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            p->pos++;
        } else {
            break;
        }
    }
}

static json *parse_value(parser *p, int depth);

static int hex4(parser *p, unsigned *out) {
    if (p->pos + 4 > p->length) {
        fail_at(p, p->pos, "truncated \\u escape");
        return -1;
    }
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->text[p->pos + (size_t) i];
        v <<= 4;
        if (c >= '0' && c <= '9') {
            v |= (unsigned) (c - '0');
        } else if (c >= 'a' && c <= 'f') {
            v |= (unsigned) (c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            v |= (unsigned) (c - 'A' + 10);
        } else {
            fail_at(p, p->pos + (size_t) i, "bad hex digit '%c' in \\u escape", c);
            return -1;
        }
    }
    p->pos += 4;
    *out = v;
    return 0;
}

static int put_utf8(char *buf, size_t *n, unsigned cp) {
    if (cp < 0x80) {
        buf[(*n)++] = (char) cp;
    } else if (cp < 0x800) {
        buf[(*n)++] = (char) (0xC0 | (cp >> 6));
        buf[(*n)++] = (char) (0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        buf[(*n)++] = (char) (0xE0 | (cp >> 12));
        buf[(*n)++] = (char) (0x80 | ((cp >> 6) & 0x3F));
        buf[(*n)++] = (char) (0x80 | (cp & 0x3F));
    } else {
        buf[(*n)++] = (char) (0xF0 | (cp >> 18));
        buf[(*n)++] = (char) (0x80 | ((cp >> 12) & 0x3F));
        buf[(*n)++] = (char) (0x80 | ((cp >> 6) & 0x3F));
        buf[(*n)++] = (char) (0x80 | (cp & 0x3F));
    }
    return 0;
}

/* Parses a string starting at the opening quote; returns a malloc'd NUL-terminated copy. */
static char *parse_string_raw(parser *p, size_t *out_len) {
    size_t start = p->pos;
    p->pos++; /* opening quote */
    /* decoded output is never longer than the source */
    size_t cap;
    size_t scan = p->pos;
    while (scan < p->length && p->text[scan] != '"') {
        if (p->text[scan] == '\\') {
            scan++;
        }
        scan++;
    }
    cap = scan - p->pos + 1;
    char *buf = malloc(cap);
    if (buf == NULL) {
        fail_at(p, start, "out of memory");
        return NULL;
    }
    size_t n = 0;
    for (;;) {
        if (p->pos >= p->length) {
            fail_at(p, start, "string is not terminated");
            free(buf);
            return NULL;
        }
        unsigned char c = (unsigned char) p->text[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            fail_at(p, p->pos, "control character 0x%02x in string (escape it)", c);
            free(buf);
            return NULL;
        }
        if (c != '\\') {
            buf[n++] = (char) c;
            p->pos++;
            continue;
        }
        p->pos++;
        if (p->pos >= p->length) {
            fail_at(p, start, "string is not terminated");
            free(buf);
            return NULL;
        }
        char e = p->text[p->pos++];
        switch (e) {
        case '"': buf[n++] = '"'; break;
        case '\\': buf[n++] = '\\'; break;
        case '/': buf[n++] = '/'; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (hex4(p, &cp) != 0) {
                free(buf);
                return NULL;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (p->pos + 2 > p->length || p->text[p->pos] != '\\' || p->text[p->pos + 1] != 'u') {
                    fail_at(p, p->pos, "high surrogate \\u%04x without a low surrogate", cp);
                    free(buf);
                    return NULL;
                }
                p->pos += 2;
                if (hex4(p, &lo) != 0) {
                    free(buf);
                    return NULL;
                }
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    fail_at(p, p->pos - 6, "\\u%04x is not a low surrogate", lo);
                    free(buf);
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                fail_at(p, p->pos - 6, "lone low surrogate \\u%04x", cp);
                free(buf);
                return NULL;
            }
            if (cp == 0) {
                fail_at(p, p->pos - 6, "\\u0000 is not allowed in profile strings");
                free(buf);
                return NULL;
            }
            put_utf8(buf, &n, cp);
            break;
        }
        default:
            fail_at(p, p->pos - 1, "bad escape '\\%c'", e);
            free(buf);
            return NULL;
        }
    }
    buf[n] = '\0';
    *out_len = n;
    return buf;
}

static json *parse_number(parser *p) {
    size_t start = p->pos;
    const char *t = p->text;
    size_t i = p->pos;
    int integral = 1;
    if (i < p->length && t[i] == '-') {
        i++;
    }
    if (i >= p->length) {
        fail_at(p, start, "number has no digits");
        return NULL;
    }
    if (t[i] == '0') {
        i++;
    } else if (t[i] >= '1' && t[i] <= '9') {
        while (i < p->length && t[i] >= '0' && t[i] <= '9') {
            i++;
        }
    } else {
        fail_at(p, start, "number has no digits");
        return NULL;
    }
    if (i < p->length && t[i] == '.') {
        integral = 0;
        i++;
        if (i >= p->length || t[i] < '0' || t[i] > '9') {
            fail_at(p, i, "digit expected after '.'");
            return NULL;
        }
        while (i < p->length && t[i] >= '0' && t[i] <= '9') {
            i++;
        }
    }
    if (i < p->length && (t[i] == 'e' || t[i] == 'E')) {
        integral = 0;
        i++;
        if (i < p->length && (t[i] == '+' || t[i] == '-')) {
            i++;
        }
        if (i >= p->length || t[i] < '0' || t[i] > '9') {
            fail_at(p, i, "digit expected in exponent");
            return NULL;
        }
        while (i < p->length && t[i] >= '0' && t[i] <= '9') {
            i++;
        }
    }
    size_t len = i - start;
    char tmp[64];
    if (len >= sizeof tmp) {
        fail_at(p, start, "number is too long");
        return NULL;
    }
    memcpy(tmp, t + start, len);
    tmp[len] = '\0';
    json *node = new_node(p, JSON_NUMBER, start);
    if (node == NULL) {
        return NULL;
    }
    errno = 0;
    node->as.number.value = strtod(tmp, NULL);
    if (integral) {
        errno = 0;
        long long v = strtoll(tmp, NULL, 10);
        if (errno == 0) {
            node->as.number.is_integer = 1;
            node->as.number.integer = v;
        }
    }
    p->pos = i;
    return node;
}

static int literal(parser *p, const char *word) {
    size_t n = strlen(word);
    if (p->pos + n <= p->length && memcmp(p->text + p->pos, word, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

static json *parse_array(parser *p, int depth) {
    json *node = new_node(p, JSON_ARRAY, p->pos);
    if (node == NULL) {
        return NULL;
    }
    p->pos++; /* [ */
    skip_ws(p);
    if (p->pos < p->length && p->text[p->pos] == ']') {
        p->pos++;
        return node;
    }
    size_t cap = 0;
    for (;;) {
        json *item = parse_value(p, depth + 1);
        if (item == NULL) {
            json_free(node);
            return NULL;
        }
        if (node->as.array.count == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            json **items = realloc(node->as.array.items, ncap * sizeof *items);
            if (items == NULL) {
                json_free(item);
                json_free(node);
                fail_at(p, p->pos, "out of memory");
                return NULL;
            }
            node->as.array.items = items;
            cap = ncap;
        }
        node->as.array.items[node->as.array.count++] = item;
        skip_ws(p);
        if (p->pos >= p->length) {
            fail_at(p, p->pos, "array is not closed");
            json_free(node);
            return NULL;
        }
        char c = p->text[p->pos];
        if (c == ',') {
            p->pos++;
            continue;
        }
        if (c == ']') {
            p->pos++;
            return node;
        }
        fail_at(p, p->pos, "',' or ']' expected in array, found '%c'", c);
        json_free(node);
        return NULL;
    }
}

static json *parse_object(parser *p, int depth) {
    json *node = new_node(p, JSON_OBJECT, p->pos);
    if (node == NULL) {
        return NULL;
    }
    p->pos++; /* { */
    skip_ws(p);
    if (p->pos < p->length && p->text[p->pos] == '}') {
        p->pos++;
        return node;
    }
    size_t cap = 0;
    for (;;) {
        skip_ws(p);
        if (p->pos >= p->length || p->text[p->pos] != '"') {
            fail_at(p, p->pos, "object key (a string) expected");
            json_free(node);
            return NULL;
        }
        size_t key_pos = p->pos;
        size_t key_len;
        char *key = parse_string_raw(p, &key_len);
        if (key == NULL) {
            json_free(node);
            return NULL;
        }
        if (json_member(node, key) != NULL) {
            fail_at(p, key_pos, "duplicate key \"%s\"", key);
            free(key);
            json_free(node);
            return NULL;
        }
        skip_ws(p);
        if (p->pos >= p->length || p->text[p->pos] != ':') {
            fail_at(p, p->pos, "':' expected after key \"%s\"", key);
            free(key);
            json_free(node);
            return NULL;
        }
        p->pos++;
        json *value = parse_value(p, depth + 1);
        if (value == NULL) {
            free(key);
            json_free(node);
            return NULL;
        }
        if (node->as.object.count == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            char **keys = realloc(node->as.object.keys, ncap * sizeof *keys);
            if (keys != NULL) {
                node->as.object.keys = keys;
            }
            json **values = keys ? realloc(node->as.object.values, ncap * sizeof *values) : NULL;
            if (values == NULL) {
                free(key);
                json_free(value);
                json_free(node);
                fail_at(p, p->pos, "out of memory");
                return NULL;
            }
            node->as.object.values = values;
            cap = ncap;
        }
        node->as.object.keys[node->as.object.count] = key;
        node->as.object.values[node->as.object.count] = value;
        node->as.object.count++;
        skip_ws(p);
        if (p->pos >= p->length) {
            fail_at(p, p->pos, "object is not closed");
            json_free(node);
            return NULL;
        }
        char c = p->text[p->pos];
        if (c == ',') {
            p->pos++;
            continue;
        }
        if (c == '}') {
            p->pos++;
            return node;
        }
        fail_at(p, p->pos, "',' or '}' expected in object, found '%c'", c);
        json_free(node);
        return NULL;
    }
}

static json *parse_value(parser *p, int depth) {
    if (depth > JSON_MAX_DEPTH) {
        fail_at(p, p->pos, "nested deeper than %d levels", JSON_MAX_DEPTH);
        return NULL;
    }
    skip_ws(p);
    if (p->pos >= p->length) {
        fail_at(p, p->pos, "value expected, found the end of the file");
        return NULL;
    }
    char c = p->text[p->pos];
    size_t start = p->pos;
    switch (c) {
    case '{':
        return parse_object(p, depth);
    case '[':
        return parse_array(p, depth);
    case '"': {
        json *node = new_node(p, JSON_STRING, start);
        if (node == NULL) {
            return NULL;
        }
        node->as.string.chars = parse_string_raw(p, &node->as.string.length);
        if (node->as.string.chars == NULL) {
            free(node);
            return NULL;
        }
        return node;
    }
    case 't':
    case 'f':
    case 'n':
        if (literal(p, "true") || literal(p, "false")) {
            json *node = new_node(p, JSON_BOOL, start);
            if (node != NULL) {
                node->as.boolean = c == 't';
            }
            return node;
        }
        if (literal(p, "null")) {
            return new_node(p, JSON_NULL, start);
        }
        break;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            return parse_number(p);
        }
        break;
    }
    fail_at(p, start, "unexpected character '%c'", c);
    return NULL;
}

json *json_parse(const char *text, size_t length, char *err, size_t err_size) {
    parser p = { text, length, 0, 1, 0, err, err_size, 0 };
    if (err_size > 0) {
        err[0] = '\0';
    }
    if (length >= 3 && (unsigned char) text[0] == 0xEF && (unsigned char) text[1] == 0xBB
        && (unsigned char) text[2] == 0xBF) {
        p.pos = 3; /* UTF-8 byte order mark */
    }
    json *root = parse_value(&p, 0);
    if (root == NULL) {
        return NULL;
    }
    skip_ws(&p);
    if (p.pos < p.length) {
        fail_at(&p, p.pos, "unexpected '%c' after the JSON value", p.text[p.pos]);
        json_free(root);
        return NULL;
    }
    return root;
}

void json_free(json *value) {
    if (value == NULL) {
        return;
    }
    switch (value->type) {
    case JSON_STRING:
        free(value->as.string.chars);
        break;
    case JSON_ARRAY:
        for (size_t i = 0; i < value->as.array.count; i++) {
            json_free(value->as.array.items[i]);
        }
        free(value->as.array.items);
        break;
    case JSON_OBJECT:
        for (size_t i = 0; i < value->as.object.count; i++) {
            free(value->as.object.keys[i]);
            json_free(value->as.object.values[i]);
        }
        free(value->as.object.keys);
        free(value->as.object.values);
        break;
    default:
        break;
    }
    free(value);
}

json *json_clone(const json *value) {
    json *copy = calloc(1, sizeof *copy);
    if (copy == NULL) {
        return NULL;
    }
    *copy = *value;
    switch (value->type) {
    case JSON_STRING:
        copy->as.string.chars = malloc(value->as.string.length + 1);
        if (copy->as.string.chars == NULL) {
            free(copy);
            return NULL;
        }
        memcpy(copy->as.string.chars, value->as.string.chars, value->as.string.length + 1);
        break;
    case JSON_ARRAY: {
        size_t n = value->as.array.count;
        copy->as.array.items = n ? calloc(n, sizeof(json *)) : NULL;
        copy->as.array.count = 0;
        if (n && copy->as.array.items == NULL) {
            free(copy);
            return NULL;
        }
        for (size_t i = 0; i < n; i++) {
            json *item = json_clone(value->as.array.items[i]);
            if (item == NULL) {
                json_free(copy);
                return NULL;
            }
            copy->as.array.items[copy->as.array.count++] = item;
        }
        break;
    }
    case JSON_OBJECT: {
        size_t n = value->as.object.count;
        copy->as.object.keys = n ? calloc(n, sizeof(char *)) : NULL;
        copy->as.object.values = n ? calloc(n, sizeof(json *)) : NULL;
        copy->as.object.count = 0;
        if (n && (copy->as.object.keys == NULL || copy->as.object.values == NULL)) {
            free(copy->as.object.keys);
            free(copy->as.object.values);
            free(copy);
            return NULL;
        }
        for (size_t i = 0; i < n; i++) {
            char *key = strdup(value->as.object.keys[i]);
            json *member = key ? json_clone(value->as.object.values[i]) : NULL;
            if (member == NULL) {
                free(key);
                json_free(copy);
                return NULL;
            }
            copy->as.object.keys[copy->as.object.count] = key;
            copy->as.object.values[copy->as.object.count] = member;
            copy->as.object.count++;
        }
        break;
    }
    default:
        break;
    }
    return copy;
}

json *json_member(const json *object, const char *key) {
    if (object == NULL || object->type != JSON_OBJECT) {
        return NULL;
    }
    for (size_t i = 0; i < object->as.object.count; i++) {
        if (strcmp(object->as.object.keys[i], key) == 0) {
            return object->as.object.values[i];
        }
    }
    return NULL;
}

int json_set_member(json *object, const char *key, json *member) {
    for (size_t i = 0; i < object->as.object.count; i++) {
        if (strcmp(object->as.object.keys[i], key) == 0) {
            json_free(object->as.object.values[i]);
            object->as.object.values[i] = member;
            return 0;
        }
    }
    size_t n = object->as.object.count + 1;
    char *copy = strdup(key);
    char **keys = copy ? realloc(object->as.object.keys, n * sizeof *keys) : NULL;
    if (keys == NULL) {
        free(copy);
        return -1;
    }
    object->as.object.keys = keys;
    json **values = realloc(object->as.object.values, n * sizeof *values);
    if (values == NULL) {
        free(copy);
        return -1;
    }
    object->as.object.values = values;
    keys[n - 1] = copy;
    values[n - 1] = member;
    object->as.object.count = n;
    return 0;
}

static void render(const json *v, char *out, size_t size, size_t *n) {
    if (*n + 1 >= size) {
        return;
    }
    char tmp[64];
    const char *s = tmp;
    switch (v->type) {
    case JSON_NULL: s = "null"; break;
    case JSON_BOOL: s = v->as.boolean ? "true" : "false"; break;
    case JSON_NUMBER:
        if (v->as.number.is_integer) {
            snprintf(tmp, sizeof tmp, "%lld", v->as.number.integer);
        } else {
            snprintf(tmp, sizeof tmp, "%.17g", v->as.number.value);
        }
        break;
    case JSON_STRING:
        *n += (size_t) snprintf(out + *n, size - *n, "%s", v->as.string.chars);
        if (*n >= size) {
            *n = size - 1;
        }
        return;
    case JSON_ARRAY:
        *n += (size_t) snprintf(out + *n, size - *n, "[");
        for (size_t i = 0; i < v->as.array.count && *n + 1 < size; i++) {
            if (i) {
                *n += (size_t) snprintf(out + *n, size - *n, ", ");
            }
            if (*n + 1 < size) {
                const json *item = v->as.array.items[i];
                if (item->type == JSON_STRING) {
                    *n += (size_t) snprintf(out + *n, size - *n, "\"");
                }
                if (*n + 1 < size) {
                    render(item, out, size, n);
                }
                if (item->type == JSON_STRING && *n + 1 < size) {
                    *n += (size_t) snprintf(out + *n, size - *n, "\"");
                }
            }
        }
        if (*n + 1 < size) {
            *n += (size_t) snprintf(out + *n, size - *n, "]");
        }
        if (*n >= size) {
            *n = size - 1;
        }
        return;
    case JSON_OBJECT:
        s = v->as.object.count ? "{...}" : "{}";
        break;
    }
    *n += (size_t) snprintf(out + *n, size - *n, "%s", s);
    if (*n >= size) {
        *n = size - 1;
    }
}

void json_render(const json *value, char *out, size_t out_size) {
    if (out_size == 0) {
        return;
    }
    out[0] = '\0';
    if (value == NULL) {
        snprintf(out, out_size, "(missing)");
        return;
    }
    char buf[200];
    size_t n = 0;
    render(value, buf, sizeof buf, &n);
    buf[n] = '\0';
    if (n >= 80) {
        memcpy(buf + 76, "...", 4);
    }
    snprintf(out, out_size, "%s", buf);
}

const char *json_type_name(json_type type) {
    switch (type) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return "a boolean";
    case JSON_NUMBER: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    case JSON_OBJECT: return "an object";
    }
    return "unknown";
}
