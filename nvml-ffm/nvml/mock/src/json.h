/*
 * A small strict JSON parser (RFC 8259) for the mock's profiles: a tree of nodes that remember their line and
 * column, so profile errors can say where they are. No external libraries.
 */
#ifndef MOCK_JSON_H
#define MOCK_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json json;

struct json {
    json_type type;
    int line;
    int column;
    union {
        int boolean;
        struct {
            double value;
            int is_integer;      /* written without fraction or exponent and fits in long long */
            long long integer;
        } number;
        struct {
            char *chars;         /* NUL-terminated UTF-8; JSON's \u0000 is rejected */
            size_t length;
        } string;
        struct {
            json **items;
            size_t count;
        } array;
        struct {
            char **keys;
            json **values;
            size_t count;
        } object;
    } as;
};

/* Parses text; on error returns NULL and writes "line L column C: what" into err. */
json *json_parse(const char *text, size_t length, char *err, size_t err_size);

void json_free(json *value);

/* A deep copy, or NULL when out of memory. */
json *json_clone(const json *value);

/* The member named key of an object, or NULL (also when value is not an object). */
json *json_member(const json *object, const char *key);

/* Sets (replacing or appending) a member of an object; takes ownership of member. 0 ok, -1 out of memory. */
int json_set_member(json *object, const char *key, json *member);

/* Writes a short JSON rendering of value (truncated with "...") for error messages. */
void json_render(const json *value, char *out, size_t out_size);

const char *json_type_name(json_type type);

#endif
