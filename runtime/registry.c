/* Messages by name. Each generated object puts a pointer to its messages'
 * pbc_message_info records into the `pbc_msgs` section; the linker gathers
 * them from every linked object into one array bounded by the
 * __start_/__stop_ symbols it defines for C-identifier section names. */
#include <string.h>

#include "pbc_rt.h"

extern const pbc_message_info *const __start_pbc_msgs[] PBC_WEAK;
extern const pbc_message_info *const __stop_pbc_msgs[] PBC_WEAK;

const pbc_message_info *pbc_find_message(const char *full_name) {
  for (const pbc_message_info *const *it = __start_pbc_msgs;
       it < __stop_pbc_msgs; ++it) {
    if (*it && strcmp((*it)->full_name, full_name) == 0)
      return *it;
  }
  return NULL;
}

size_t pbc_message_count(void) {
  return (size_t)(__stop_pbc_msgs - __start_pbc_msgs);
}

const pbc_message_info *pbc_message_at(size_t i) {
  return i < pbc_message_count() ? __start_pbc_msgs[i] : NULL;
}

/* Extensions by name and number: the `pbc_exts` section, as `pbc_msgs`. */
extern const pbc_extension_info *const __start_pbc_exts[] PBC_WEAK;
extern const pbc_extension_info *const __stop_pbc_exts[] PBC_WEAK;

const pbc_extension_info *pbc_find_extension(const char *full_name) {
  for (const pbc_extension_info *const *it = __start_pbc_exts;
       it < __stop_pbc_exts; ++it) {
    if (*it && strcmp((*it)->full_name, full_name) == 0)
      return *it;
  }
  return NULL;
}

/* By the extendee's description itself: every library that compiles the
 * extendee's file defines it weak_odr, and the linker keeps one. A
 * description of the same name from elsewhere (a schema loaded or compiled
 * at run time) is another message, whose layout the extension's accessors
 * do not know. */
const pbc_extension_info *
pbc_find_extension_by_number(const pbc_message_desc *extendee,
                             uint32_t number) {
  for (const pbc_extension_info *const *it = __start_pbc_exts;
       it < __stop_pbc_exts; ++it) {
    const pbc_extension_info *e = *it;
    if (e && e->number == number && e->extendee == extendee) return e;
  }
  return NULL;
}

size_t pbc_extension_count(void) {
  return (size_t)(__stop_pbc_exts - __start_pbc_exts);
}

const pbc_extension_info *pbc_extension_at(size_t i) {
  return i < pbc_extension_count() ? __start_pbc_exts[i] : NULL;
}
