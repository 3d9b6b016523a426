/* The heap-backed writer: a delegate that mallocs fixed-size chunks, keeps
 * them all (it never commits, so lengths are always back-filled in place)
 * and hands them back, or the whole stream in one buffer. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "pbc/pbc.h"
#include "pbc/writer.h"

enum { HEAP_DEFAULT_CHUNK = 4096 };

static bool heap_get_new_buffer(void *ctx, uint32_t chunk_id, uint8_t **begin,
                                uint8_t **end, bool *committed) {
  pbc_heap_writer *h = ctx;
  (void)chunk_id;
  (void)committed;
  /* The writer asks for chunks in order, and a failed request is its last. */
  assert(chunk_id == h->chunk_count && h->chunk_count <= h->chunk_capacity);
  if (h->chunk_count == h->chunk_capacity) {
    size_t cap = h->chunk_capacity ? h->chunk_capacity * 2 : 8;
    uint8_t **chunks = realloc(h->chunks, cap * sizeof *chunks);
    if (chunks == NULL) return false;
    h->chunks = chunks;
    h->chunk_capacity = cap;
  }
  uint8_t *chunk = malloc(h->chunk_size);
  if (chunk == NULL) return false;
  h->chunks[h->chunk_count++] = chunk;
  *begin = chunk;
  *end = chunk + h->chunk_size;
  return true;
}

/* Never called (nothing is committed), but correct should that change. */
static void heap_patch(void *ctx, uint32_t chunk_id, size_t offset,
                       const uint8_t *bytes, size_t size) {
  pbc_heap_writer *h = ctx;
  assert(offset <= h->chunk_size && size <= h->chunk_size - offset);
  if (chunk_id < h->chunk_count) memcpy(h->chunks[chunk_id] + offset, bytes, size);
}

static void start(pbc_heap_writer *h) {
  pbc_writer_delegate d = {heap_get_new_buffer, heap_patch, h};
  pbc_writer_init(&h->writer, &d);
}

void pbc_heap_writer_init(pbc_heap_writer *h, size_t chunk_size) {
  h->chunk_size = chunk_size ? chunk_size : HEAP_DEFAULT_CHUNK;
  h->chunks = NULL;
  h->chunk_count = 0;
  h->chunk_capacity = 0;
  start(h);
}

size_t pbc_heap_writer_size(pbc_heap_writer *h) {
  return (size_t)pbc_writer_position(&h->writer);
}

size_t pbc_heap_writer_chunk_count(const pbc_heap_writer *h) {
  return h->chunk_count;
}

const uint8_t *pbc_heap_writer_chunk(pbc_heap_writer *h, size_t i,
                                     size_t *size) {
  if (i >= h->chunk_count) {
    *size = 0;
    return NULL;
  }
  /* Every chunk but the last is full. */
  *size = i + 1 < h->chunk_count ? h->chunk_size
                                 : pbc_writer_chunk_used(&h->writer);
  assert(*size <= h->chunk_size);
  return h->chunks[i];
}

size_t pbc_heap_writer_copy(pbc_heap_writer *h, void *out, size_t cap) {
  uint8_t *dst = out;
  size_t copied = 0;
  for (size_t i = 0; i < h->chunk_count && copied < cap; i++) {
    size_t size;
    const uint8_t *chunk = pbc_heap_writer_chunk(h, i, &size);
    size_t n = size < cap - copied ? size : cap - copied;
    memcpy(dst + copied, chunk, n);
    copied += n;
  }
  return copied;
}

static void free_chunks(pbc_heap_writer *h) {
  for (size_t i = 0; i < h->chunk_count; i++) free(h->chunks[i]);
  free(h->chunks);
  h->chunks = NULL;
  h->chunk_count = 0;
  h->chunk_capacity = 0;
}

void pbc_heap_writer_reset(pbc_heap_writer *h) {
  free_chunks(h);
  start(h);
}

void pbc_heap_writer_destroy(pbc_heap_writer *h) { free_chunks(h); }
