// Uses the C++ layer: errors become tessel::Error.
#include <tessel/tessel.hpp>

#include <cstdio>

int main() {
  try {
    tessel::Context ctx("tpu");
    return 1;
  } catch (const tessel::Error &e) {
    if (e.status() != TESSEL_ERROR_INVALID_ARGUMENT)
      return 2;
    std::printf("consumer_cxx ok: %s\n", e.what());
  }
  return 0;
}
