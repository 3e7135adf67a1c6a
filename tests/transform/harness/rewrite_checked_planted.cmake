# cmake -DTOOL=<clang-vmap> -DINPUT=<file.cpp> -DOUTPUT=<file.vmap.cpp>
#       -DPLANT=<text> -DPLANTED=<text> -P rewrite_checked_planted.cmake -- <compiler flags>
# rewrite_checked.cmake, then a wrong rewrite planted: the one occurrence of PLANT in the
# batched code (never in the loop as written, which keeps the user's spelling) becomes
# PLANTED. The check must catch it (transform.check.planted_*).
include(${CMAKE_CURRENT_LIST_DIR}/rewrite_checked.cmake)
file(READ "${OUTPUT}" rewritten)
string(FIND "${rewritten}" "${PLANT}" first)
string(FIND "${rewritten}" "${PLANT}" last REVERSE)
if(first EQUAL -1 OR NOT first EQUAL last)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "'${PLANT}' is not in ${OUTPUT} exactly once:\n${rewritten}")
endif()
string(REPLACE "${PLANT}" "${PLANTED}" rewritten "${rewritten}")
file(WRITE "${OUTPUT}" "${rewritten}")
