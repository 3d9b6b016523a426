/* Setters of the generated streaming API, for streaming_asm.test: each must
 * compile to a store of its constant tag and the value's encoding, with no
 * call on the fast path. */
#include "streaming.pbc.h"

void set_uint32(pbc_msg *m, uint32_t v) { e2e_st_All_w_set_f_uint32(m, v); }
void set_sint32(pbc_msg *m, int32_t v) { e2e_st_All_w_set_f_sint32(m, v); }
void set_int32(pbc_msg *m, int32_t v) { e2e_st_All_w_set_f_int32(m, v); }
void set_fixed64(pbc_msg *m, uint64_t v) { e2e_st_All_w_set_f_fixed64(m, v); }
void set_t3(pbc_msg *m, int32_t v) { e2e_st_All_w_set_t3(m, v); }
void set_string(pbc_msg *m, const char *s, size_t n) {
  e2e_st_All_w_set_f_string(m, s, n);
}
pbc_msg *begin_child(pbc_msg *m) { return e2e_st_All_w_begin_child(m); }
