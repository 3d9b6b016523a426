/* The address book of main.c, in C++17 through addressbook.pbc.hpp
 * (pbc compile --cpp-header). Prints exactly expected_output.txt.
 *
 *   pbc compile --cpp-header -I examples/addressbook \
 *       examples/addressbook/addressbook.proto -o build/ab/libaddressbook.a
 *   c++ -std=c++17 -Wall -Wextra examples/addressbook/main.cpp -Ibuild/ab \
 *       build/ab/libaddressbook.a -o addressbook
 *   ./addressbook */
#include <cstdio>
#include <string>
#include <vector>

#include "addressbook.pbc.hpp"

using tutorial::AddressBook;
using tutorial::Person;
using tutorial::Person_PhoneNumber;

static Person_PhoneNumber phone(const char *number, tutorial::Person_PhoneType type) {
  auto p = pbc::make<Person_PhoneNumber>();
  p.number = pbc::str(number);
  p.type = type;
  return p;
}

static void list_people(const AddressBook &book) {
  for (const Person &person : pbc::view(book.people)) {
    std::printf("Person ID: %d\n", static_cast<int>(person.id));
    std::string_view name = pbc::view(person.name);
    std::printf("  Name: %.*s\n", static_cast<int>(name.size()), name.data());
    if (std::string_view email = pbc::view(person.email); !email.empty())
      std::printf("  E-mail address: %.*s\n", static_cast<int>(email.size()),
                  email.data());
    for (const Person_PhoneNumber &p : pbc::view(person.phones)) {
      switch (p.type) {
      case tutorial_Person_PhoneType_MOBILE: std::printf("  Mobile phone #: "); break;
      case tutorial_Person_PhoneType_HOME: std::printf("  Home phone #: "); break;
      case tutorial_Person_PhoneType_WORK: std::printf("  Work phone #: "); break;
      default: std::printf("  Phone of type %d #: ", static_cast<int>(p.type)); break;
      }
      std::string_view number = pbc::view(p.number);
      std::printf("%.*s\n", static_cast<int>(number.size()), number.data());
    }
  }
}

int main() {
  // Build: the message points into these vectors and literals.
  std::vector<Person_PhoneNumber> alice_phones = {
      phone("555-4321", tutorial_Person_PhoneType_HOME),
      phone("555-0100", tutorial_Person_PhoneType_MOBILE)};
  std::vector<Person_PhoneNumber> jose_phones = {
      phone("+34 600 000 000", tutorial_Person_PhoneType_WORK)};
  std::vector<Person> people(2, pbc::make<Person>());
  people[0].name = pbc::str("Alice Smith");
  people[0].id = 1234;
  people[0].email = pbc::str("alice@example.com");
  pbc::assign(people[0].phones, pbc::span<Person_PhoneNumber>(alice_phones));
  people[1].name = pbc::str("Jos\xc3\xa9 Garc\xc3\xad" "a");
  people[1].id = -7;
  pbc::assign(people[1].phones, pbc::span<Person_PhoneNumber>(jose_phones));
  auto book = pbc::make<AddressBook>();
  pbc::assign(book.people, pbc::span<Person>(people));

  // Encode: into a std::string, or into any buffer with pbc::encode.
  pbc::result<std::string> bytes = pbc::encode_to_string(book);
  if (!bytes) {
    std::fprintf(stderr, "addressbook: encode failed: %s\n", bytes.error());
    return 1;
  }
  std::printf("Encoded AddressBook: %zu bytes\n", bytes->size());
  for (std::size_t i = 0; i < bytes->size() && i < 128; i += 16) {
    std::printf("%04zx:", i);
    for (std::size_t j = i; j < i + 16 && j < bytes->size(); j++)
      std::printf(" %02x", static_cast<unsigned char>((*bytes)[j]));
    std::printf("\n");
  }

  // Decode: strings point into `bytes`, arrays into the arena.
  pbc::arena arena;
  pbc::result<AddressBook> decoded = pbc::parse<AddressBook>(*bytes, arena);
  if (!decoded) {
    std::fprintf(stderr, "addressbook: decode failed: %s\n", decoded.error());
    return 1;
  }
  list_people(*decoded);

  // The decoded book encodes to the same bytes; too small a buffer is a
  // status, not an exception.
  std::vector<std::uint8_t> out(pbc::encoded_size(*decoded));
  pbc::result<std::size_t> written = pbc::encode(*decoded, out);
  if (!written || std::string(out.begin(), out.end()) != *bytes) {
    std::fprintf(stderr, "addressbook: the decoded book re-encodes differently\n");
    return 1;
  }
  std::uint8_t tiny[4];
  if (pbc::encode(*decoded, tiny).status() != PBC_ERR_BUFFER_TOO_SMALL) {
    std::fprintf(stderr, "addressbook: a 4-byte buffer was big enough\n");
    return 1;
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
