# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DIN=file -DOUT=file.gz -P gzip.cmake: gzip as Debian wants it (-9, no name or time).
execute_process(COMMAND gzip -9n -c ${IN} OUTPUT_FILE ${OUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "gzip ${IN} failed: ${status}")
endif()
