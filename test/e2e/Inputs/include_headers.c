/* Compiled as C11 and as C++17 by header.test: the generated headers alone
 * must be enough, with nothing but their folder on the include path. */
#include "alltypes.pbc.h"
#include "alltypes2.pbc.h"
#include "alltypes.pbc.h" /* include guards */

int main(void) {
  e2e_p3_AllTypes a;
  e2e_p3_AllTypes_init(&a);
  e2e_p3_Empty e;
  e2e_p3_Empty_init(&e);
  e2e_p2_AllTypes2 b;
  e2e_p2_AllTypes2_init(&b);
  e2e_imp_Imported i;
  e2e_imp_Imported_init(&i);
  return (int)(e2e_p3_AllTypes_encoded_size(&a) + e2e_p3_Empty_encoded_size(&e) +
               e2e_p2_AllTypes2_encoded_size(&b) + e2e_imp_Imported_encoded_size(&i));
}
