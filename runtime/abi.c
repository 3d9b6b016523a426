/* Checks the runtime's C declarations against runtime/abi.def, the table the
 * compiler generates code from: a function, record member or view whose C
 * type changes without its row (or the other way round) stops this file
 * from compiling. Holds no code. */
#include <stddef.h>

#include "pbc/wire_types.h"
#include "pbc_rt.h"

/* The C type of each ABI type name: pbc_abi_U32 and so on. */
#define PBC_ABI_TYPE(Name, ctype, llvm) typedef ctype pbc_abi_##Name;
#include "abi.def"

/* The exact type of a function: an int and a long, or a pointer and a
 * const pointer, are different types here, as they are to the ABI. */
#define PBC_SAME_TYPE(expr, type) _Generic((expr), type : 1, default : 0)

/* Each codec's function type, pbc_codec_<Role>_fn, with the message as
 * void *; and the type its pbc_message_info member has: the function
 * pointer, or const void * for internal codecs. */
#define PBC_PARAM(type, name) pbc_abi_##type name
#define PBC_CODEC(Role, suffix, kind, result, ...)                             \
  typedef pbc_abi_##result (*pbc_codec_##Role##_fn)(__VA_ARGS__);              \
  typedef PBC_INFO_TYPE_##kind(Role) pbc_info_##Role;
#define PBC_INFO_TYPE_PUBLIC(Role) pbc_codec_##Role##_fn
#define PBC_INFO_TYPE_ENTRY(Role) pbc_codec_##Role##_fn
#define PBC_INFO_TYPE_INTERNAL(Role) const void *
#include "abi.def"
#undef PBC_PARAM
typedef const char *pbc_info_NAME;
typedef size_t pbc_info_SIZE;
typedef const pbc_message_desc *pbc_info_DESC;

/* The codecs the runtime calls through pointers. */
_Static_assert(PBC_SAME_TYPE((pbc_init_fn)0, pbc_codec_Init_fn), "abi.def: init");
_Static_assert(PBC_SAME_TYPE((pbc_check_fn)0, pbc_codec_IsInitialized_fn),
               "abi.def: is_initialized");
_Static_assert(PBC_SAME_TYPE((pbc_size_fn)0, pbc_codec_EncodedSize_fn),
               "abi.def: encoded_size");
_Static_assert(PBC_SAME_TYPE((pbc_decode_fn)0, pbc_codec_Decoder_fn),
               "abi.def: the internal decoder");
_Static_assert(PBC_SAME_TYPE((pbc_encode_fn)0, pbc_codec_Encoder_fn),
               "abi.def: the internal encoder");

/* pbc_message_info: every member 8 bytes, in the rows' order, of the
 * row's type. */
enum {
#define PBC_INFO_FIELD(member, what) pbc_info_index_##member,
#include "abi.def"
  pbc_info_members
};
#define PBC_INFO_FIELD(member, what)                                           \
  _Static_assert(offsetof(pbc_message_info, member) ==                        \
                     pbc_info_index_##member * 8,                              \
                 "abi.def: pbc_message_info." #member " is out of place");     \
  _Static_assert(PBC_SAME_TYPE(((pbc_message_info *)0)->member,                \
                               pbc_info_##what),                               \
                 "abi.def: pbc_message_info." #member " has another type");
#include "abi.def"
_Static_assert(sizeof(pbc_message_info) == pbc_info_members * 8,
               "abi.def: pbc_message_info has members the table does not");

/* The runtime functions generated code calls, by their exact types. */
#define PBC_RUNTIME_PARAMS_1(a) pbc_abi_##a
#define PBC_RUNTIME_PARAMS_2(a, b) pbc_abi_##a, pbc_abi_##b
#define PBC_RUNTIME_PARAMS_3(a, b, c) pbc_abi_##a, pbc_abi_##b, pbc_abi_##c
#define PBC_RUNTIME_PARAMS_4(a, b, c, d) PBC_RUNTIME_PARAMS_3(a, b, c), pbc_abi_##d
#define PBC_RUNTIME_PARAMS_5(a, b, c, d, e) PBC_RUNTIME_PARAMS_4(a, b, c, d), pbc_abi_##e
#define PBC_RUNTIME_PARAMS_6(a, b, c, d, e, f) PBC_RUNTIME_PARAMS_5(a, b, c, d, e), pbc_abi_##f
#define PBC_RUNTIME_PARAMS_7(a, b, c, d, e, f, g) PBC_RUNTIME_PARAMS_6(a, b, c, d, e, f), pbc_abi_##g
#define PBC_COUNT(...) PBC_COUNT_(__VA_ARGS__, 7, 6, 5, 4, 3, 2, 1, 0)
#define PBC_COUNT_(a, b, c, d, e, f, g, n, ...) n
#define PBC_CAT(a, b) PBC_CAT_(a, b)
#define PBC_CAT_(a, b) a##b
#define PBC_RUNTIME(name, result, ...)                                         \
  _Static_assert(                                                              \
      PBC_SAME_TYPE(&name, pbc_abi_##result (*)(                               \
                               PBC_CAT(PBC_RUNTIME_PARAMS_,                    \
                                       PBC_COUNT(__VA_ARGS__))(__VA_ARGS__))), \
      "abi.def: " #name " is declared with another type");
#include "abi.def"

/* The view every string, bytes and repeated field is. */
#define PBC_CHECK_VIEW(T)                                                      \
  _Static_assert(sizeof(T) == PBC_VIEW_BYTES &&                                \
                     offsetof(T, data) == PBC_VIEW_DATA_OFFSET &&              \
                     offsetof(T, size) == PBC_VIEW_SIZE_OFFSET,                \
                 "the view layout of " #T);
PBC_CHECK_VIEW(pbc_str)
PBC_CHECK_VIEW(pbc_bytes)
typedef PBC_REPEATED(double) pbc_abi_repeated;
PBC_CHECK_VIEW(pbc_abi_repeated)

/* The description's records: each member where its row says, as large as
 * its type (PTR: any pointer), and each record as large as its row says. */
#define PBC_DESC_RECORD(Record, ctype, size)                                   \
  typedef ctype pbc_desc_##Record;                                             \
  _Static_assert(sizeof(ctype) == size, "abi.def: " #ctype "'s size");
#include "abi.def"
#define PBC_DESC_MEMBER(Record, member, type, offset)                          \
  _Static_assert(offsetof(pbc_desc_##Record, member) == offset,                \
                 "abi.def: " #Record "." #member " is out of place");          \
  _Static_assert(sizeof(((pbc_desc_##Record *)0)->member) ==                   \
                     sizeof(pbc_abi_##type),                                   \
                 "abi.def: " #Record "." #member " has another size");
#include "abi.def"

/* A view's zero test is its width, as pbc_type_value_bytes gives it. */
_Static_assert(PBC_ZERO_TEST_VIEW == PBC_VIEW_BYTES, "desc.h: a view's bytes");
