# Installs the runtime component of the build tree (what a GPU host needs)
# into a temp prefix, then configures, builds and runs
# test/install against it. Run with -DBUILD_DIR -DSOURCE -DWORK -DGENERATOR.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix
                        --component runtime
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
foreach(f include/tessel/tessel.h include/tessel/tessel.hpp include/tessel/bundle.h
          bin/tessel-bundle lib/cmake/Tessel/TesselConfig.cmake)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -G ${GENERATOR} -S ${SOURCE} -B ${WORK}/build
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed")
endif()
foreach(exe consumer consumer_cxx)
  execute_process(COMMAND ${WORK}/build/${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${exe} failed with ${rc}")
  endif()
endforeach()
execute_process(COMMAND ${WORK}/prefix/bin/tessel-bundle --list /nonexistent
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "installed tessel-bundle did not run: ${err}")
endif()
