/* Custom options through the extension accessors (extensions.test): argv[1]
 * is protoc's descriptor set of Inputs/custom_options.proto, read as a
 * google.protobuf.FileDescriptorSet; prints every option the file sets,
 * then sets Annotated's (level) to 4 and writes the set to argv[2]. */
#include <stdio.h>
#include <stdlib.h>

#include "custom_options.pbc.h"

static void die(const char *what, pbc_status s) {
  printf("%s: %s\n", what, pbc_status_str(s));
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  static uint8_t in[1 << 16], out[1 << 16];
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  size_t n = fread(in, 1, sizeof in, f);
  fclose(f);
  pbc_arena a;
  pbc_arena_init(&a, NULL, 0);
  google_protobuf_FileDescriptorSet set;
  pbc_status s = google_protobuf_FileDescriptorSet_decode(&set, in, n, &a);
  if (s != PBC_OK) die("decode", s);
  google_protobuf_FileDescriptorProto *file = &set.file.data[0];

  pbc_str tag;
  if ((s = e2e_opt_file_tag_get(file->options, &tag)) != PBC_OK) die("file_tag", s);
  printf("file_tag %.*s\n", (int)tag.size, tag.data);

  for (size_t i = 0; i < file->message_type.size; i++) {
    google_protobuf_DescriptorProto *msg = &file->message_type.data[i];
    printf("message %.*s\n", (int)msg->name.size, msg->name.data);
    /* Without options: the default of (level). */
    google_protobuf_MessageOptions none;
    google_protobuf_MessageOptions_init(&none);
    const google_protobuf_MessageOptions *mo = msg->options ? msg->options : &none;
    printf("  level %d has %d\n", e2e_opt_level_get(mo), e2e_opt_level_has(mo));
    const pbc_str *labels;
    size_t count;
    if ((s = e2e_opt_labels_get(mo, &a, &labels, &count)) != PBC_OK) die("labels", s);
    for (size_t k = 0; k < count; k++)
      printf("  label %.*s\n", (int)labels[k].size, labels[k].data);
    for (size_t j = 0; j < msg->field.size; j++) {
      google_protobuf_FieldDescriptorProto *field = &msg->field.data[j];
      if (!field->options) continue;
      printf("  field %.*s\n", (int)field->name.size, field->name.data);
      e2e_opt_Rule *rule = NULL;
      if ((s = e2e_opt_rule_get(field->options, &a, &rule)) != PBC_OK) die("rule", s);
      if (rule) printf("    rule %d..%d\n", rule->min, rule->max);
      printf("    secret %d\n", e2e_opt_secret_get(field->options));
      const int64_t *weights;
      if ((s = e2e_opt_weights_get(field->options, &a, &weights, &count)) != PBC_OK)
        die("weights", s);
      for (size_t k = 0; k < count; k++) printf("    weight %lld\n", (long long)weights[k]);
    }
  }
  for (size_t i = 0; i < file->enum_type.size; i++) {
    google_protobuf_EnumDescriptorProto *e = &file->enum_type.data[i];
    for (size_t j = 0; j < e->value.size; j++)
      if (e->value.data[j].options)
        printf("value %.*s shade %d\n", (int)e->value.data[j].name.size,
               e->value.data[j].name.data, e2e_opt_shade_get(e->value.data[j].options));
  }

  /* Changed in place: the record keeps its place among the options. */
  google_protobuf_MessageOptions *annotated = file->message_type.data[1].options;
  if ((s = e2e_opt_level_set(annotated, 4, &a)) != PBC_OK) die("level_set", s);
  size_t written = 0;
  s = google_protobuf_FileDescriptorSet_encode(&set, out, sizeof out, &written);
  if (s != PBC_OK) die("encode", s);
  f = fopen(argv[2], "wb");
  if (!f) return 2;
  fwrite(out, 1, written, f);
  fclose(f);
  pbc_arena_destroy(&a);
  return 0;
}
