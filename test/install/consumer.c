/* Uses the C API from C: a bad call must fail with a message. */
#include <tessel/tessel.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  tessel_tensor k;
  memset(&k, 0, sizeof(k));
  if (tessel_indexer_k_cache_write(NULL, &k, &k, &k, NULL) !=
      TESSEL_ERROR_INVALID_ARGUMENT)
    return 1;
  if (!strstr(tessel_last_error(), "ctx is null"))
    return 2;
  tessel_context *ctx = NULL;
  if (tessel_context_create("tpu", 0, &ctx) != TESSEL_ERROR_INVALID_ARGUMENT)
    return 3;
  printf("consumer ok: %s\n", tessel_last_error());
  return 0;
}
