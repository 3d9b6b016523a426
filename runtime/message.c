/* Any message by its info (pbc.h): its generated functions when the info
 * has them, the table codec on its description when it has none (a
 * message loaded at run time, pbc/schema.h). pbc_decode, in decode.c, does
 * the same for T_decode. */
#include "pbc_rt.h"

void *pbc_message_new(const pbc_message_info *info, pbc_arena *arena) {
  void *m = pbc_arena_alloc(arena, info->struct_size);
  if (m) pbc_message_init(info, m);
  return m;
}

void pbc_message_init(const pbc_message_info *info, void *m) {
  if (info->init) info->init(m);
  else pbc_table_init(info->desc, m);
}

bool pbc_message_is_initialized(const pbc_message_info *info, const void *m) {
  return info->is_initialized ? info->is_initialized(m)
                              : pbc_table_is_initialized(info->desc, m);
}

size_t pbc_message_encoded_size(const pbc_message_info *info, const void *m) {
  return info->encoded_size ? info->encoded_size(m)
                            : pbc_table_encoded_size(info->desc, m);
}

pbc_status pbc_message_encode(const pbc_message_info *info, const void *m,
                              uint8_t *buf, size_t cap, size_t *written) {
  return info->encode ? info->encode(m, buf, cap, written)
                      : pbc_table_encode(info->desc, m, buf, cap, written);
}

pbc_status pbc_message_encode_at_end(const pbc_message_info *info,
                                     const void *m, uint8_t *buf, size_t cap,
                                     uint8_t **start, size_t *written) {
  return info->encode_at_end
             ? info->encode_at_end(m, buf, cap, start, written)
             : pbc_table_encode_at_end(info->desc, m, buf, cap, start, written);
}

pbc_status pbc_message_write(const pbc_message_info *info, const void *m,
                             pbc_writer *w) {
  return info->write ? info->write(m, w) : pbc_table_write(info->desc, m, w);
}
