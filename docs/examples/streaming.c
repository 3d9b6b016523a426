/* A tracing producer on pbc's streaming writer (see docs/streaming.md).
 *
 * The producer owns a small pool of 4 KiB chunks of "shared memory". Its
 * delegate hands them out in turn; every time it hands out a new one, the
 * previous ones are committed: copied to the "service" and their memory is
 * free for reuse. A length the writer can no longer back-fill (its chunk
 * is gone) arrives as a patch, which the producer queues and sends with the
 * next commit, as Perfetto's patch list does. The service applies the
 * patches, concatenates the chunks and decodes the trace with pbc.
 *
 *   pbc compile docs/examples/trace.proto -o out/libtrace.a
 *   cc docs/examples/streaming.c -Iout out/libtrace.a -o streaming
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.pbc.h"

enum { CHUNK_SIZE = 4096, POOL_CHUNKS = 4, MAX_CHUNKS = 4096, MAX_PATCHES = 4096 };

/* ---- The service: what it received -------------------------------------- */
typedef struct {
  uint32_t chunk_id;
  uint32_t offset;
  uint8_t bytes[4];
  uint8_t size;
} patch;

typedef struct {
  uint8_t *chunks[MAX_CHUNKS]; /* committed chunks, by id */
  size_t sizes[MAX_CHUNKS];
  size_t chunk_count;
  size_t patch_count;
} service;

static void service_commit(service *s, uint32_t id, const uint8_t *data,
                           size_t size) {
  s->chunks[id] = malloc(size);
  memcpy(s->chunks[id], data, size);
  s->sizes[id] = size;
  if (id + 1 > s->chunk_count) s->chunk_count = id + 1;
}

static void service_patch(service *s, const patch *p) {
  memcpy(s->chunks[p->chunk_id] + p->offset, p->bytes, p->size);
  s->patch_count++;
}

/* ---- The producer: a pool of chunks and the writer's delegate ------------ */
typedef struct {
  uint8_t pool[POOL_CHUNKS][CHUNK_SIZE]; /* the "shared memory" */
  uint32_t current;                      /* id of the chunk being written */
  bool started;
  patch pending[MAX_PATCHES];            /* go out with the next commit */
  size_t pending_count;
  service *service;
} producer;

static uint8_t *chunk_memory(producer *p, uint32_t id) {
  return p->pool[id % POOL_CHUNKS];
}

/* Sends chunk `id` (its first `used` bytes) and the queued patches. */
static void commit(producer *p, uint32_t id, size_t used) {
  service_commit(p->service, id, chunk_memory(p, id), used);
  for (size_t i = 0; i < p->pending_count; i++)
    service_patch(p->service, &p->pending[i]);
  p->pending_count = 0;
}

/* get_new_buffer: the previous chunk is full; hand it off and give out
 * the next one from the pool. */
static bool get_new_buffer(void *ctx, uint32_t chunk_id, uint8_t **begin,
                           uint8_t **end, bool *committed) {
  producer *p = ctx;
  if (chunk_id >= MAX_CHUNKS) return false; /* the writer fails cleanly */
  if (p->started) {
    commit(p, p->current, CHUNK_SIZE);
    *committed = true; /* every chunk before chunk_id is gone */
  }
  p->started = true;
  p->current = chunk_id;
  *begin = chunk_memory(p, chunk_id);
  *end = *begin + CHUNK_SIZE;
  return true;
}

/* patch: a length whose chunk was committed. */
static void queue_patch(void *ctx, uint32_t chunk_id, size_t offset,
                        const uint8_t *bytes, size_t size) {
  producer *p = ctx;
  patch *q = &p->pending[p->pending_count++];
  q->chunk_id = chunk_id;
  q->offset = (uint32_t)offset;
  q->size = (uint8_t)size;
  memcpy(q->bytes, bytes, size);
}

/* ---- Writing events ---------------------------------------------------------- */
static const char *const kNames[] = {"draw", "layout", "input", "gc"};

static void write_event(pbc_msg *root, uint32_t i, const char *blob,
                        size_t blob_size) {
  /* Each packet is field 1 of the Trace stream. */
  pbc_msg *packet = trace_Trace_w_begin_packet(root);
  trace_TracePacket_w_set_timestamp(packet, 1000000000ull + 1000ull * i);
  trace_TracePacket_w_set_pid(packet, 42);
  trace_TracePacket_w_set_tid(packet, 100 + i % 3);

  pbc_msg *event = trace_TracePacket_w_begin_track_event(packet);
  const char *name = kNames[i % 4];
  trace_TrackEvent_w_set_name(event, name, strlen(name));
  trace_TrackEvent_w_add_categories(event, "gfx", 3);
  uint64_t flows[3] = {i, i * 7ull, UINT64_MAX - i};
  trace_TrackEvent_w_set_flow_ids_packed(event, flows, 3);

  pbc_msg *arg = trace_TrackEvent_w_begin_args(event);
  trace_DebugAnnotation_w_set_name(arg, "frame", 5);
  trace_DebugAnnotation_w_set_int_value(arg, -(int64_t)i);
  pbc_msg_finalize(arg);
  if (i % 100 == 0) {
    /* Now and then a large argument: it straddles several chunks. */
    arg = trace_TrackEvent_w_begin_args(event);
    trace_DebugAnnotation_w_set_name(arg, "dump", 4);
    trace_DebugAnnotation_w_set_string_value(arg, blob, blob_size);
    pbc_msg_finalize(arg);
  }
  pbc_msg_finalize(event);
  pbc_msg_finalize(packet);
}

int main(void) {
  enum { EVENTS = 2000, BLOB = 10000 };
  static char blob[BLOB];
  for (size_t i = 0; i < BLOB; i++) blob[i] = (char)('a' + i % 26);

  static service svc;
  static producer prod;
  prod.service = &svc;
  pbc_writer_delegate delegate = {get_new_buffer, queue_patch, &prod};
  static pbc_writer writer; /* about 7 KiB: the nesting stack is inside */
  pbc_writer_init(&writer, &delegate);

  pbc_msg *root = pbc_writer_root(&writer);
  for (uint32_t i = 0; i < EVENTS; i++) write_event(root, i, blob, BLOB);
  pbc_status status = pbc_writer_finish(&writer);
  if (status != PBC_OK) {
    printf("writer failed: %s\n", pbc_status_str(status));
    return 1;
  }
  /* Flush: the last chunk, as far as it is used, and the last patches. */
  commit(&prod, prod.current, pbc_writer_chunk_used(&writer));

  /* The service's side: concatenate and decode. */
  size_t total = 0;
  for (size_t c = 0; c < svc.chunk_count; c++) total += svc.sizes[c];
  uint8_t *stream = malloc(total);
  size_t at = 0;
  for (size_t c = 0; c < svc.chunk_count; c++) {
    memcpy(stream + at, svc.chunks[c], svc.sizes[c]);
    at += svc.sizes[c];
    free(svc.chunks[c]);
  }
  printf("%" PRIu64 " bytes in %zu chunks, %zu patches\n",
         pbc_writer_position(&writer), svc.chunk_count, svc.patch_count);

  trace_Trace trace;
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  status = trace_Trace_decode(&trace, stream, total, &arena);
  if (status != PBC_OK) {
    printf("decode failed: %s\n", pbc_status_str(status));
    return 1;
  }
  size_t bad = 0, dumps = 0;
  for (size_t i = 0; i < trace.packet.size; i++) {
    const trace_TracePacket *p = &trace.packet.data[i];
    const trace_TrackEvent *e = p->track_event;
    const char *name = kNames[i % 4];
    bool ok = p->timestamp == 1000000000ull + 1000ull * i && p->pid == 42 &&
              e != NULL && e->name.size == strlen(name) &&
              memcmp(e->name.data, name, e->name.size) == 0 &&
              e->flow_ids.size == 3 && e->flow_ids.data[2] == UINT64_MAX - i &&
              e->args.size == (i % 100 == 0 ? 2u : 1u) &&
              e->args.data[0].value.int_value == -(int64_t)i;
    if (ok && e->args.size == 2) {
      const pbc_str *dump = &e->args.data[1].value.string_value;
      ok = dump->size == BLOB && memcmp(dump->data, blob, BLOB) == 0;
      dumps++;
    }
    bad += !ok;
  }
  printf("decoded %zu packets (%zu with a %d-byte dump), %zu wrong\n",
         trace.packet.size, dumps, BLOB, bad);
  pbc_arena_destroy(&arena);
  free(stream);
  return bad == 0 && trace.packet.size == EVENTS ? 0 : 1;
}
