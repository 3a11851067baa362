// The HLS top function: one layer per call. The scalars arrive over AXI-Lite (bundle "control",
// in argument order: see register_map.hpp); feature maps are read and written through two separate
// AXI masters onto the same arena buffer, weights and biases through a third, and 8-bit feature maps
// (arith::fm_element_bytes) through two byte-wide masters onto the same arena again: a master has one
// data width, and a command uses one read and one write master of the four.
#include "fpgacnn/kernel/accel.hpp"
#include "run_command.hpp"

// The masters are FPGACNN_PORT_BITS wide (port_beat.hpp: int16_t / int8_t at the reference 16 bits,
// a struct of kPortElements elements in a wider build, which Vitis HLS aggregates into one data bus);
// port_io.hpp reads whole beats and writes with strobes over the run's lanes only. The interface
// pragmas keep the bursts at 256 beats whatever the width; a wider beat moves more per burst.
// Not verified here: no Vitis HLS on these machines (the native build runs the same code).
extern "C" void fpgacnn_accel(
    uint32_t op, uint32_t input_offset, uint32_t output_offset, uint32_t weight_offset, uint32_t bias_offset,
    uint32_t in_c, uint32_t in_h, uint32_t in_w, uint32_t out_c, uint32_t out_h, uint32_t out_w,
    uint32_t kernel_size, uint32_t stride, uint32_t pad, uint32_t leaky, int32_t bias_shift,
    int32_t output_shift, uint32_t tile_rows, uint32_t tile_cols, uint32_t output_bits, uint32_t weight_bits,
    uint32_t input_bits, uint32_t error_offset, uint32_t batch, const fpgacnn::kernel::WordBeat* fm_read,
    fpgacnn::kernel::WordBeat* fm_write, const fpgacnn::kernel::WordBeat* params,
    const fpgacnn::kernel::ByteBeat* fm8_read, fpgacnn::kernel::ByteBeat* fm8_write) {
#pragma HLS INTERFACE m_axi port = fm_read offset = slave bundle = gmem_fm_read max_read_burst_length = 256
#pragma HLS INTERFACE m_axi port = fm_write offset = slave bundle = gmem_fm_write max_write_burst_length = 256
#pragma HLS INTERFACE m_axi port = params offset = slave bundle = gmem_params max_read_burst_length = 256
#pragma HLS INTERFACE m_axi port = fm8_read offset = slave bundle = gmem_fm8_read max_read_burst_length = 256
#pragma HLS INTERFACE m_axi port = fm8_write offset = slave bundle = gmem_fm8_write max_write_burst_length = \
    256
#pragma HLS AGGREGATE variable = fm_read compact = auto
#pragma HLS AGGREGATE variable = fm_write compact = auto
#pragma HLS AGGREGATE variable = params compact = auto
#pragma HLS AGGREGATE variable = fm8_read compact = auto
#pragma HLS AGGREGATE variable = fm8_write compact = auto
#pragma HLS INTERFACE s_axilite port = op bundle = control
#pragma HLS INTERFACE s_axilite port = input_offset bundle = control
#pragma HLS INTERFACE s_axilite port = output_offset bundle = control
#pragma HLS INTERFACE s_axilite port = weight_offset bundle = control
#pragma HLS INTERFACE s_axilite port = bias_offset bundle = control
#pragma HLS INTERFACE s_axilite port = in_c bundle = control
#pragma HLS INTERFACE s_axilite port = in_h bundle = control
#pragma HLS INTERFACE s_axilite port = in_w bundle = control
#pragma HLS INTERFACE s_axilite port = out_c bundle = control
#pragma HLS INTERFACE s_axilite port = out_h bundle = control
#pragma HLS INTERFACE s_axilite port = out_w bundle = control
#pragma HLS INTERFACE s_axilite port = kernel_size bundle = control
#pragma HLS INTERFACE s_axilite port = stride bundle = control
#pragma HLS INTERFACE s_axilite port = pad bundle = control
#pragma HLS INTERFACE s_axilite port = leaky bundle = control
#pragma HLS INTERFACE s_axilite port = bias_shift bundle = control
#pragma HLS INTERFACE s_axilite port = output_shift bundle = control
#pragma HLS INTERFACE s_axilite port = tile_rows bundle = control
#pragma HLS INTERFACE s_axilite port = tile_cols bundle = control
#pragma HLS INTERFACE s_axilite port = output_bits bundle = control
#pragma HLS INTERFACE s_axilite port = weight_bits bundle = control
#pragma HLS INTERFACE s_axilite port = input_bits bundle = control
#pragma HLS INTERFACE s_axilite port = error_offset bundle = control
#pragma HLS INTERFACE s_axilite port = batch bundle = control
#pragma HLS INTERFACE s_axilite port = fm_read bundle = control
#pragma HLS INTERFACE s_axilite port = fm_write bundle = control
#pragma HLS INTERFACE s_axilite port = params bundle = control
#pragma HLS INTERFACE s_axilite port = fm8_read bundle = control
#pragma HLS INTERFACE s_axilite port = fm8_write bundle = control
#pragma HLS INTERFACE s_axilite port = return bundle = control

    fpgacnn::kernel::LayerCommand cmd;
    cmd.op = op;
    cmd.input_offset = input_offset;
    cmd.output_offset = output_offset;
    cmd.weight_offset = weight_offset;
    cmd.bias_offset = bias_offset;
    cmd.in_c = in_c;
    cmd.in_h = in_h;
    cmd.in_w = in_w;
    cmd.out_c = out_c;
    cmd.out_h = out_h;
    cmd.out_w = out_w;
    cmd.kernel_size = kernel_size;
    cmd.stride = stride;
    cmd.pad = pad;
    cmd.leaky = leaky;
    cmd.bias_shift = bias_shift;
    cmd.output_shift = output_shift;
    cmd.tile_rows = tile_rows;
    cmd.tile_cols = tile_cols;
    cmd.output_bits = output_bits;
    cmd.weight_bits = weight_bits;
    cmd.input_bits = input_bits;
    cmd.error_offset = error_offset;
    cmd.batch = batch;
    fpgacnn::kernel::detail::NoTraffic traffic;
    fpgacnn::kernel::detail::run_command(cmd, fm_read, fm_write, fm8_read, fm8_write, params, traffic);
}
