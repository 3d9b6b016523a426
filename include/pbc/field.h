/* Any field of any message, read and written through the message's
 * description (pbc/desc.h): what libprotobuf's Reflection does with its
 * Get*, Set*, Add*, HasField, ClearField, FieldSize and MutableMessage, for
 * generic code that has a message's info but not its C type (tools, layers
 * for other formats or languages, test frameworks). One pbc_value union
 * carries a value of any type, instead of a function per type.
 *
 * Each function takes `d`, the description of m's message (info->desc),
 * and `f`, one of its fields (&d->fields[i], pbc_field_by_number,
 * pbc_field_by_name). Functions for singular fields take singular fields,
 * those for repeated fields take repeated ones (a map is its entries, each
 * a struct of the entry message, as libprotobuf's reflection lists them);
 * asserts check it.
 *
 * What they store is what they are given: strings, bytes, arrays and
 * sub-messages set are pointed to, not copied (as the generated setters
 * do), and are not checked (a string that is not UTF-8 or a closed enum's
 * undeclared number is written as it is; libprotobuf's setters do not
 * check either). What they make (a sub-message, a grown array) comes from
 * the arena they are given. Plain C11; C++ includes it too. */
#ifndef PBC_FIELD_H
#define PBC_FIELD_H

#include "pbc/pbc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A value of a field: the member of its type. */
typedef union pbc_value {
  bool b;             /* bool */
  int32_t i32;        /* int32, sint32, sfixed32, enum */
  uint32_t u32;       /* uint32, fixed32 */
  int64_t i64;        /* int64, sint64, sfixed64 */
  uint64_t u64;       /* uint64, fixed64 */
  float f;            /* float */
  double d;           /* double */
  pbc_str str;        /* string (the same view as bytes) */
  pbc_bytes bytes;    /* bytes */
  const void *message; /* message, group, map entry: its struct */
} pbc_value;

/* Whether a field is set: HasField. A field without presence (proto3's
 * implicit) is set when not zero (floats by their bits: -0.0 is set) and
 * not empty, as the encoder writes it; a map entry's key and value always;
 * a oneof member when the oneof holds it; a repeated field when not empty
 * (where HasField would abort). */
bool pbc_field_has(const pbc_message_desc *d, const pbc_field_desc *f,
                   const void *m);

/* A singular field's value: the one set, else its default (the declared
 * one, or zero and empty; a message: NULL). */
pbc_value pbc_field_get(const pbc_message_desc *d, const pbc_field_desc *f,
                        const void *m);

/* Sets a singular field: stores the value, sets its presence bit or makes
 * its oneof hold it (another member set before is gone). A message value
 * is its struct's address, which the message keeps (NULL clears it). */
void pbc_field_set(const pbc_message_desc *d, const pbc_field_desc *f,
                   void *m, pbc_value v);

/* ClearField: the field unset, as T_init leaves it (its default in place;
 * a oneof loses it only when it holds it; a repeated field empty). What it
 * pointed to stays where it was. */
void pbc_field_clear(const pbc_message_desc *d, const pbc_field_desc *f,
                     void *m);

/* MutableMessage: a singular message field's struct, to write into; when
 * the field is not set, a new initialized one from the arena, which the
 * field now holds. NULL when the arena cannot give it (m unchanged). The
 * struct held is written through, whoever made it. */
void *pbc_field_mutable_message(const pbc_message_desc *d,
                                const pbc_field_desc *f, void *m,
                                pbc_arena *arena);

/* The oneof's member that is set (libprotobuf's GetOneofFieldDescriptor),
 * or NULL; `oneof` indexes d->oneofs. */
const pbc_field_desc *pbc_oneof_field(const pbc_message_desc *d,
                                      uint32_t oneof, const void *m);

/* ---- Repeated fields and maps ------------------------------------------ */

/* FieldSize: the elements of a repeated field (a map's entries). */
size_t pbc_field_size(const pbc_message_desc *d, const pbc_field_desc *f,
                      const void *m);

/* Element i (below pbc_field_size): a message element (a map entry) is
 * its struct, in place in the array. */
pbc_value pbc_field_get_at(const pbc_message_desc *d, const pbc_field_desc *f,
                           const void *m, size_t i);

/* Writes element i in place (a message element: the struct v points to,
 * copied member for member). The array must be writable: one that decode,
 * pbc_message_copy, pbc_message_merge or pbc_field_add made, not a
 * constant one a caller set. */
void pbc_field_set_at(const pbc_message_desc *d, const pbc_field_desc *f,
                      void *m, size_t i, pbc_value v);

/* Appends an element and returns its address in the array: `v`, or for a
 * message element (a map entry) a copy of the struct v.message points to,
 * or a new initialized one when it is NULL (libprotobuf's AddMessage), to
 * fill through the address returned. NULL when the arena cannot give the
 * memory (m unchanged). The array grows in place while it is the arena's
 * newest allocation (sub-messages come from the other end of the arena's
 * block, so a loop adding elements and filling them copies each element
 * about once); otherwise it is copied into a new one. A map takes the
 * entry as it is: when an entry has its key already, the later one wins
 * when the message is decoded again, as with libprotobuf's AddMessage. */
void *pbc_field_add(const pbc_message_desc *d, const pbc_field_desc *f,
                    void *m, pbc_value v, pbc_arena *arena);

/* Sets a repeated field to the `size` elements at `data` (of the element
 * type's C representation: pbc_field_value_bytes each), which the message
 * points to. */
void pbc_field_set_array(const pbc_message_desc *d, const pbc_field_desc *f,
                         void *m, const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PBC_FIELD_H */
