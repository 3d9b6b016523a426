/* Uses two pbc headers that share an import, from C11 and C++17. */
#include "compile.pbc.h"
#include "other.pbc.h"

int use_headers(void);

int use_headers(void) {
  shared_Tag tag;
  app_Doc doc;
  other_Labels labels;
  shared_Tag tags[2];
  int ok = 1;

  shared_Tag_set_kind(&tag, shared_Kind_KIND_B);
  ok &= shared_Tag_has_kind(&tag);
  shared_Tag_clear_key(&tag);
  ok &= tag.key.size == 0;

  doc.owner = &tag;
  doc.tags.data = tags;
  doc.tags.size = 2;
  doc.scores.data = NULL;
  doc.scores.size = 0;
  app_Doc_set_title(&doc, doc.title);
  labels.tags.data = tags;
  labels.tags.size = 0;
  other_Labels_set_strict(&labels, true);
  ok &= other_Labels_has_strict(&labels);
  return ok && app_Doc_encoded_size(&doc) > 0;
}
