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
 * Binary, text format (pbc/text.h) and JSON (pbc/json.h) in and out; JSPB
 * requests are answered "skipped". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.pbc.h"
#include "pbc/json.h"
#include "pbc/text.h"

static void die(const char *what) {
  fprintf(stderr, "pbc conformance testee: %s\n", what);
  exit(1);
}

static pbc_str str(const char *s) { return (pbc_str){s, strlen(s)}; }

/* A failure's text, kept in the arena with the response. */
static pbc_str arena_text(pbc_arena *arena, const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *t = pbc_arena_alloc(arena, na + nb + 1);
  if (!t) die("out of memory");
  memcpy(t, a, na);
  memcpy(t + na, b, nb + 1);
  return (pbc_str){t, na + nb};
}

/* Fills `res` for `req`; everything it allocates comes from `arena`. */
static void handle(const conformance_ConformanceRequest *req,
                   conformance_ConformanceResponse *res, pbc_arena *arena) {
  const bool binary_in = conformance_ConformanceRequest_has_protobuf_payload(req);
  const bool text_in = conformance_ConformanceRequest_has_text_payload(req);
  const bool json_in = conformance_ConformanceRequest_has_json_payload(req);
  const conformance_WireFormat out_format = req->requested_output_format;
  if ((!binary_in && !text_in && !json_in) ||
      (out_format != conformance_WireFormat_PROTOBUF &&
       out_format != conformance_WireFormat_TEXT_FORMAT &&
       out_format != conformance_WireFormat_JSON)) {
    conformance_ConformanceResponse_set_skipped(res, str("pbc: JSPB is not supported"));
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

  /* decode and pbc_text_parse start from init (they replace, never merge):
   * no init call needed. */
  void *msg = pbc_arena_alloc(arena, info->struct_size);
  if (!msg) die("out of memory");
  if (binary_in) {
    const pbc_bytes in = req->payload.protobuf_payload;
    pbc_status status = info->decode(msg, in.data, in.size, arena);
    if (status != PBC_OK) {
      conformance_ConformanceResponse_set_parse_error(res, str(pbc_status_str(status)));
      return;
    }
  } else if (json_in) {
    const pbc_str in = req->payload.json_payload;
    pbc_json_options options = {
        .ignore_unknown_fields = req->test_category ==
                                 conformance_TestCategory_JSON_IGNORE_UNKNOWN_PARSING_TEST};
    pbc_json_error error;
    pbc_status status = pbc_json_parse(info, msg, in.data, in.size, arena, &options, &error);
    if (status != PBC_OK) {
      conformance_ConformanceResponse_set_parse_error(res, arena_text(arena, "pbc: ", error.message));
      return;
    }
  } else {
    const pbc_str in = req->payload.text_payload;
    pbc_text_error error;
    pbc_status status = pbc_text_parse(info, msg, in.data, in.size, arena, NULL, &error);
    if (status != PBC_OK) {
      conformance_ConformanceResponse_set_parse_error(res, arena_text(arena, "pbc: ", error.message));
      return;
    }
  }

  if (out_format == conformance_WireFormat_TEXT_FORMAT) {
    /* The unknown fields only when asked for, as libprotobuf's testee. */
    pbc_text_options options = {.hide_unknown_fields = !req->print_unknown_fields};
    size_t size = 0;
    pbc_status status = pbc_text_print(info, msg, NULL, 0, &size, &options);
    char *text = pbc_arena_alloc(arena, size + 1);
    if (!text) die("out of memory");
    if (status == PBC_OK || status == PBC_ERR_BUFFER_TOO_SMALL)
      status = pbc_text_print(info, msg, text, size, &size, &options);
    if (status != PBC_OK) {
      conformance_ConformanceResponse_set_serialize_error(res, str(pbc_status_str(status)));
      return;
    }
    conformance_ConformanceResponse_set_text_payload(res, (pbc_str){text, size});
    return;
  }

  if (out_format == conformance_WireFormat_JSON) {
    size_t size = 0;
    pbc_status status = pbc_json_print(info, msg, NULL, 0, &size, NULL);
    char *json = pbc_arena_alloc(arena, size + 1);
    if (!json) die("out of memory");
    if (status == PBC_OK || status == PBC_ERR_BUFFER_TOO_SMALL)
      status = pbc_json_print(info, msg, json, size, &size, NULL);
    if (status != PBC_OK) {
      conformance_ConformanceResponse_set_serialize_error(res, str(pbc_status_str(status)));
      return;
    }
    conformance_ConformanceResponse_set_json_payload(res, (pbc_str){json, size});
    return;
  }

  size_t size = info->encoded_size(msg), written;
  uint8_t *out = pbc_arena_alloc(arena, size);
  if (!out) die("out of memory");
  pbc_status status = info->encode(msg, out, size, &written);
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
