/* The map of editions-delimited-map.txtpb on the wire: {by_name: {"k":
 * {a: 1}}} encodes as protoc, upb and pure-Python write it, and decodes
 * from those bytes. */
#include <stdio.h>
#include <string.h>

#include "delimited_map.pbc.h"

int main(void) {
  dm_Value value;
  dm_Value_init(&value);
  dm_Value_set_a(&value, 1);
  dm_Holder_ByNameEntry entry;
  dm_Holder_ByNameEntry_init(&entry);
  entry.key = (pbc_str){"k", 1};
  entry.value = &value;
  dm_Holder holder;
  dm_Holder_init(&holder);
  holder.by_name.data = &entry;
  holder.by_name.size = 1;

  uint8_t buf[64];
  size_t n = 0;
  if (dm_Holder_encode(&holder, buf, sizeof buf, &n) != PBC_OK) return 1;
  for (size_t i = 0; i < n; i++) printf("%02x%s", buf[i], i + 1 < n ? " " : "\n");

  static const uint8_t reference[] = {0x0a, 0x07, 0x0a, 0x01, 0x6b, 0x12, 0x02, 0x08, 0x01};
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  dm_Holder back;
  pbc_status st = dm_Holder_decode(&back, reference, sizeof reference, &arena);
  printf("decode %d: %zu entry, key %.*s, a %d\n", st, back.by_name.size,
         (int)back.by_name.data[0].key.size, back.by_name.data[0].key.data,
         back.by_name.data[0].value ? back.by_name.data[0].value->a : -1);
  pbc_arena_destroy(&arena);
  return 0;
}
