# cmake -DTOOL=<clang-vmap> -DINPUT=<file.cpp> -DOUTPUT=<file.vmap.cpp>
#       -P rewrite_checked.cmake -- <compiler flags>
# rewrite_or_stub.cmake with clang-vmap --check: the program runs each loop batched and as
# written and throws where they differ (Note [Check mode] in vmap/batched.hpp).
set(TOOL_OPTIONS --check)
include(${CMAKE_CURRENT_LIST_DIR}/rewrite_or_stub.cmake)
