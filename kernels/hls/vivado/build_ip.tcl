# Vivado HLS / Vitis HLS flow for Zynq-7000 boards (uio driver): C-simulates the kernel against its
# testbench, synthesises it and exports an IP-XACT core for a Vivado block design
# (block_design.tcl). Run from any directory:
#   vivado_hls -f kernels/hls/vivado/build_ip.tcl          (Vivado HLS 2018.3 - 2020.1)
#   vitis_hls  -f kernels/hls/vivado/build_ip.tcl          (Vitis HLS 2020.2+)
# Environment overrides: FPGACNN_PART (default xc7z020clg484-1, Zedboard), FPGACNN_CLOCK_MHZ (150),
# FPGACNN_TM/TN/TR/TC (32/4/26/26), FPGACNN_MAX_K/MAX_S (3/2), FPGACNN_INT8_PAIRS (1; 0 leaves the pair
# mode of 8-bit layers out), FPGACNN_PORT_BITS (16; 64: four elements a beat on the word masters, the
# byte masters half as wide), FPGACNN_SKIP_CSIM=1. fpgacnn-plan
# --explore --config-out FILE writes these for a board (`set -a; . FILE; set +a` before running).
# Every file path below is relative to this script's directory (tests/kernel checks them).

set here [file dirname [file normalize [info script]]]
proc env_or {name default} {
    if {[info exists ::env($name)]} { return $::env($name) }
    return $default
}
set part [env_or FPGACNN_PART xc7z020clg484-1]
set clock_mhz [env_or FPGACNN_CLOCK_MHZ 150]
set maxima "-DFPGACNN_TM=[env_or FPGACNN_TM 32] -DFPGACNN_TN=[env_or FPGACNN_TN 4]"
append maxima " -DFPGACNN_TR=[env_or FPGACNN_TR 26] -DFPGACNN_TC=[env_or FPGACNN_TC 26]"
append maxima " -DFPGACNN_MAX_K=[env_or FPGACNN_MAX_K 3] -DFPGACNN_MAX_S=[env_or FPGACNN_MAX_S 2]"
append maxima " -DFPGACNN_INT8_PAIRS=[env_or FPGACNN_INT8_PAIRS 1]"
append maxima " -DFPGACNN_PORT_BITS=[env_or FPGACNN_PORT_BITS 16]"
set cflags "-I$here/../../include -I$here/../../src $maxima"

open_project -reset fpgacnn_accel_hls
set_top fpgacnn_accel
add_files $here/../../src/accel_top.cpp -cflags $cflags
add_files -tb $here/../tb/accel_tb.cpp -cflags $cflags

open_solution -reset zynq7000
set_part $part
create_clock -period [expr {1000.0 / $clock_mhz}] -name default
# Zynq-7000 HP ports take 32-bit addresses: the register map then has one word per base address.
config_interface -m_axi_addr64=false

if {[env_or FPGACNN_SKIP_CSIM 0] == 0} {
    csim_design
}
csynth_design
export_design -format ip_catalog -rtl verilog -vendor fpgacnn.org -library hls -version 1.0 \
    -display_name "fpgacnn YOLOv2 layer accelerator"
puts "IP exported to fpgacnn_accel_hls/zynq7000/impl/ip; register map in"
puts "fpgacnn_accel_hls/zynq7000/impl/misc/drivers/fpgacnn_accel_v1_0/src/xfpgacnn_accel_hw.h"
exit
