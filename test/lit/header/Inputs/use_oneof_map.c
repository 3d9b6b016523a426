/* Uses the oneof, map and unknown-field members of oneof-map.pbc.h, from
 * C11 and C++17. Needs no pbc library: only the header's inline code runs. */
#include "oneof-map.pbc.h"

#include <stdio.h>
#include <string.h>

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("failed: %s\n", #cond);                                           \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(void) {
  om_Box box;
  om_Item item;
  om_Box_ItemsEntry entries[1];
  om_Box_ColorsEntry colors[2];
  static const uint8_t raw[] = {0x98, 0x06, 0x01}; /* field 99 = 1 */
  pbc_str text;

  memset(&box, 0, sizeof box);
  memset(&item, 0, sizeof item);
  EXPECT(box.payload_case == om_Box_payload_NOT_SET);
  EXPECT(!om_Box_has_num(&box) && !om_Box_has_item(&box));

  om_Box_set_num(&box, 42);
  EXPECT(om_Box_has_num(&box) && box.payload.num == 42);
  EXPECT(box.payload_case == 2);

  text.data = "hi";
  text.size = 2;
  om_Box_set_text(&box, text);
  EXPECT(!om_Box_has_num(&box) && om_Box_has_text(&box));
  EXPECT(box.payload.text.size == 2);

  om_Box_set_item(&box, &item);
  EXPECT(om_Box_has_item(&box) && box.payload.item == &item);
  EXPECT((om_Box_payload_case)box.payload_case == om_Box_payload_item);

  om_Box_clear_payload(&box);
  EXPECT(box.payload_case == 0 && !om_Box_has_item(&box));

  om_Box_set_ratio(&box, 0.5);
  EXPECT(om_Box_has_ratio(&box) && !om_Box_has_flag(&box));
  EXPECT(box.default_.ratio == 0.5 && box.default_case == 10);
  om_Box_clear_default(&box);
  EXPECT(!om_Box_has_ratio(&box));

  /* A oneof member does not touch the presence bits. */
  EXPECT(box._presence[0] == 0);
  om_Box_set_count(&box, 3);
  om_Box_set__unknown(&box, 7);
  EXPECT(om_Box_has_count(&box) && om_Box_has__unknown(&box));
  EXPECT(box._unknown_ == 7);

  entries[0].key.data = "a";
  entries[0].key.size = 1;
  entries[0].value = &item;
  box.items.data = entries;
  box.items.size = 1;
  colors[0].key = 1;
  colors[0].value = om_Color_RED;
  colors[1].key = 2;
  colors[1].value = om_Color_GREEN;
  box.colors.data = colors;
  box.colors.size = 2;
  EXPECT(box.colors.data[1].value == om_Color_GREEN);

  box._unknown.data = raw;
  box._unknown.size = sizeof raw;
  EXPECT(box._unknown.size == 3);
  return 0;
}
