/* The arena: a bump allocator over the caller's initial block, then over
 * heap blocks that grow geometrically. Nothing is freed one by one; reset and
 * destroy return the heap blocks all at once. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

#include "pbc_rt.h"

enum {
  ARENA_ALIGN = PBC_ARENA_ALIGN,
  /* Heap blocks grow with the arena (each about as large as everything taken
   * so far) from the first to the last size, so a decode of n bytes costs
   * O(log n) mallocs without a huge first block for small messages. */
  ARENA_FIRST_BLOCK = 4096,
  ARENA_LAST_BLOCK = 1024 * 1024
};

/* The header in front of every heap block; the memory handed out follows. */
struct pbc_arena_block {
  pbc_arena_block *next;
};

static size_t block_header_size(void) {
  return (sizeof(pbc_arena_block) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

/* Rounds up to the alignment; false when that would overflow. */
static bool align_size(size_t size, size_t *out) {
  if (size > SIZE_MAX - (ARENA_ALIGN - 1)) return false;
  *out = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  return true;
}

#ifndef NDEBUG
static bool is_aligned(const void *p) {
  return ((uintptr_t)p & (ARENA_ALIGN - 1)) == 0;
}
#endif

static size_t bytes_left(const pbc_arena *a) {
  /* The current block is [ptr, end), both ends aligned so that allocations
   * from the bottom and from the top are. */
  assert((uintptr_t)a->ptr <= (uintptr_t)a->end);
  assert(is_aligned(a->ptr) && is_aligned(a->end));
  /* Heap bytes are taken only as blocks, all on the list. */
  assert((a->blocks == NULL) == (a->allocated == 0));
  /* Integer arithmetic: ptr and end are both NULL while the arena is empty. */
  return (size_t)((uintptr_t)a->end - (uintptr_t)a->ptr);
}

/* Makes the initial block the current one again, skipping the bytes before
 * its first aligned address. */
static void use_initial_block(pbc_arena *a) {
  a->ptr = NULL;
  a->end = NULL;
  if (a->initial_block == NULL) return;
  /* Both ends aligned: allocations come from the bottom and the top. */
  uintptr_t start = (uintptr_t)a->initial_block;
  uintptr_t first = (start + ARENA_ALIGN - 1) & ~(uintptr_t)(ARENA_ALIGN - 1);
  uintptr_t last = (start + a->initial_size) & ~(uintptr_t)(ARENA_ALIGN - 1);
  if (first >= last || first < start) return;
  a->ptr = (uint8_t *)a->initial_block + (first - start);
  a->end = (uint8_t *)a->initial_block + (last - start);
}

static void free_heap_blocks(pbc_arena *a) {
  pbc_arena_block *b = a->blocks;
  while (b != NULL) {
    pbc_arena_block *next = b->next;
    free(b);
    b = next;
  }
  a->blocks = NULL;
  a->allocated = 0;
}

void pbc_arena_init(pbc_arena *a, void *initial_block, size_t size) {
  a->blocks = NULL;
  a->initial_block = initial_block;
  a->initial_size = initial_block != NULL ? size : 0;
  a->allocated = 0;
  a->max_bytes = SIZE_MAX;
  use_initial_block(a);
}

void pbc_arena_set_max_bytes(pbc_arena *a, size_t max_bytes) {
  a->max_bytes = max_bytes;
}

/* Size in bytes (header included) of the next ordinary heap block. */
static size_t next_block_size(const pbc_arena *a) {
  size_t size = a->allocated;
  if (size < ARENA_FIRST_BLOCK) return ARENA_FIRST_BLOCK;
  if (size > ARENA_LAST_BLOCK) return ARENA_LAST_BLOCK;
  return size;
}

/* Heap bytes the cap still allows. */
static size_t room_under_cap(const pbc_arena *a) {
  /* A cap lowered below what is already taken leaves no room at all. */
  return a->allocated > a->max_bytes ? 0 : a->max_bytes - a->allocated;
}

/* Takes `size` bytes (header included) from the heap; the caller has
 * checked the cap. */
static pbc_arena_block *new_block(pbc_arena *a, size_t size) {
  assert(size > block_header_size() && size <= room_under_cap(a));
  pbc_arena_block *b = malloc(size);
  if (b == NULL) return NULL;
  b->next = a->blocks;
  a->blocks = b;
  a->allocated += size;
  return b;
}

/* The current block cannot hold `size` (already aligned) bytes; a new one
 * becomes current, with the allocation at its bottom or (`high`) its top.
 * Out of line: the generated decoders inline pbc_rt_alloc at every
 * sub-message field, and this path, taken once a block (4 KiB and more),
 * was 120 bytes of each such field's code. */
PBC_NOINLINE static void *alloc_from_new_block(pbc_arena *a, size_t size,
                                               bool high) {
  size_t header = block_header_size();
  if (size > SIZE_MAX - header) return NULL;
  size_t needed = header + size;
  size_t room = room_under_cap(a);
  if (needed > room) return NULL;

  size_t block_size = next_block_size(a);
  if (needed > block_size) {
    /* A large request gets a block of its own. The current block stays
     * current: its free bytes still serve the small requests to come. */
    pbc_arena_block *b = new_block(a, needed);
    return b != NULL ? (uint8_t *)b + header : NULL;
  }

  /* Near the cap, a smaller block that still fits the request beats
   * failing. */
  if (block_size > room) block_size = room;
  pbc_arena_block *b = new_block(a, block_size);
  if (b == NULL) return NULL;
  a->ptr = (uint8_t *)b + header;
  a->end = (uint8_t *)b + (block_size & ~(size_t)(ARENA_ALIGN - 1));
  assert(size <= bytes_left(a));
  if (high) {
    a->end -= size;
    return a->end;
  }
  a->ptr += size;
  return a->ptr - size;
}

void *pbc_arena_alloc(pbc_arena *a, size_t size) {
  /* Zero bytes still get a unique, non-NULL pointer: NULL means failure. */
  if (size == 0) size = 1;
  assert(bytes_left(a) % ARENA_ALIGN == 0);
  void *p = pbc_rt_arena_bump(a, size);
  if (p != NULL) return p;
  if (!align_size(size, &size)) return NULL;
  return alloc_from_new_block(a, size, false);
}

/* From the top of the current block, for objects that never grow (the
 * decoder's sub-messages): the newest allocation at the bottom, usually the
 * array of the repeated field being read, stays newest and grows in place
 * however many sub-messages its elements hold. */
void *pbc_arena_alloc_high(pbc_arena *a, size_t size) {
  if (size == 0) size = 1;
  if (!align_size(size, &size)) return NULL;
  if (size <= bytes_left(a)) {
    a->end -= size;
    return a->end;
  }
  return alloc_from_new_block(a, size, true);
}

bool pbc_arena_over_cap(const pbc_arena *a, size_t size) {
  if (a->max_bytes == SIZE_MAX) return false;
  if (size == 0) size = 1;
  if (!align_size(size, &size)) return true;
  if (size <= bytes_left(a)) return false;
  size_t header = block_header_size();
  return size > SIZE_MAX - header || header + size > room_under_cap(a);
}

bool pbc_arena_extend(pbc_arena *a, void *p, size_t old_size,
                      size_t new_size) {
  assert(old_size <= new_size);
  size_t old_aligned, new_aligned;
  if (!align_size(old_size, &old_aligned) || !align_size(new_size, &new_aligned))
    return false;
  /* Only the newest allocation can grow, and only inside its block. */
  if ((uint8_t *)p + old_aligned != a->ptr) return false;
  if (new_aligned - old_aligned > bytes_left(a)) return false;
  a->ptr += new_aligned - old_aligned;
  return true;
}

void pbc_arena_reset(pbc_arena *a) {
  free_heap_blocks(a);
  use_initial_block(a);
}

void pbc_arena_destroy(pbc_arena *a) {
  free_heap_blocks(a);
  /* Leaves the arena empty rather than dangling: a second destroy, or an
   * alloc after destroy, is harmless. */
  a->initial_block = NULL;
  a->initial_size = 0;
  a->ptr = NULL;
  a->end = NULL;
}
