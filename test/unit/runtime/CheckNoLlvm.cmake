# Checks that the runtime library needs nothing but the C/C++ runtime:
# no LLVM, MLIR, CUDA or HIP library. Run with -DLIB=<libtessel_runtime.so>.
execute_process(COMMAND readelf -d ${LIB} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${LIB}")
endif()
string(REGEX MATCHALL "Shared library: \\[[^]]+\\]" needed "${out}")
foreach(n ${needed})
  # A sanitizer build also links the sanitizer runtimes.
  if(NOT n MATCHES "\\[(libc|libm|libdl|libpthread|librt|libstdc\\+\\+|libgcc_s|ld-linux[-a-z0-9_]*|libasan|libubsan)\\.so")
    message(FATAL_ERROR "libtessel_runtime needs an unexpected library: ${n}")
  endif()
endforeach()
message(STATUS "NEEDED: ${needed}")
