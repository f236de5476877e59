/* The per-line facts of a plain ASCII monitor log in one pass over its bytes (see monitor_scan.py).
 *
 * Plain C, no Python API: built by setuptools as an optional extension and called through ctypes
 * (which releases the GIL, so parts of a file are scanned in threads at once). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int64_t tl_newlines(const uint8_t *buf, int64_t lo, int64_t hi) {
    int64_t n = 0;
    const uint8_t *p = buf + lo, *end = buf + hi;
    while (p < end) {
        const uint8_t *q = memchr(p, '\n', (size_t)(end - p));
        if (!q) break;
        n++;
        p = q + 1;
    }
    return n;
}

/* Polars' cast of a text to Int64: an optional sign, then one or more digits, within int64. */
static int parse_int64(const uint8_t *s, int64_t len, int64_t *out) {
    int neg = 0;
    if (len <= 0) return 0;
    if (*s == '-' || *s == '+') {
        neg = *s == '-';
        s++;
        len--;
        if (len <= 0) return 0;
    }
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX, mag = 0;
    for (int64_t j = 0; j < len; j++) {
        unsigned d = (unsigned)s[j] - '0';
        if (d > 9 || mag > (limit - d) / 10) return 0;
        mag = mag * 10 + d;
    }
    *out = neg ? (mag ? -(int64_t)(mag - 1) - 1 : 0) : (int64_t)mag;
    return 1;
}

/* Index of the pattern (rows of a padded matrix) equal to s[0:len], else -1. */
static int64_t find_equal(const uint8_t *s, int64_t len, const uint8_t *pat, const int64_t *plen, int64_t np,
                          int64_t width) {
    for (int64_t k = 0; k < np; k++) {
        const uint8_t *p = pat + k * width;
        if (plen[k] == len && p[0] == s[0] && memcmp(s, p, (size_t)len) == 0) return k;
    }
    return -1;
}

static int starts_with_any(const uint8_t *s, int64_t len, const uint8_t *pat, const int64_t *plen, int64_t np,
                           int64_t width) {
    for (int64_t k = 0; k < np; k++) {
        const uint8_t *p = pat + k * width;
        if (plen[k] <= len && p[0] == s[0] && memcmp(s, p, (size_t)plen[k]) == 0) return 1;
    }
    return 0;
}

/* Whether s[0:len] holds a whitespace byte other than the space (\t \n \v \f \r): no early exit, so that the
 * compiler vectorises it. */
static int other_space(const uint8_t *s, int64_t len) {
    uint8_t any = 0;
    for (int64_t j = 0; j < len; j++) any |= (uint8_t)(s[j] - '\t') < 5;
    return any;
}

/* A kubectl top row's fields, as the regex ^(\S+) +(\S+) +(\S+)(?: +(\S+))?$ reads them (ASCII): start and
 * length of the pod, container (length 0: none, a row of three fields), CPU and memory; all 0 when the line is
 * not one (a field is never empty).  Lines longer than 65535 bytes: pod length 0 and start 65535 (not read). */
static void top_fields(const uint8_t *s, int64_t len, uint16_t *f) {
    int64_t start[4], end[4], nf = 0, j = 0;
    memset(f, 0, 8 * sizeof *f);
    if (len > 65535) {
        f[0] = 65535;
        return;
    }
    if (s[0] == ' ' || s[len - 1] == ' ' || other_space(s, len)) return;  /* fields are split by spaces only */
    while (j < len) {
        if (nf == 4) return;  /* a fifth field */
        const uint8_t *sp = memchr(s + j, ' ', (size_t)(len - j));
        start[nf] = j;
        end[nf++] = j = sp ? sp - s : len;
        while (j < len && s[j] == ' ') j++;
    }
    if (nf < 3) return;
    int four = nf == 4, c = four ? 2 : 1;
    f[0] = (uint16_t)start[0], f[1] = (uint16_t)(end[0] - start[0]);
    if (four) f[2] = (uint16_t)start[1], f[3] = (uint16_t)(end[1] - start[1]);
    f[4] = (uint16_t)start[c], f[5] = (uint16_t)(end[c] - start[c]);
    f[6] = (uint16_t)start[c + 1], f[7] = (uint16_t)(end[c + 1] - start[c + 1]);
}

/* The n lines of buf[lo:hi] (the last may lack its newline).  Per line: blank (1/0), key (index in keys, else
 * no_key; the text before the first space, the whole line without one), val (the text after the first space as
 * Int64, else -1), marker (1 + index in markers of a line equal to one, else 0).  The lines that are neither
 * good key value lines (a key and val >= 0) nor markers nor blank are kept: their indices in kept_i, their bits
 * (bit_long, bit_hdr, bit_loghdr, bit_odd) in kept_f, their bytes one after another in text, where kept line k
 * ends at ends[k] (so ends[-1] = 0 must be room for the start).  out: the number kept, the bytes in text, the
 * bytes of all lines (without their newlines).  top: 8 numbers per kept line, its fields as a kubectl top row
 * (top_fields). */
void tl_scan(const uint8_t *buf, int64_t lo, int64_t hi, int64_t n,
             const uint8_t *keys, const int64_t *key_len, int64_t nkeys, int64_t key_width,
             const uint8_t *markers, const int64_t *marker_len, int64_t nmarkers, int64_t marker_width,
             const uint8_t *heads, const int64_t *head_len, int64_t nheads, int64_t head_width,
             int64_t long_limit, uint8_t no_key, uint8_t bit_long, uint8_t bit_hdr, uint8_t bit_loghdr,
             uint8_t bit_odd,
             uint8_t *blank, uint8_t *key, int64_t *val, int8_t *marker,
             uint32_t *kept_i, uint8_t *kept_f, uint8_t *text, int64_t *ends, uint16_t *top, int64_t *out) {
    int64_t nk = 0, m = 0, size = 0, start = lo;
    ends[-1] = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *s = buf + start;
        const uint8_t *nl = memchr(s, '\n', (size_t)(hi - start));
        int64_t len = nl ? nl - s : hi - start;
        size += len;
        blank[i] = len == 0;
        key[i] = no_key;
        val[i] = -1;
        marker[i] = 0;
        if (len > 0) {
            const uint8_t *sp = memchr(s, ' ', (size_t)len);
            int64_t first = sp ? sp - s : len;
            int64_t k = find_equal(s, first, keys, key_len, nkeys, key_width);
            if (k >= 0) key[i] = (uint8_t)k;
            if (sp && !parse_int64(sp + 1, len - first - 1, &val[i])) val[i] = -1;
            int good = k >= 0 && val[i] >= 0;
            int is_marker = 0;
            if (!good && s[0] == '[') {
                int64_t j = find_equal(s, len, markers, marker_len, nmarkers, marker_width);
                if (j >= 0) {
                    marker[i] = (int8_t)(j + 1);
                    is_marker = 1;
                }
            }
            if (!good && !is_marker) {
                uint8_t f = 0;
                if (len > long_limit) f |= bit_long;
                if (len >= 4 && memcmp(s, "--- ", 4) == 0 && memcmp(s + len - 4, " ---", 4) == 0) f |= bit_hdr;
                if (starts_with_any(s, len, heads, head_len, nheads, head_width)) f |= bit_loghdr;
                if (s[0] == '[' && s[len - 1] == ']') f |= bit_odd;
                kept_i[nk] = (uint32_t)i;
                kept_f[nk] = f;
                top_fields(s, len, top + 8 * nk);
                nk++;
                memcpy(text + m, s, (size_t)len);
                m += len;
                ends[nk - 1] = m;
            }
        }
        start += len + 1;
    }
    out[0] = nk;
    out[1] = m;
    out[2] = size;
}

/* The Arrow C data interface (arrow.apache.org/docs/format/CDataInterface.html): the kept texts handed to polars
 * as a large UTF-8 array without a copy; its buffers are freed by the array's release, whoever calls it. */
struct ArrowSchema {
    const char *format, *name, *metadata;
    int64_t flags, n_children;
    struct ArrowSchema **children, *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length, null_count, offset, n_buffers, n_children;
    const void **buffers;
    struct ArrowArray **children, *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

void *tl_malloc(int64_t size) { return malloc(size > 0 ? (size_t)size : 1); }

void tl_free(void *p) { free(p); }

static void release_schema(struct ArrowSchema *schema) { schema->release = NULL; }

static void release_array(struct ArrowArray *array) {
    const void **buffers = array->buffers;
    free((void *)buffers[1]);
    free((void *)buffers[2]);
    free(buffers);
    array->release = NULL;
}

/* n texts: their bytes in text (m of them, malloc'ed by tl_malloc) and offsets[0..n] (malloc'ed, offsets[0] = 0)
 * -> a large UTF-8 Arrow array owning both (the text buffer shrunk to m bytes). */
void tl_export_texts(uint8_t *text, int64_t m, int64_t *offsets, int64_t n, struct ArrowSchema *schema,
                     struct ArrowArray *array) {
    const void **buffers = malloc(3 * sizeof *buffers);
    uint8_t *shrunk = realloc(text, m > 0 ? (size_t)m : 1);
    buffers[0] = NULL;
    buffers[1] = offsets;
    buffers[2] = shrunk ? shrunk : text;
    memset(schema, 0, sizeof *schema);
    schema->format = "U";
    schema->name = "t";
    schema->flags = 2;  /* nullable (none is null) */
    schema->release = release_schema;
    memset(array, 0, sizeof *array);
    array->length = n;
    array->n_buffers = 3;
    array->buffers = buffers;
    array->release = release_array;
}
