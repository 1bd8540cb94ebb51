# MERLIN_SANITIZE: a sanitized build (docs/sanitizers.md). "address,undefined" (ASan + UBSan)
# or "thread" (TSan); empty is off. The flags go on every target compiled after this file is
# included (compile and link), but for merlin-guard (merlin_sanitize_exclude below).
set(MERLIN_SANITIZE "" CACHE STRING "Sanitizers to build with: address,undefined | thread | empty (off)")
set(MERLIN_SANITIZE_FLAGS "")
if(MERLIN_SANITIZE)
  if(NOT MERLIN_SANITIZE MATCHES "^(address,undefined|undefined,address|address|undefined|thread)$")
    message(FATAL_ERROR "MERLIN_SANITIZE=${MERLIN_SANITIZE}: expected address,undefined or thread (or empty)")
  endif()
  set(MERLIN_SANITIZE_FLAGS -fsanitize=${MERLIN_SANITIZE} -fno-omit-frame-pointer)
  if(MERLIN_SANITIZE MATCHES "undefined")
    # Undefined behaviour fails the test that meets it instead of printing and going on.
    list(APPEND MERLIN_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${MERLIN_SANITIZE_FLAGS})
  add_link_options(${MERLIN_SANITIZE_FLAGS})
  message(STATUS "merlin: sanitized build (${MERLIN_SANITIZE_FLAGS})")
endif()

# The sanitizer runtimes cannot be linked statically, and merlin-guard is: it is built without
# the sanitizer flags (static as in every other build; a few hundred lines of async-signal-safe
# C-style code, run unsanitized).
function(merlin_sanitize_exclude target)
  if(NOT MERLIN_SANITIZE_FLAGS)
    return()
  endif()
  foreach(prop COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(opts ${target} ${prop})
    if(opts)
      list(REMOVE_ITEM opts ${MERLIN_SANITIZE_FLAGS})
      set_target_properties(${target} PROPERTIES ${prop} "${opts}")
    endif()
  endforeach()
endfunction()
