// The AXI4-Lite slave (bundle "control"): Vitis HLS's ap_ctrl_hs block-level control at 0x00-0x0C,
// one 32-bit register per command word and the five AXI master base addresses, at the offsets of
// kernel/register_map.hpp (through the generated fpgacnn_contract_pkg). Reads return what was
// written; unknown offsets read 0 and ignore writes.
module fpgacnn_axil_regs #(
    parameter int ADDR64 = 1,
    localparam int WORDS = fpgacnn_contract_pkg::COMMAND_WORDS,
    localparam int PTRS = fpgacnn_contract_pkg::POINTER_COUNT
) (
    input  logic              clk,
    input  logic              rst,  // synchronous, active high
    // AXI4-Lite
    input  logic              s_axi_awvalid,
    output logic              s_axi_awready,
    input  logic [fpgacnn_contract_pkg::REG_ADDR_BITS-1:0] s_axi_awaddr,
    input  logic              s_axi_wvalid,
    output logic              s_axi_wready,
    input  logic [      31:0] s_axi_wdata,
    input  logic [       3:0] s_axi_wstrb,
    output logic              s_axi_bvalid,
    input  logic              s_axi_bready,
    output logic [       1:0] s_axi_bresp,
    input  logic              s_axi_arvalid,
    output logic              s_axi_arready,
    input  logic [fpgacnn_contract_pkg::REG_ADDR_BITS-1:0] s_axi_araddr,
    output logic              s_axi_rvalid,
    input  logic              s_axi_rready,
    output logic [      31:0] s_axi_rdata,
    output logic [       1:0] s_axi_rresp,
    output logic              interrupt,
    // to the layer engine
    output logic [WORDS*32-1:0] command,   // word i at [32*i +: 32]
    output logic [ PTRS*64-1:0] pointers,  // pointer p at [64*p +: 64]
    output logic              start,     // one cycle: ap_start accepted
    input  logic              busy,      // a call is in progress
    input  logic              done       // one cycle: the call finished
);
  localparam int PTR_STRIDE = ADDR64 != 0 ? 12 : 8;
  localparam int PTR_FIRST = fpgacnn_contract_pkg::REG_FIRST_POINTER;
  localparam int AB = fpgacnn_contract_pkg::REG_ADDR_BITS;  // 9 since contract 6's two registers

  // A register offset as an address of the bus's width.
  function automatic logic [AB-1:0] reg_addr(input int offset);
    reg_addr = offset[AB-1:0];
  endfunction

  logic [31:0] words[WORDS];
  logic [31:0] ptr_low[PTRS];
  logic [31:0] ptr_high[PTRS];
  logic ap_start, ap_done, ap_ready, auto_restart, gie;
  logic [1:0] ier, isr;

  genvar gi;
  for (gi = 0; gi < WORDS; gi++) begin : g_command
    assign command[32*gi+:32] = words[gi];
  end
  for (gi = 0; gi < PTRS; gi++) begin : g_pointers
    assign pointers[64*gi+:64] = ADDR64 != 0 ? {ptr_high[gi], ptr_low[gi]} : {32'd0, ptr_low[gi]};
  end

  // Write channel: address and data may arrive in either order; the write happens with both.
  logic       aw_held, w_held;
  logic [AB-1:0] aw_addr;
  logic [31:0] w_data;
  logic [ 3:0] w_strb;
  assign s_axi_awready = !rst && !aw_held && !s_axi_bvalid;  // no handshake is lost in reset
  assign s_axi_wready = !rst && !w_held && !s_axi_bvalid;
  assign s_axi_bresp = 2'b00;
  assign s_axi_rresp = 2'b00;
  assign s_axi_arready = !rst && !s_axi_rvalid;

  logic do_write;
  logic [AB-1:0] write_addr;
  logic [31:0] write_data;
  assign do_write = aw_held && w_held && !s_axi_bvalid;
  assign write_addr = aw_addr;
  always_comb begin
    for (int b = 0; b < 4; b++) write_data[8*b+:8] = w_strb[b] ? w_data[8*b+:8] : 8'd0;
  end

  // Decoded read value.
  logic [31:0] read_value;
  always_comb begin
    read_value = 32'd0;
    if (s_axi_araddr == reg_addr(fpgacnn_contract_pkg::REG_CONTROL)) begin
      read_value[fpgacnn_contract_pkg::AP_START_BIT] = ap_start;
      read_value[fpgacnn_contract_pkg::AP_DONE_BIT] = ap_done;
      read_value[fpgacnn_contract_pkg::AP_IDLE_BIT] = !busy && !ap_start;
      read_value[fpgacnn_contract_pkg::AP_READY_BIT] = ap_ready;
      read_value[fpgacnn_contract_pkg::AUTO_RESTART_BIT] = auto_restart;
    end else if (s_axi_araddr == reg_addr(fpgacnn_contract_pkg::REG_GIE)) begin
      read_value[0] = gie;
    end else if (s_axi_araddr == reg_addr(fpgacnn_contract_pkg::REG_IER)) begin
      read_value[1:0] = ier;
    end else if (s_axi_araddr == reg_addr(fpgacnn_contract_pkg::REG_ISR)) begin
      read_value[1:0] = isr;
    end
    for (int i = 0; i < WORDS; i++) begin
      if (s_axi_araddr == reg_addr(fpgacnn_contract_pkg::REG_FIRST_ARGUMENT + i * fpgacnn_contract_pkg::REG_SCALAR_STRIDE))
        read_value = words[i];
    end
    for (int p = 0; p < PTRS; p++) begin
      if (s_axi_araddr == reg_addr(PTR_FIRST + p * PTR_STRIDE)) read_value = ptr_low[p];
      if (ADDR64 != 0 && s_axi_araddr == reg_addr(PTR_FIRST + p * PTR_STRIDE + 4)) read_value = ptr_high[p];
    end
  end

  logic read_control;
  assign read_control = s_axi_arvalid && s_axi_arready &&
      s_axi_araddr == reg_addr(fpgacnn_contract_pkg::REG_CONTROL);

  always_ff @(posedge clk) begin
    if (rst) begin
      aw_held <= 1'b0;
      w_held <= 1'b0;
      aw_addr <= '0;
      w_data <= '0;
      w_strb <= '0;
      s_axi_bvalid <= 1'b0;
      s_axi_rvalid <= 1'b0;
      s_axi_rdata <= '0;
      ap_start <= 1'b0;
      ap_done <= 1'b0;
      ap_ready <= 1'b0;
      auto_restart <= 1'b0;
      gie <= 1'b0;
      ier <= '0;
      isr <= '0;
      for (int i = 0; i < WORDS; i++) words[i] <= '0;
      for (int p = 0; p < PTRS; p++) begin
        ptr_low[p]  <= '0;
        ptr_high[p] <= '0;
      end
    end else begin
      if (s_axi_awvalid && s_axi_awready) begin
        aw_held <= 1'b1;
        aw_addr <= s_axi_awaddr;
      end
      if (s_axi_wvalid && s_axi_wready) begin
        w_held <= 1'b1;
        w_data <= s_axi_wdata;
        w_strb <= s_axi_wstrb;
      end
      if (s_axi_bvalid && s_axi_bready) s_axi_bvalid <= 1'b0;
      if (s_axi_rvalid && s_axi_rready) s_axi_rvalid <= 1'b0;
      if (s_axi_arvalid && s_axi_arready) begin
        s_axi_rvalid <= 1'b1;
        s_axi_rdata <= read_value;
      end

      // ap_ctrl_hs: start holds until the call finishes; done and ready clear when read.
      if (start) ap_start <= 1'b1;
      if (read_control) begin
        ap_done  <= 1'b0;
        ap_ready <= 1'b0;
      end
      if (done) begin
        ap_start <= 1'b0;
        ap_done  <= 1'b1;
        ap_ready <= 1'b1;
        if (ier[fpgacnn_contract_pkg::INTERRUPT_DONE_BIT]) isr[fpgacnn_contract_pkg::INTERRUPT_DONE_BIT] <= 1'b1;
        if (ier[fpgacnn_contract_pkg::INTERRUPT_READY_BIT]) isr[fpgacnn_contract_pkg::INTERRUPT_READY_BIT] <= 1'b1;
      end

      if (do_write) begin
        aw_held <= 1'b0;
        w_held <= 1'b0;
        s_axi_bvalid <= 1'b1;
        if (write_addr == reg_addr(fpgacnn_contract_pkg::REG_CONTROL)) begin
          auto_restart <= write_data[fpgacnn_contract_pkg::AUTO_RESTART_BIT];
        end else if (write_addr == reg_addr(fpgacnn_contract_pkg::REG_GIE)) begin
          gie <= write_data[0];
        end else if (write_addr == reg_addr(fpgacnn_contract_pkg::REG_IER)) begin
          ier <= write_data[1:0];
        end else if (write_addr == reg_addr(fpgacnn_contract_pkg::REG_ISR)) begin
          isr <= isr ^ write_data[1:0];  // toggle on write
        end
        for (int i = 0; i < WORDS; i++) begin
          if (write_addr == reg_addr(fpgacnn_contract_pkg::REG_FIRST_ARGUMENT + i * fpgacnn_contract_pkg::REG_SCALAR_STRIDE))
            words[i] <= write_data;
        end
        for (int p = 0; p < PTRS; p++) begin
          if (write_addr == reg_addr(PTR_FIRST + p * PTR_STRIDE)) ptr_low[p] <= write_data;
          if (ADDR64 != 0 && write_addr == reg_addr(PTR_FIRST + p * PTR_STRIDE + 4)) ptr_high[p] <= write_data;
        end
      end
    end
  end

  // A write of ap_start = 1 while idle starts a call.
  assign start = do_write && write_addr == reg_addr(fpgacnn_contract_pkg::REG_CONTROL) &&
      write_data[fpgacnn_contract_pkg::AP_START_BIT] && !ap_start && !busy;
  assign interrupt = gie && (isr != 2'b00);
endmodule
