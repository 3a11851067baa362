// The accelerator IP, as the HLS top function fpgacnn_accel is packaged (kernels/src/accel_top.cpp):
// an AXI4-Lite slave with the command registers and ap_ctrl_hs control, an interrupt line, and five
// AXI4 masters in the register map's pointer order (fm_read, fm_write, params: PORT_BITS wide,
// PORT_BITS / 16 int16 elements a beat; fm8_read, fm8_write: 8-bit feature maps, half as wide, the
// same number of elements a beat). The maxima are parameters; ADDR64 selects 64-bit AXI addresses and
// base registers 12 bytes apart (0: 32-bit, 8 apart).
module fpgacnn_accel #(
    parameter int TM = 8,
    parameter int TN = 4,
    parameter int TR = 8,
    parameter int TC = 8,
    parameter int MAX_K = 3,
    parameter int MAX_S = 2,
    parameter int INT8_PAIRS = 1,
    parameter int ADDR64 = 1,
    parameter int PORT_BITS = fpgacnn_contract_pkg::REFERENCE_PORT_BITS,  // kernel::kPortBits
    localparam int PE = PORT_BITS / 16,  // elements a beat
    localparam int PC = $clog2(PE + 1),
    localparam int AXI_ADDR_BITS = ADDR64 != 0 ? 64 : 32,
    localparam int WORDS = fpgacnn_contract_pkg::COMMAND_WORDS,
    localparam int PTRS = fpgacnn_contract_pkg::POINTER_COUNT
) (
    input logic clk,
    input logic rst_n,
    input logic s_axi_control_awvalid,
    output logic s_axi_control_awready,
    input logic [fpgacnn_contract_pkg::REG_ADDR_BITS-1:0] s_axi_control_awaddr,
    input logic s_axi_control_wvalid,
    output logic s_axi_control_wready,
    input logic [31:0] s_axi_control_wdata,
    input logic [3:0] s_axi_control_wstrb,
    output logic s_axi_control_bvalid,
    input logic s_axi_control_bready,
    output logic [1:0] s_axi_control_bresp,
    input logic s_axi_control_arvalid,
    output logic s_axi_control_arready,
    input logic [fpgacnn_contract_pkg::REG_ADDR_BITS-1:0] s_axi_control_araddr,
    output logic s_axi_control_rvalid,
    input logic s_axi_control_rready,
    output logic [31:0] s_axi_control_rdata,
    output logic [1:0] s_axi_control_rresp,
    /* verilator lint_off SYMRSVDWORD */
    output logic interrupt,  // Vivado's name; Verilator calls the C++ field __SYM__interrupt
    /* verilator lint_on SYMRSVDWORD */
    output logic m_fm_read_arvalid,
    input logic m_fm_read_arready,
    output logic [AXI_ADDR_BITS-1:0] m_fm_read_araddr,
    output logic [7:0] m_fm_read_arlen,
    output logic [2:0] m_fm_read_arsize,
    output logic [1:0] m_fm_read_arburst,
    input logic m_fm_read_rvalid,
    output logic m_fm_read_rready,
    input logic [PORT_BITS-1:0] m_fm_read_rdata,
    input logic m_fm_read_rlast,
    input logic [1:0] m_fm_read_rresp,
    output logic m_fm_write_awvalid,
    input logic m_fm_write_awready,
    output logic [AXI_ADDR_BITS-1:0] m_fm_write_awaddr,
    output logic [7:0] m_fm_write_awlen,
    output logic [2:0] m_fm_write_awsize,
    output logic [1:0] m_fm_write_awburst,
    output logic m_fm_write_wvalid,
    input logic m_fm_write_wready,
    output logic [PORT_BITS-1:0] m_fm_write_wdata,
    output logic [PORT_BITS/8-1:0] m_fm_write_wstrb,
    output logic m_fm_write_wlast,
    input logic m_fm_write_bvalid,
    output logic m_fm_write_bready,
    input logic [1:0] m_fm_write_bresp,
    output logic m_params_arvalid,
    input logic m_params_arready,
    output logic [AXI_ADDR_BITS-1:0] m_params_araddr,
    output logic [7:0] m_params_arlen,
    output logic [2:0] m_params_arsize,
    output logic [1:0] m_params_arburst,
    input logic m_params_rvalid,
    output logic m_params_rready,
    input logic [PORT_BITS-1:0] m_params_rdata,
    input logic m_params_rlast,
    input logic [1:0] m_params_rresp,
    output logic m_fm8_read_arvalid,
    input logic m_fm8_read_arready,
    output logic [AXI_ADDR_BITS-1:0] m_fm8_read_araddr,
    output logic [7:0] m_fm8_read_arlen,
    output logic [2:0] m_fm8_read_arsize,
    output logic [1:0] m_fm8_read_arburst,
    input logic m_fm8_read_rvalid,
    output logic m_fm8_read_rready,
    input logic [PORT_BITS/2-1:0] m_fm8_read_rdata,
    input logic m_fm8_read_rlast,
    input logic [1:0] m_fm8_read_rresp,
    output logic m_fm8_write_awvalid,
    input logic m_fm8_write_awready,
    output logic [AXI_ADDR_BITS-1:0] m_fm8_write_awaddr,
    output logic [7:0] m_fm8_write_awlen,
    output logic [2:0] m_fm8_write_awsize,
    output logic [1:0] m_fm8_write_awburst,
    output logic m_fm8_write_wvalid,
    input logic m_fm8_write_wready,
    output logic [PORT_BITS/2-1:0] m_fm8_write_wdata,
    output logic [PORT_BITS/16-1:0] m_fm8_write_wstrb,
    output logic m_fm8_write_wlast,
    input logic m_fm8_write_bvalid,
    output logic m_fm8_write_bready,
    input logic [1:0] m_fm8_write_bresp
);
  // rst_n may come from anywhere (a processor's reset, a button): two flip-flops bring it into the
  // clock domain, and everything inside resets synchronously on the active-high rst (so each
  // flip-flop's reset is its own FDRE input, not an inverter per flip-flop in front of an FDCE).
  logic [1:0] reset_sync;
  logic rst;
  always_ff @(posedge clk) reset_sync <= {reset_sync[0], !rst_n};
  assign rst = reset_sync[1];

  logic [WORDS*32-1:0] command;
  logic [PTRS*64-1:0] pointers;
  logic start, busy, done;

  fpgacnn_axil_regs #(
      .ADDR64(ADDR64)
  ) regs (
      .clk(clk),
      .rst(rst),
      .s_axi_awvalid(s_axi_control_awvalid),
      .s_axi_awready(s_axi_control_awready),
      .s_axi_awaddr(s_axi_control_awaddr),
      .s_axi_wvalid(s_axi_control_wvalid),
      .s_axi_wready(s_axi_control_wready),
      .s_axi_wdata(s_axi_control_wdata),
      .s_axi_wstrb(s_axi_control_wstrb),
      .s_axi_bvalid(s_axi_control_bvalid),
      .s_axi_bready(s_axi_control_bready),
      .s_axi_bresp(s_axi_control_bresp),
      .s_axi_arvalid(s_axi_control_arvalid),
      .s_axi_arready(s_axi_control_arready),
      .s_axi_araddr(s_axi_control_araddr),
      .s_axi_rvalid(s_axi_control_rvalid),
      .s_axi_rready(s_axi_control_rready),
      .s_axi_rdata(s_axi_control_rdata),
      .s_axi_rresp(s_axi_control_rresp),
      .interrupt(interrupt),
      .command(command),
      .pointers(pointers),
      .start(start),
      .busy(busy),
      .done(done)
  );

  // Reader and writer handshakes between the core and the masters.
  logic fm_cmd_valid, fm_cmd_ready, fm8_cmd_valid, fm8_cmd_ready;
  logic [AXI_ADDR_BITS-1:0] fm_cmd_addr_bus, fm8_cmd_addr_bus;
  logic [15:0] fm_cmd_beats_bus, fm8_cmd_beats_bus;
  logic [23:0] fm_cmd_tag_bus, fm8_cmd_tag_bus;
  logic fm_beat_valid, fm8_beat_valid;
  logic [PORT_BITS-1:0] fm_beat_data;
  logic [PORT_BITS/2-1:0] fm8_beat_data;
  logic [PC-1:0] fm_beat_count, fm8_beat_count, par_beat_count;
  logic [23:0] fm_beat_tag, fm8_beat_tag;
  logic [15:0] fm_beat_index, fm8_beat_index;
  logic fm_idle, fm8_idle;
  logic par_cmd_valid, par_cmd_ready;
  logic [AXI_ADDR_BITS-1:0] par_cmd_addr_bus;
  logic [15:0] par_cmd_beats_bus;
  logic [1:0] par_cmd_tag_bus;
  logic par_beat_valid;
  logic [PORT_BITS-1:0] par_beat_data;
  logic [1:0] par_beat_tag;
  logic [15:0] par_beat_index;
  logic par_idle;
  logic wr_cmd_valid, wr8_cmd_valid, wr_cmd_ready, wr8_cmd_ready;
  logic [AXI_ADDR_BITS-1:0] wr_cmd_addr;
  logic [15:0] wr_cmd_beats;
  logic wr_data_valid, wr8_data_valid;
  logic [15:0] wr_data;
  logic [4:0] wr_count, wr8_count;
  logic wr_idle, wr8_idle;
  assign fm8_cmd_addr_bus = fm_cmd_addr_bus;
  assign fm8_cmd_beats_bus = fm_cmd_beats_bus;
  assign fm8_cmd_tag_bus = fm_cmd_tag_bus;

  fpgacnn_core #(
      .TM(TM),
      .TN(TN),
      .TR(TR),
      .TC(TC),
      .MAX_K(MAX_K),
      .MAX_S(MAX_S),
      .INT8_PAIRS(INT8_PAIRS),
      .ADDR_BITS(AXI_ADDR_BITS),
      .PORT_BITS(PORT_BITS)
  ) core (
      .clk(clk),
      .rst(rst),
      .start(start),
      .command(command),
      .pointers(pointers),
      .busy(busy),
      .done(done),
      .fm_cmd_valid(fm_cmd_valid),
      .fm_cmd_ready(fm_cmd_ready),
      .fm8_cmd_valid(fm8_cmd_valid),
      .fm8_cmd_ready(fm8_cmd_ready),
      .fm_cmd_addr(fm_cmd_addr_bus),
      .fm_cmd_beats(fm_cmd_beats_bus),
      .fm_cmd_tag(fm_cmd_tag_bus),
      .fm_beat_valid(fm_beat_valid),
      .fm_beat_data(fm_beat_data),
      .fm_beat_tag(fm_beat_tag),
      .fm_beat_index(fm_beat_index),
      .fm_beat_count(fm_beat_count),
      .fm8_beat_valid(fm8_beat_valid),
      .fm8_beat_data(fm8_beat_data),
      .fm8_beat_tag(fm8_beat_tag),
      .fm8_beat_index(fm8_beat_index),
      .fm8_beat_count(fm8_beat_count),
      .fm_idle(fm_idle),
      .fm8_idle(fm8_idle),
      .par_cmd_valid(par_cmd_valid),
      .par_cmd_ready(par_cmd_ready),
      .par_cmd_addr(par_cmd_addr_bus),
      .par_cmd_beats(par_cmd_beats_bus),
      .par_cmd_tag(par_cmd_tag_bus),
      .par_beat_valid(par_beat_valid),
      .par_beat_data(par_beat_data),
      .par_beat_tag(par_beat_tag),
      .par_beat_index(par_beat_index),
      .par_beat_count(par_beat_count),
      .par_idle(par_idle),
      .wr_cmd_valid(wr_cmd_valid),
      .wr8_cmd_valid(wr8_cmd_valid),
      .wr_cmd_ready(wr_cmd_ready),
      .wr8_cmd_ready(wr8_cmd_ready),
      .wr_cmd_addr(wr_cmd_addr),
      .wr_cmd_beats(wr_cmd_beats),
      .wr_data_valid(wr_data_valid),
      .wr8_data_valid(wr8_data_valid),
      .wr_data(wr_data),
      .wr_count(wr_count),
      .wr8_count(wr8_count),
      .wr_idle(wr_idle),
      .wr8_idle(wr8_idle)
  );

  fpgacnn_axi_reader #(
      .DATA_BITS(PORT_BITS),
      .ELEM_BITS(16),
      .ADDR_BITS(AXI_ADDR_BITS),
      .TAG_BITS(24)
  ) fm_reader (
      .clk(clk),
      .rst(rst),
      .cmd_valid(fm_cmd_valid),
      .cmd_ready(fm_cmd_ready),
      .cmd_addr(fm_cmd_addr_bus),
      .cmd_beats(fm_cmd_beats_bus),
      .cmd_tag(fm_cmd_tag_bus),
      .beat_valid(fm_beat_valid),
      .beat_data(fm_beat_data),
      .beat_tag(fm_beat_tag),
      .beat_index(fm_beat_index),
      .beat_count(fm_beat_count),
      .idle(fm_idle),
      .arvalid(m_fm_read_arvalid),
      .arready(m_fm_read_arready),
      .araddr(m_fm_read_araddr),
      .arlen(m_fm_read_arlen),
      .arsize(m_fm_read_arsize),
      .arburst(m_fm_read_arburst),
      .rvalid(m_fm_read_rvalid),
      .rready(m_fm_read_rready),
      .rdata(m_fm_read_rdata),
      .rlast(m_fm_read_rlast),
      .rresp(m_fm_read_rresp)
  );

  fpgacnn_axi_reader #(
      .DATA_BITS(PORT_BITS),
      .ELEM_BITS(16),
      .ADDR_BITS(AXI_ADDR_BITS),
      .TAG_BITS(2)
  ) params_reader (
      .clk(clk),
      .rst(rst),
      .cmd_valid(par_cmd_valid),
      .cmd_ready(par_cmd_ready),
      .cmd_addr(par_cmd_addr_bus),
      .cmd_beats(par_cmd_beats_bus),
      .cmd_tag(par_cmd_tag_bus),
      .beat_valid(par_beat_valid),
      .beat_data(par_beat_data),
      .beat_tag(par_beat_tag),
      .beat_index(par_beat_index),
      .beat_count(par_beat_count),
      .idle(par_idle),
      .arvalid(m_params_arvalid),
      .arready(m_params_arready),
      .araddr(m_params_araddr),
      .arlen(m_params_arlen),
      .arsize(m_params_arsize),
      .arburst(m_params_arburst),
      .rvalid(m_params_rvalid),
      .rready(m_params_rready),
      .rdata(m_params_rdata),
      .rlast(m_params_rlast),
      .rresp(m_params_rresp)
  );

  fpgacnn_axi_reader #(
      .DATA_BITS(PORT_BITS / 2),
      .ELEM_BITS(8),
      .ADDR_BITS(AXI_ADDR_BITS),
      .TAG_BITS(24)
  ) fm8_reader (
      .clk(clk),
      .rst(rst),
      .cmd_valid(fm8_cmd_valid),
      .cmd_ready(fm8_cmd_ready),
      .cmd_addr(fm8_cmd_addr_bus),
      .cmd_beats(fm8_cmd_beats_bus),
      .cmd_tag(fm8_cmd_tag_bus),
      .beat_valid(fm8_beat_valid),
      .beat_data(fm8_beat_data),
      .beat_tag(fm8_beat_tag),
      .beat_index(fm8_beat_index),
      .beat_count(fm8_beat_count),
      .idle(fm8_idle),
      .arvalid(m_fm8_read_arvalid),
      .arready(m_fm8_read_arready),
      .araddr(m_fm8_read_araddr),
      .arlen(m_fm8_read_arlen),
      .arsize(m_fm8_read_arsize),
      .arburst(m_fm8_read_arburst),
      .rvalid(m_fm8_read_rvalid),
      .rready(m_fm8_read_rready),
      .rdata(m_fm8_read_rdata),
      .rlast(m_fm8_read_rlast),
      .rresp(m_fm8_read_rresp)
  );

  fpgacnn_axi_writer #(
      .DATA_BITS(PORT_BITS),
      .ELEM_BITS(16),
      .ADDR_BITS(AXI_ADDR_BITS)
  ) fm_writer (
      .clk(clk),
      .rst(rst),
      .cmd_valid(wr_cmd_valid),
      .cmd_ready(wr_cmd_ready),
      .cmd_addr(wr_cmd_addr),
      .cmd_beats(wr_cmd_beats),
      .data_valid(wr_data_valid),
      .data(wr_data),
      .data_count(wr_count),
      .idle(wr_idle),
      .awvalid(m_fm_write_awvalid),
      .awready(m_fm_write_awready),
      .awaddr(m_fm_write_awaddr),
      .awlen(m_fm_write_awlen),
      .awsize(m_fm_write_awsize),
      .awburst(m_fm_write_awburst),
      .wvalid(m_fm_write_wvalid),
      .wready(m_fm_write_wready),
      .wdata(m_fm_write_wdata),
      .wstrb(m_fm_write_wstrb),
      .wlast(m_fm_write_wlast),
      .bvalid(m_fm_write_bvalid),
      .bready(m_fm_write_bready),
      .bresp(m_fm_write_bresp)
  );

  fpgacnn_axi_writer #(
      .DATA_BITS(PORT_BITS / 2),
      .ELEM_BITS(8),
      .ADDR_BITS(AXI_ADDR_BITS)
  ) fm8_writer (
      .clk(clk),
      .rst(rst),
      .cmd_valid(wr8_cmd_valid),
      .cmd_ready(wr8_cmd_ready),
      .cmd_addr(wr_cmd_addr),
      .cmd_beats(wr_cmd_beats),
      .data_valid(wr8_data_valid),
      .data(wr_data[7:0]),
      .data_count(wr8_count),
      .idle(wr8_idle),
      .awvalid(m_fm8_write_awvalid),
      .awready(m_fm8_write_awready),
      .awaddr(m_fm8_write_awaddr),
      .awlen(m_fm8_write_awlen),
      .awsize(m_fm8_write_awsize),
      .awburst(m_fm8_write_awburst),
      .wvalid(m_fm8_write_wvalid),
      .wready(m_fm8_write_wready),
      .wdata(m_fm8_write_wdata),
      .wstrb(m_fm8_write_wstrb),
      .wlast(m_fm8_write_wlast),
      .bvalid(m_fm8_write_bvalid),
      .bready(m_fm8_write_bready),
      .bresp(m_fm8_write_bresp)
  );

endmodule
