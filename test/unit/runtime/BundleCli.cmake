# Checks that tessel-bundle packs a description, lists it, and rejects bad
# input with a clear error. Run with -DTOOL=<tessel-bundle> -DWORK=<dir>.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/objs)
file(WRITE ${WORK}/objs/k.simt "FAKE-SIMT kernel=indexer_k_cache_write fp8=e4m3fn tpp=4")
file(WRITE ${WORK}/objs/k.ptx ".version 8.0\n.target sm_90\n")
file(WRITE ${WORK}/desc.json [=[
{"tessel_bundle": 1, "compiler_version": "tessel 0.1.0",
 "code_objects": [
  {"name": "w.bf16.t4.emu950", "kernel": "indexer_k_cache_write",
   "target": "emu-gfx950", "file": "objs/k.simt",
   "knobs": {"k_bf16": 1, "tokens_per_program": 4},
   "args": [{"name": "num_tokens", "kind": "i32", "size": 4},
            {"name": "num_slots", "kind": "i64", "size": 8}],
   "block": [256], "resources": "{\"vgpr\": 24}", "source_hash": "abc123"},
  {"name": "w.bf16.t4.sm90", "kernel": "indexer_k_cache_write",
   "target": "sm_90", "file": "objs/k.ptx",
   "knobs": {"k_bf16": 1}, "args": [], "block": [128, 1, 1]}]}
]=])

function(run expect_rc)
  execute_process(COMMAND ${TOOL} ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "tessel-bundle ${ARGN}: rc ${rc}, expected ${expect_rc}\n${out}${err}")
  endif()
  set(OUT "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_in needle)
  string(FIND "${OUT}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${needle}' in:\n${OUT}")
  endif()
endfunction()

run(0 -o ${WORK}/out.tbundle ${WORK}/desc.json)
run(0 --list ${WORK}/out.tbundle)
expect_in("2 code objects")
expect_in("w.bf16.t4.emu950: kernel=indexer_k_cache_write target=gfx950 format=simt bytes=55 block=256x1x1 knobs={k_bf16=1,tokens_per_program=4} args=2(num_tokens:i32,num_slots:i64) source_hash=abc123")
expect_in("w.bf16.t4.sm90: kernel=indexer_k_cache_write target=sm_90 format=ptx bytes=27 block=128x1x1")
run(0 --json ${WORK}/out.tbundle)
expect_in("\"tessel_bundle\":1")

# A truncated bundle and a non-bundle are rejected.
file(READ ${WORK}/out.tbundle hex HEX)
string(SUBSTRING "${hex}" 0 200 head)
file(WRITE ${WORK}/short.tbundle "TSLBNDL")
run(1 --list ${WORK}/short.tbundle)
expect_in("error: bundle '${WORK}/short.tbundle': not a Tessel bundle")
run(1 --list ${WORK}/missing.tbundle)
expect_in("cannot open")

# Inconsistent descriptions are rejected with the entry named.
file(WRITE ${WORK}/bad.json [=[
{"tessel_bundle": 1, "code_objects": [{"name": "x", "kernel": "k",
 "target": "gfx942", "format": "ptx", "file": "objs/k.ptx", "args": [],
 "block": [64]}]}
]=])
run(1 -o ${WORK}/bad.tbundle ${WORK}/bad.json)
expect_in("code object 'x': ptx code cannot target gfx942 (gfx942 needs hsaco or simt)")
run(1 -o ${WORK}/bad.tbundle ${WORK}/nope.json)
run(2 --bogus)

# Endless and non-regular files are refused at once, never read forever.
run(1 --list /dev/zero)
expect_in("'/dev/zero': it is a character device, not a regular file")
run(1 --list ${WORK})
expect_in("it is a directory")
run(1 -o ${WORK}/z.tbundle /dev/zero)
expect_in("'/dev/zero': it is a character device")
