/* The wire form text parsers build (wire_build.h). */
#include <stdio.h>
#include <stdlib.h>

#include "wire_build.h"

void pbc_wb_free(pbc_wire_build *b) {
  if (b->out != b->first_out) free(b->out);
  if (b->seen != b->first_seen) free(b->seen);
  free(b->ext_seen);
  b->out = NULL;
  b->seen = b->ext_seen = NULL;
  b->len = b->cap = b->seen_len = b->seen_cap = b->ext_len = b->ext_cap = 0;
}

/* Grows *p (of *cap elements of `size` bytes) to hold `need` more than
 * `len`: first into `local` (local_cap elements; NULL for none), then
 * doubling on the heap. */
static bool grow(void **p, size_t *cap, size_t len, size_t need, size_t size,
                 void *local, size_t local_cap) {
  if (*cap - len >= need) return true;
  if (*p == NULL && local != NULL) {
    *p = local;
    *cap = local_cap;
    if (local_cap - len >= need) return true;
  }
  size_t n = *cap ? *cap : 16;
  while (n - len < need) {
    if (n > SIZE_MAX / 2 / size) return false;
    n *= 2;
  }
  void *q;
  if (local != NULL && *p == local) {
    q = malloc(n * size);
    if (q != NULL && len) memcpy(q, local, len * size);
  } else {
    q = realloc(*p, n * size);
  }
  if (q == NULL) return false;
  *p = q;
  *cap = n;
  return true;
}

bool pbc_wb_reserve(pbc_wire_build *b, size_t n) {
  return grow((void **)&b->out, &b->cap, b->len, n, 1, b->first_out,
              sizeof b->first_out);
}

bool pbc_wb_scalar(pbc_wire_build *b, const pbc_field_desc *f, uint64_t bits) {
  return pbc_wb_tag(b, f->number, pbc_tbl_wire_type(f)) &&
         pbc_wb_scalar_value(b, f, bits);
}

pbc_status pbc_wb_close_len(pbc_wire_build *b, size_t at) {
  size_t n = b->len - at - 1;
  if (n > INT32_MAX) return PBC_ERR_TOO_LARGE;
  size_t k = pbc_varint_size(n);
  if (k > 1) {
    if (!pbc_wb_reserve(b, k - 1)) return PBC_ERR_OUT_OF_MEMORY;
    memmove(b->out + at + k, b->out + at + 1, n);
    b->len += k - 1;
  }
  pbc_wb_varint_at(b->out + at, n);
  return PBC_OK;
}

bool pbc_wb_frame_push_slow(pbc_wire_build *b, const pbc_message_desc *d,
                            size_t *frame) {
  size_t n = pbc_wb_frame_words(d);
  if (!grow((void **)&b->seen, &b->seen_cap, b->seen_len, n, sizeof *b->seen,
            b->first_seen,
            sizeof b->first_seen / sizeof *b->first_seen))
    return false;
  *frame = b->seen_len;
  memset(b->seen + b->seen_len, 0, n * sizeof *b->seen);
  b->seen[b->seen_len + n - 2] = (uint32_t)b->len;
  b->seen[b->seen_len + n - 1] = (uint32_t)((uint64_t)b->len >> 32);
  b->seen_len += n;
  return true;
}

void pbc_wb_frame_pop(pbc_wire_build *b, const pbc_message_desc *d) {
  b->seen_len -= pbc_wb_frame_words(d);
  while (b->ext_len > 0 && b->ext_seen[b->ext_len - 2] >= b->seen_len)
    b->ext_len -= 2;
}

bool pbc_wb_ext_has(const pbc_wire_build *b, size_t frame, uint32_t number) {
  for (size_t i = b->ext_len; i > 0 && b->ext_seen[i - 2] >= frame; i -= 2)
    if (b->ext_seen[i - 2] == frame && b->ext_seen[i - 1] == number)
      return true;
  return false;
}

bool pbc_wb_ext_set(pbc_wire_build *b, size_t frame, uint32_t number) {
  if (!grow((void **)&b->ext_seen, &b->ext_cap, b->ext_len, 2,
            sizeof *b->ext_seen, NULL, 0))
    return false;
  b->ext_seen[b->ext_len++] = (uint32_t)frame;
  b->ext_seen[b->ext_len++] = number;
  return true;
}

void pbc_wb_extension_init(pbc_wb_extension *x, const pbc_extension_info *e) {
  const char *dot = strrchr(e->full_name, '.');
  uint32_t short_name = dot ? (uint32_t)(dot + 1 - e->full_name) : 0;
  memset(x, 0, sizeof *x);
  x->field.number = (e->flags & PBC_EXTENSION_MESSAGE_SET) ? PBC_MSET_MESSAGE
                                                           : e->number;
  x->field.type = e->type;
  x->field.kind = (e->flags & PBC_EXTENSION_REPEATED) ? PBC_FIELD_REPEATED
                                                      : PBC_FIELD_BIT;
  x->field.flags = (uint8_t)(e->flags & (PBC_FIELD_PACKED | PBC_FIELD_UTF8 |
                                         PBC_FIELD_CLOSED_ENUM));
  x->names.name = x->names.json_name = short_name;
  x->links[0] = e->link;
  x->one.fields = &x->field;
  x->one.field_names = &x->names;
  x->one.links = x->links;
  x->one.strings = e->full_name;
  x->one.field_count = 1;
  x->one.link_count = 1;
}

pbc_status pbc_wb_canonicalize(pbc_wire_build *b, const pbc_message_desc *type,
                               size_t at, uint32_t max_depth,
                               bool allow_partial) {
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  void *m = pbc_arena_alloc(&arena, type->size ? type->size : 1);
  pbc_decode_options options = {max_depth, allow_partial, false};
  pbc_status s = m ? pbc_table_decode(type, m, b->out + at, b->len - at,
                                      &arena, &options)
                   : PBC_ERR_OUT_OF_MEMORY;
  if (s == PBC_OK) {
    size_t n = pbc_table_encoded_size(type, m), written = 0;
    uint8_t *bytes = n ? pbc_arena_alloc(&arena, n) : NULL;
    if (n && !bytes) {
      s = PBC_ERR_OUT_OF_MEMORY;
    } else if (n > INT32_MAX) {
      s = PBC_ERR_TOO_LARGE;
    } else {
      s = pbc_table_encode(type, m, bytes, n, &written);
      if (s == PBC_OK) {
        /* Never longer than the text order's form: both are the same
         * fields, this one without repeats. */
        assert(written <= b->len - at);
        if (written) memcpy(b->out + at, bytes, written);
        b->len = at + written;
      }
    }
  }
  pbc_arena_destroy(&arena);
  return s;
}

bool pbc_wb_any(pbc_wire_build *b, size_t at, const char *url,
                size_t url_len) {
  /* value is a proto3 field without presence: an empty one is not
   * written (nor is an empty type_url, which the parsers never give). */
  size_t value_len = b->len - at;
  size_t head = 1 + pbc_varint_size(url_len) + url_len +
                (value_len ? 1 + pbc_varint_size(value_len) : 0);
  if (!pbc_wb_reserve(b, head)) return false;
  uint8_t *p = b->out + at;
  memmove(p + head, p, value_len);
  *p++ = 1 << 3 | PBC_WIRE_LEN;
  pbc_wb_varint_at(p, url_len);
  p += pbc_varint_size(url_len);
  memcpy(p, url, url_len);
  p += url_len;
  if (value_len) {
    *p++ = 2 << 3 | PBC_WIRE_LEN;
    pbc_wb_varint_at(p, value_len);
  }
  b->len += head;
  return true;
}

pbc_status pbc_wb_decode(const pbc_wire_build *b, const pbc_message_desc *d,
                         void *m, pbc_arena *arena, uint32_t max_depth,
                         bool allow_partial, char *why, size_t why_cap) {
  pbc_decode_options decode = {max_depth, allow_partial, true};
  pbc_status s = pbc_table_decode(d, m, b->out, b->len, arena, &decode);
  if (s != PBC_OK && why)
    snprintf(why, why_cap, "%s",
             s == PBC_ERR_MISSING_REQUIRED ? "Message missing required fields."
                                           : pbc_status_str(s));
  return s;
}
