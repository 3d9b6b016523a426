/* Builds an Order, encodes it, decodes the bytes and checks every field came
 * back: the round trip the generated library exists for. */
#include <stdio.h>
#include <string.h>

#include "order.pbc.h"

static pbc_str str(const char *s) {
  pbc_str v = {s, strlen(s)};
  return v;
}

static int same(pbc_str a, const char *b) {
  return a.size == strlen(b) && memcmp(a.data, b, a.size) == 0;
}

int main(void) {
  pbc_str items[] = {str("tea"), str("scones")};
  shop_Money total;
  shop_Money_init(&total);
  total.currency = str("GBP");
  total.cents = 1250;

  shop_Order order;
  shop_Order_init(&order);
  order.id = 42;
  order.customer = str("Ada");
  order.items.data = items;
  order.items.size = 2;
  order.total = &total;

  uint8_t buf[256];
  size_t len = 0;
  pbc_status s = shop_Order_encode(&order, buf, sizeof buf, &len);
  if (s != PBC_OK) {
    fprintf(stderr, "encode failed: %s\n", pbc_status_str(s));
    return 1;
  }

  char mem[1024];
  pbc_arena arena;
  pbc_arena_init(&arena, mem, sizeof mem);
  shop_Order back;
  s = shop_Order_decode(&back, buf, len, &arena);
  if (s != PBC_OK) {
    fprintf(stderr, "decode failed: %s\n", pbc_status_str(s));
    pbc_arena_destroy(&arena);
    return 1;
  }
  if (back.id != 42 || !same(back.customer, "Ada") || back.items.size != 2 ||
      !same(back.items.data[1], "scones") || !back.total ||
      !same(back.total->currency, "GBP") || back.total->cents != 1250) {
    fprintf(stderr, "round trip changed the order\n");
    pbc_arena_destroy(&arena);
    return 1;
  }
  printf("order %llu for %.*s: %zu bytes, round trip ok\n",
         (unsigned long long)back.id, (int)back.customer.size,
         back.customer.data, len);
  pbc_arena_destroy(&arena);
  return 0;
}
