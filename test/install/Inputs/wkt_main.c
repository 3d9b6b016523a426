/* Links against a library built from wkt_user.proto and round-trips an
 * Event through it, whichever route (pbc compile, protoc plugin, descriptor
 * set) built the library. */
#include <stdio.h>
#include <string.h>

#include "wkt_user.pbc.h"

int main(void) {
  google_protobuf_Timestamp at;
  google_protobuf_Timestamp_init(&at);
  at.seconds = 1700000000;
  at.nanos = 5;

  inst_Event event;
  inst_Event_init(&event);
  event.name.data = "deploy";
  event.name.size = 6;
  event.at = &at;

  uint8_t buf[128];
  size_t len = 0;
  if (inst_Event_encode(&event, buf, sizeof buf, &len) != PBC_OK)
    return 1;
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  inst_Event back;
  pbc_status s = inst_Event_decode(&back, buf, len, &arena);
  int ok = s == PBC_OK && back.name.size == 6 &&
           memcmp(back.name.data, "deploy", 6) == 0 && back.at &&
           back.at->seconds == 1700000000 && back.at->nanos == 5;
  pbc_arena_destroy(&arena);
  printf("%zu bytes, round trip %s\n", len, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
