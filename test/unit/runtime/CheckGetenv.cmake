# Checks that the runtime reads the environment only in its knob registry
# (runtime/lib/Config.cpp). Run with -DDIR=<runtime/lib>.
file(GLOB sources ${DIR}/*.cpp ${DIR}/*.h)
foreach(f ${sources})
  get_filename_component(name ${f} NAME)
  if(name STREQUAL "Config.cpp")
    continue()
  endif()
  file(STRINGS ${f} hits REGEX "getenv|secure_getenv|environ\\b")
  if(hits)
    message(FATAL_ERROR "${name} reads the environment outside Config.cpp: ${hits}")
  endif()
endforeach()
