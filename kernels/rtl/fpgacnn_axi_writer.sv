// An AXI4 write master: takes commands "write BEATS elements at ADDR" and a stream of elements (in
// command order) and writes them as INCR bursts of at most 256 beats that never cross a 4 KiB
// boundary, one element per beat (AWSIZE from the element width, all strobes set). Bursts are issued
// ahead of their data; idle means every command is written and every B response has arrived, so a
// layer may report done.
module fpgacnn_axi_writer #(
    parameter int DATA_BITS = 16,
    parameter int ADDR_BITS = 64,
    parameter int BEAT_BITS = 16,
    parameter int DATA_DEPTH = 16,
    localparam int DATA_COUNT_BITS = $clog2(DATA_DEPTH) + 1
) (
    input  logic                       clk,
    input  logic                       rst,  // synchronous, active high
    input  logic                       cmd_valid,
    output logic                       cmd_ready,
    input  logic [      ADDR_BITS-1:0] cmd_addr,
    input  logic [      BEAT_BITS-1:0] cmd_beats,   // >= 1
    input  logic                       data_valid,  // never while data_count == DATA_DEPTH
    input  logic [      DATA_BITS-1:0] data,
    output logic [DATA_COUNT_BITS-1:0] data_count,
    output logic                       idle,
    output logic                       awvalid,
    input  logic                       awready,
    output logic [      ADDR_BITS-1:0] awaddr,
    output logic [                7:0] awlen,
    output logic [                2:0] awsize,
    output logic [                1:0] awburst,
    output logic                       wvalid,
    input  logic                       wready,
    output logic [      DATA_BITS-1:0] wdata,
    output logic [    DATA_BITS/8-1:0] wstrb,
    output logic                       wlast,
    input  logic                       bvalid,
    output logic                       bready,
    input  logic [                1:0] bresp
);
  localparam int BYTES = DATA_BITS / 8;
  localparam int BYTE_SHIFT = $clog2(BYTES);

  // Every write is OKAY on the memories this IP talks to; the queues' counts are not needed.
  logic [2:0] unused_cmd_count, unused_burst_count;
  logic unused_inputs;
  assign unused_inputs = &{1'b0, bresp, data_full, unused_cmd_count, unused_burst_count};

  // Commands waiting for their AW bursts.
  logic cmd_empty, cmd_full;
  logic [ADDR_BITS+BEAT_BITS-1:0] cmd_head;
  logic cmd_pop;
  fpgacnn_fifo #(
      .WIDTH(ADDR_BITS + BEAT_BITS),
      .DEPTH(4)
  ) commands (
      .clk(clk),
      .rst(rst),
      .push(cmd_valid),
      .push_data({cmd_addr, cmd_beats}),
      .pop(cmd_pop),
      .head(cmd_head),
      .empty(cmd_empty),
      .full(cmd_full),
      .count(unused_cmd_count)
  );
  assign cmd_ready = !cmd_full;

  // Elements waiting for their W beats.
  logic data_empty, data_full;
  logic [DATA_BITS-1:0] data_head;
  logic data_pop;
  fpgacnn_fifo #(
      .WIDTH(DATA_BITS),
      .DEPTH(DATA_DEPTH)
  ) elements (
      .clk(clk),
      .rst(rst),
      .push(data_valid),
      .push_data(data),
      .pop(data_pop),
      .head(data_head),
      .empty(data_empty),
      .full(data_full),
      .count(data_count)
  );

  // Burst lengths issued on AW whose W beats are still to send.
  logic bursts_empty, bursts_full;
  logic [7:0] bursts_head;
  logic aw_done;
  logic w_last_beat;
  fpgacnn_fifo #(
      .WIDTH(8),
      .DEPTH(4)
  ) bursts (
      .clk(clk),
      .rst(rst),
      .push(aw_done),
      .push_data(awlen),
      .pop(w_last_beat),
      .head(bursts_head),
      .empty(bursts_empty),
      .full(bursts_full),
      .count(unused_burst_count)
  );

  logic                 aw_active;
  logic [ADDR_BITS-1:0] aw_next;
  logic [BEAT_BITS-1:0] aw_left;
  logic [          7:0] w_beat;
  logic [          9:0] b_pending;

  logic [12:0] to_boundary;
  logic [BEAT_BITS-1:0] burst;
  always_comb begin
    to_boundary = (13'd4096 - {1'b0, aw_next[11:0]}) >> BYTE_SHIFT;
    burst = aw_left;
    if (burst > BEAT_BITS'(256)) burst = BEAT_BITS'(256);
    if (burst > BEAT_BITS'(to_boundary)) burst = BEAT_BITS'(to_boundary);
  end

  assign awsize = 3'(BYTE_SHIFT);
  assign awburst = 2'b01;
  // AWVALID only rises with room to remember the burst's length (the queue cannot fill while it is
  // high, so it never drops before AWREADY); the next command starts with the last burst's handshake.
  logic last_burst;
  assign awvalid = aw_active && !bursts_full;
  assign awaddr = aw_next;
  assign awlen = 8'(burst - 1'b1);
  assign last_burst = aw_left == burst;
  assign aw_done = awvalid && awready;
  assign cmd_pop = (!aw_active || (aw_done && last_burst)) && !cmd_empty;
  assign wvalid = !bursts_empty && !data_empty;
  assign wdata = data_head;
  assign wstrb = '1;
  assign wlast = w_beat == bursts_head;
  assign data_pop = wvalid && wready;
  assign w_last_beat = data_pop && wlast;
  assign bready = 1'b1;
  assign idle = cmd_empty && !aw_active && bursts_empty && b_pending == 0;

  always_ff @(posedge clk) begin
    if (rst) begin
      aw_active <= 1'b0;
      aw_next <= '0;
      aw_left <= '0;
      w_beat <= '0;
      b_pending <= '0;
    end else begin
      if (cmd_pop) begin
        aw_active <= 1'b1;
        aw_next <= cmd_head[BEAT_BITS+:ADDR_BITS];
        aw_left <= cmd_head[BEAT_BITS-1:0];
      end else if (aw_done) begin
        aw_next <= aw_next + (ADDR_BITS'(burst) << BYTE_SHIFT);
        aw_left <= aw_left - burst;
        if (last_burst) aw_active <= 1'b0;
      end
      if (data_pop) w_beat <= wlast ? 8'd0 : w_beat + 1'b1;
      b_pending <= b_pending + 10'(aw_done) - 10'(bvalid);
    end
  end
endmodule
