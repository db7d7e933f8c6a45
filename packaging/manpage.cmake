# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DHEADROOM=path/to/headroom -DOUT=headroom.1 -P manpage.cmake
# Writes headroom(1) with the program's hidden --help-all-man, and OUT.gz beside it.
# A sanitizer build's leak report at exit would not be about the man page.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
execute_process(COMMAND ${HEADROOM} --help-all-man OUTPUT_FILE ${OUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "${HEADROOM} --help-all-man failed: ${status}")
endif()
execute_process(COMMAND gzip -9n -c ${OUT} OUTPUT_FILE ${OUT}.gz RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "gzip ${OUT} failed: ${status}")
endif()
