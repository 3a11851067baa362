# Vivado block design for a Zynq-7000 board around the exported IP (build_ip.tcl first):
# PS7 with FCLK0 at the kernel clock, the three AXI masters on HP0..HP2, AXI-Lite control on GP0,
# ap_done interrupt on IRQ_F2P[0]. Produces the bitstream and an .xsa/.hdf for the device tree
# (the uio driver binds to the generated node). Run:
#   vivado -mode batch -source kernels/hls/vivado/block_design.tcl
# Environment overrides: FPGACNN_PART (xc7z020clg484-1), FPGACNN_BOARD_PART (Zedboard's),
# FPGACNN_CLOCK_MHZ (150), FPGACNN_IP_REPO (the IP exported by build_ip.tcl).

set here [file dirname [file normalize [info script]]]
proc env_or {name default} {
    if {[info exists ::env($name)]} { return $::env($name) }
    return $default
}
set part [env_or FPGACNN_PART xc7z020clg484-1]
set board_part [env_or FPGACNN_BOARD_PART avnet.com:zedboard:part0:1.4]
set clock_mhz [env_or FPGACNN_CLOCK_MHZ 150]
set ip_repo [env_or FPGACNN_IP_REPO [pwd]/fpgacnn_accel_hls/zynq7000/impl/ip]

create_project -force fpgacnn_zynq7000 fpgacnn_zynq7000 -part $part
catch {set_property board_part $board_part [current_project]}
set_property ip_repo_paths $ip_repo [current_project]
update_ip_catalog

create_bd_design fpgacnn
set ps [create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7 ps7]
apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 \
    -config {make_external "FIXED_IO, DDR" apply_board_preset "1"} $ps
set_property -dict [list CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ $clock_mhz \
    CONFIG.PCW_USE_S_AXI_HP0 1 CONFIG.PCW_USE_S_AXI_HP1 1 CONFIG.PCW_USE_S_AXI_HP2 1 \
    CONFIG.PCW_USE_FABRIC_INTERRUPT 1 CONFIG.PCW_IRQ_F2P_INTR 1] $ps

set accel [create_bd_cell -type ip -vlnv fpgacnn.org:hls:fpgacnn_accel:1.0 fpgacnn_accel_0]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Master "/ps7/M_AXI_GP0" Clk "Auto"} \
    [get_bd_intf_pins $accel/s_axi_control]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Slave "/ps7/S_AXI_HP0" Clk "Auto"} \
    [get_bd_intf_pins $accel/m_axi_gmem_fm_read]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Slave "/ps7/S_AXI_HP1" Clk "Auto"} \
    [get_bd_intf_pins $accel/m_axi_gmem_fm_write]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Slave "/ps7/S_AXI_HP2" Clk "Auto"} \
    [get_bd_intf_pins $accel/m_axi_gmem_params]
# The byte-wide feature-map masters (8-bit tensors) share the HP ports of the word-wide ones: a command
# uses one read and one write master of the four.
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Slave "/ps7/S_AXI_HP0" Clk "Auto"} \
    [get_bd_intf_pins $accel/m_axi_gmem_fm8_read]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Slave "/ps7/S_AXI_HP1" Clk "Auto"} \
    [get_bd_intf_pins $accel/m_axi_gmem_fm8_write]
connect_bd_net [get_bd_pins $accel/interrupt] [get_bd_pins ps7/IRQ_F2P]

validate_bd_design
save_bd_design
make_wrapper -files [get_files fpgacnn.bd] -top
add_files -norecurse [glob fpgacnn_zynq7000/fpgacnn_zynq7000.gen/sources_1/bd/fpgacnn/hdl/fpgacnn_wrapper.v \
                            fpgacnn_zynq7000/fpgacnn_zynq7000.srcs/sources_1/bd/fpgacnn/hdl/fpgacnn_wrapper.v]
launch_runs impl_1 -to_step write_bitstream -jobs 2
wait_on_run impl_1
write_hw_platform -fixed -include_bit -force fpgacnn_zynq7000.xsa
puts "bitstream and fpgacnn_zynq7000.xsa written; load with fpgautil and bind uio to fpgacnn_accel_0"
