/* The testee for protobuf's official conformance suite: the runner
 * (conformance_test_runner, built by scripts/conformance.sh) starts this
 * program and sends it requests on stdin; it answers on stdout. Each message is
 * a 4-byte little-endian length and that many bytes of a ConformanceRequest or
 * ConformanceResponse.
 *
 * All protobuf handling is pbc-generated code: the envelope through
 * conformance.pbc.h, the test messages through the generic API alone
 * (pbc_find_message and the pbc_message_info function pointers), so the
 * program does not know their C types. That is why the libraries are linked
 * whole: nothing here references them by name.
 *
 * conformance.test runs it twice: linked with the messages' specialized
 * code, and compiled --optimize-for=code-size, where each message's
 * functions call the runtime's table-driven codec.
 *
 * Binary only: JSON, JSPB and text-format requests are answered "skipped". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.pbc.h"

static void die(const char *what) {
  fprintf(stderr, "pbc conformance testee: %s\n", what);
  exit(1);
}

static pbc_str str(const char *s) { return (pbc_str){s, strlen(s)}; }

/* Fills `res` for `req`; everything it allocates comes from `arena`. */
static void handle(const conformance_ConformanceRequest *req,
                   conformance_ConformanceResponse *res, pbc_arena *arena) {
  if (!conformance_ConformanceRequest_has_protobuf_payload(req) ||
      req->requested_output_format != conformance_WireFormat_PROTOBUF) {
    conformance_ConformanceResponse_set_skipped(res, str("pbc: JSON/text not supported"));
    return;
  }

  /* message_type is a view into the request; pbc_find_message wants a C string. */
  char *name = pbc_arena_alloc(arena, req->message_type.size + 1);
  if (!name) die("out of memory");
  memcpy(name, req->message_type.data, req->message_type.size);
  name[req->message_type.size] = '\0';
  const pbc_message_info *info = pbc_find_message(name);
  if (!info) {
    conformance_ConformanceResponse_set_runtime_error(res, str("pbc: unknown message type"));
    return;
  }

  /* decode starts from init (it replaces, never merges): no init call needed. */
  void *msg = pbc_arena_alloc(arena, info->struct_size);
  if (!msg) die("out of memory");
  const pbc_bytes in = req->payload.protobuf_payload;
  pbc_status status = info->decode(msg, in.data, in.size, arena);
  if (status != PBC_OK) {
    conformance_ConformanceResponse_set_parse_error(res, str(pbc_status_str(status)));
    return;
  }

  size_t size = info->encoded_size(msg), written;
  uint8_t *out = pbc_arena_alloc(arena, size);
  if (!out) die("out of memory");
  status = info->encode(msg, out, size, &written);
  if (status != PBC_OK) {
    conformance_ConformanceResponse_set_serialize_error(res, str(pbc_status_str(status)));
    return;
  }
  conformance_ConformanceResponse_set_protobuf_payload(res, (pbc_bytes){out, written});
}

int main(void) {
  /* One arena, reset after each request; most requests fit the first block. */
  static uint8_t block[64 << 10];
  pbc_arena arena;
  pbc_arena_init(&arena, block, sizeof block);
  for (;;) {
    uint8_t len_le[4];
    size_t got = fread(len_le, 1, 4, stdin);
    if (got == 0 && feof(stdin)) break; /* the runner is done */
    if (got != 4) die("truncated request length");
    size_t len = (size_t)len_le[0] | (size_t)len_le[1] << 8 |
                 (size_t)len_le[2] << 16 | (size_t)len_le[3] << 24;
    uint8_t *in = pbc_arena_alloc(&arena, len);
    if (!in) die("out of memory");
    if (fread(in, 1, len, stdin) != len) die("truncated request");

    conformance_ConformanceRequest req;
    if (conformance_ConformanceRequest_decode(&req, in, len, &arena) != PBC_OK)
      die("cannot decode the ConformanceRequest");
    conformance_ConformanceResponse res;
    conformance_ConformanceResponse_init(&res);
    handle(&req, &res, &arena);

    size_t size = conformance_ConformanceResponse_encoded_size(&res), written;
    uint8_t *out = pbc_arena_alloc(&arena, size + 4);
    if (!out) die("out of memory");
    if (conformance_ConformanceResponse_encode(&res, out + 4, size, &written) != PBC_OK)
      die("cannot encode the ConformanceResponse");
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(size >> (8 * i));
    if (fwrite(out, 1, size + 4, stdout) != size + 4 || fflush(stdout) != 0)
      die("cannot write the response");
    pbc_arena_reset(&arena);
  }
  pbc_arena_destroy(&arena);
  return 0;
}
