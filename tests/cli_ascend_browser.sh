#!/bin/sh
# cli_ascend_browser.sh — the report of an Ascend run's time side in headless
# Chromium (web/test-browser/ascendtime.mjs): the text export, the db export
# and a kernel_details.csv-only folder, each in NPU words with its Kernels
# grouped by Accelerator Core.  Screenshots go to build/screenshots/ascend-time-*.
# SKIPs when chromium, node, web/node_modules or the data are absent.
. tests/lib.sh
t_browser_setup
add() { # NAME INPUT CORES [LAUNCHES]
    if [ ! -e "$2" ]; then t_skip "$1: no $2"; return 0; fi
    "$MEMLENS" report "$2" -o "$tmp/$1.html" || { t_fail "$1: report failed"; return 0; }
    t_file_page "$1" "$tmp/$1.html" || return 0
    t_page "$tmp/pages" "$1" "$tmp/$1.html" "$shots/ascend-time-$1" "$3" ${4:+"$4"}
}
add text "$DATA/ascend/text_level1" "HCCL,AI_CORE,MIX_AIV" 507
add db "$DATA/ascend/db_level1" "HCCL,AI_VECTOR_CORE,AI_CORE" 505
if [ -f "$DATA/ascend_older/trace_view_2024/kernel_details.csv" ]; then
    mkdir -p "$tmp/kd_ascend_pt/ASCEND_PROFILER_OUTPUT"
    cp "$DATA/ascend_older/trace_view_2024/kernel_details.csv" "$tmp/kd_ascend_pt/ASCEND_PROFILER_OUTPUT/"
    add kernel_details "$tmp/kd_ascend_pt" "HCCL,AI_VECTOR_CORE,AI_CPU,AI_CORE"
else
    t_skip "no kernel_details.csv in $DATA/ascend_older"
fi
t_browse web/test-browser/ascendtime.mjs "$tmp/pages" "$tmp/log" "page starts"
t_done
