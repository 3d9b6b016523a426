/* The protocol buffers tutorial's address book, with pbc.
 *
 * Builds an AddressBook of two people in memory the program owns, encodes
 * it, decodes the bytes back into a fresh struct (strings and arrays then
 * point into the encoded buffer or into an arena) and prints every person
 * the way the tutorial's list_people does.
 *
 *   pbc compile -I examples/addressbook examples/addressbook/addressbook.proto \
 *       -o build/ab/libaddressbook.a
 *   cc -std=c11 -Wall -Wextra examples/addressbook/main.c -Ibuild/ab \
 *       build/ab/libaddressbook.a -o addressbook
 *   ./addressbook
 *
 * Its exact output is in expected_output.txt; pbc's tests compare the two. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addressbook.pbc.h"

static pbc_str str(const char *s) {
  pbc_str v = {s, strlen(s)};
  return v;
}

static int fail(const char *what, pbc_status s) {
  fprintf(stderr, "addressbook: %s failed: %s (%d)\n", what, pbc_status_str(s),
          (int)s);
  return 1;
}

/* Like the tutorial's ListPeople. */
static void list_people(const tutorial_AddressBook *book) {
  for (size_t i = 0; i < book->people.size; i++) {
    const tutorial_Person *person = &book->people.data[i];
    printf("Person ID: %d\n", (int)person->id);
    printf("  Name: %.*s\n", (int)person->name.size, person->name.data);
    if (person->email.size != 0)
      printf("  E-mail address: %.*s\n", (int)person->email.size,
             person->email.data);
    for (size_t j = 0; j < person->phones.size; j++) {
      const tutorial_Person_PhoneNumber *phone = &person->phones.data[j];
      switch (phone->type) {
      case tutorial_Person_PhoneType_MOBILE:
        printf("  Mobile phone #: ");
        break;
      case tutorial_Person_PhoneType_HOME:
        printf("  Home phone #: ");
        break;
      case tutorial_Person_PhoneType_WORK:
        printf("  Work phone #: ");
        break;
      default:
        printf("  Phone of type %d #: ", (int)phone->type);
        break;
      }
      printf("%.*s\n", (int)phone->number.size, phone->number.data);
    }
  }
}

int main(void) {
  /* ---- Build: every struct, string and array is ours. ---- */
  tutorial_Person_PhoneNumber alice_phones[2];
  tutorial_Person_PhoneNumber_init(&alice_phones[0]);
  alice_phones[0].number = str("555-4321");
  alice_phones[0].type = tutorial_Person_PhoneType_HOME;
  tutorial_Person_PhoneNumber_init(&alice_phones[1]);
  alice_phones[1].number = str("555-0100");
  alice_phones[1].type = tutorial_Person_PhoneType_MOBILE; /* 0: not written */

  tutorial_Person_PhoneNumber jose_phones[1];
  tutorial_Person_PhoneNumber_init(&jose_phones[0]);
  jose_phones[0].number = str("+34 600 000 000");
  jose_phones[0].type = tutorial_Person_PhoneType_WORK;

  tutorial_Person people[2];
  tutorial_Person_init(&people[0]);
  people[0].name = str("Alice Smith");
  people[0].id = 1234;
  people[0].email = str("alice@example.com");
  people[0].phones.data = alice_phones;
  people[0].phones.size = 2;

  tutorial_Person_init(&people[1]);
  people[1].name = str("Jos\xc3\xa9 Garc\xc3\xad" "a"); /* UTF-8 */
  people[1].id = -7; /* negative int32: a 10-byte varint */
  people[1].phones.data = jose_phones;
  people[1].phones.size = 1;

  tutorial_AddressBook book;
  tutorial_AddressBook_init(&book);
  book.people.data = people;
  book.people.size = 2;

  /* ---- Encode into a buffer of exactly the encoded size. ---- */
  size_t size = tutorial_AddressBook_encoded_size(&book);
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) {
    fprintf(stderr, "addressbook: out of memory\n");
    return 1;
  }
  size_t written = 0;
  pbc_status s = tutorial_AddressBook_encode(&book, buf, size, &written);
  if (s != PBC_OK) return fail("encode", s);
  if (written != size) {
    fprintf(stderr, "addressbook: encode wrote %zu bytes, encoded_size said %zu\n",
            written, size);
    return 1;
  }

  printf("Encoded AddressBook: %zu bytes\n", size);
  size_t shown = size < 128 ? size : 128;
  for (size_t i = 0; i < shown; i += 16) {
    printf("%04zx:", i);
    for (size_t j = i; j < i + 16 && j < shown; j++) printf(" %02x", buf[j]);
    printf("\n");
  }

  /* ---- Decode into a fresh struct, arena-backed. ---- */
  pbc_arena arena;
  pbc_arena_init(&arena, NULL, 0);
  tutorial_AddressBook decoded;
  s = tutorial_AddressBook_decode(&decoded, buf, size, &arena);
  if (s != PBC_OK) {
    pbc_arena_destroy(&arena);
    return fail("decode", s);
  }
  list_people(&decoded);

  /* The decoded book must encode to the same bytes. */
  size_t size2 = tutorial_AddressBook_encoded_size(&decoded);
  uint8_t *buf2 = malloc(size2 ? size2 : 1);
  if (!buf2) {
    fprintf(stderr, "addressbook: out of memory\n");
    return 1;
  }
  s = tutorial_AddressBook_encode(&decoded, buf2, size2, &written);
  int rc = 0;
  if (s != PBC_OK) {
    rc = fail("re-encode", s);
  } else if (size2 != size || written != size || memcmp(buf, buf2, size) != 0) {
    fprintf(stderr, "addressbook: the decoded book re-encodes differently\n");
    rc = 1;
  }

  pbc_arena_destroy(&arena);
  free(buf2);
  free(buf);
  if (fflush(stdout) != 0) return 1;
  return rc;
}
