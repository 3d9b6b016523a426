/* ProtoJSON through the generated functions: reads an address book as
 * JSON (any form of the mapping: json_name or declared names, enums by
 * name or number, 64-bit integers quoted or not), gives everyone without
 * a phone a MOBILE one, and prints the book back (pretty with -p, with
 * the declared names with -n). Bad input is reported with its byte
 * offset and the reason, and the book is not printed.
 *   json [-p] [-n] < book.json */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addressbook.pbc.h"

int main(int argc, char **argv) {
  pbc_json_options options = {0};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-p") == 0) options.add_whitespace = true;
    else if (strcmp(argv[i], "-n") == 0) options.preserve_proto_field_names = true;
    else {
      fprintf(stderr, "usage: json [-p] [-n] < book.json\n");
      return 2;
    }
  }
  static char in[1 << 16];
  size_t len = fread(in, 1, sizeof in, stdin);

  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  tutorial_AddressBook book;
  pbc_json_error error;
  pbc_status s = tutorial_AddressBook_from_json(&book, in, len, &arena, &options, &error);
  if (s != PBC_OK) {
    fprintf(stderr, "json: byte %zu: %s (%s)\n", error.offset, error.message,
            pbc_status_str(s));
    pbc_arena_destroy(&arena);
    return 1;
  }

  /* What the parser built is an ordinary struct: change it in place. */
  static tutorial_Person_PhoneNumber none;
  tutorial_Person_PhoneNumber_init(&none);
  none.number = (pbc_str){"(none)", 6};
  none.type = tutorial_Person_PhoneType_MOBILE;
  for (size_t i = 0; i < book.people.size; i++) {
    tutorial_Person *p = &book.people.data[i];
    if (p->phones.size == 0) {
      p->phones.data = &none;
      p->phones.size = 1;
    }
  }

  /* Ask for the length, then print into a buffer of that size. */
  size_t n = 0;
  s = tutorial_AddressBook_to_json(&book, NULL, 0, &n, &options);
  char *out = malloc(n ? n : 1);
  if (out == NULL || (s != PBC_OK && s != PBC_ERR_BUFFER_TOO_SMALL) ||
      (s = tutorial_AddressBook_to_json(&book, out, n, &n, &options)) != PBC_OK) {
    fprintf(stderr, "json: %s\n", out ? pbc_status_str(s) : "out of memory");
    free(out);
    pbc_arena_destroy(&arena);
    return 1;
  }
  fwrite(out, 1, n, stdout);
  if (!options.add_whitespace) putchar('\n');
  free(out);
  pbc_arena_destroy(&arena);
  return 0;
}
