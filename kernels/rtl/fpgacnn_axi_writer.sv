// An AXI4 write master: takes commands "write ELEMENTS elements of ELEM_BITS at ADDR" (a byte address
// aligned to the element, not to the bus) and a stream of elements (in command order, one a cycle),
// packs them into DATA_BITS beats and writes them as INCR bursts from ADDR rounded down to the beat,
// at most 256 beats and never across a 4 KiB boundary; the write strobes cover exactly the command's
// bytes, so a row may start and end anywhere inside a beat without touching its neighbours. Bursts
// are issued ahead of their data; idle means every command is written and every B response has
// arrived, so a layer may report done.
module fpgacnn_axi_writer #(
    parameter int DATA_BITS = 16,
    parameter int ELEM_BITS = 16,
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
    input  logic [      BEAT_BITS-1:0] cmd_beats,   // elements, >= 1
    input  logic                       data_valid,  // never while data_count == DATA_DEPTH
    input  logic [      ELEM_BITS-1:0] data,
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
  localparam logic [ADDR_BITS-1:0] BEAT_MASK = ADDR_BITS'(BYTES) - 1'b1;  // byte within a beat
  localparam int ELEM_BYTES = ELEM_BITS / 8;
  localparam int ELEM_SHIFT = $clog2(ELEM_BYTES);
  localparam int PER_BEAT = DATA_BITS / ELEM_BITS;
  localparam int SLOT_BITS = PER_BEAT > 1 ? $clog2(PER_BEAT) : 1;

  // Every write is OKAY on the memories this IP talks to; the queues' counts are not needed.
  logic [2:0] unused_cmd_count, unused_burst_count, unused_pack_count;
  logic unused_inputs;
  assign unused_inputs = &{1'b0, bresp, data_full, unused_cmd_count, unused_burst_count, unused_pack_count,
                           1'b0};

  // Elements before ADDR in its beat, and the beats the command covers.
  logic [SLOT_BITS-1:0] cmd_lead;
  logic [BEAT_BITS:0] cmd_span;
  always_comb begin
    cmd_lead = SLOT_BITS'((cmd_addr & BEAT_MASK) >> ELEM_SHIFT);
    cmd_span = ({1'b0, cmd_beats} + (BEAT_BITS + 1)'(cmd_lead) + (BEAT_BITS + 1)'(PER_BEAT - 1)) >>
        $clog2(PER_BEAT);
  end

  // Commands waiting for their AW bursts (aligned address, beats).
  logic cmd_empty, cmd_full;
  logic [ADDR_BITS+BEAT_BITS:0] cmd_head;
  logic cmd_pop, cmd_push;
  fpgacnn_fifo #(
      .WIDTH(ADDR_BITS + BEAT_BITS + 1),
      .DEPTH(4)
  ) commands (
      .clk(clk),
      .rst(rst),
      .push(cmd_push),
      .push_data({cmd_addr & ~BEAT_MASK, cmd_span}),
      .pop(cmd_pop),
      .head(cmd_head),
      .empty(cmd_empty),
      .full(cmd_full),
      .count(unused_cmd_count)
  );
  // The same commands for the packer (first slot, elements). The packer may lag the AW side, so a
  // command is taken only when both queues have room.
  logic pack_empty, pack_full;
  logic [SLOT_BITS+BEAT_BITS-1:0] pack_head;
  logic pack_pop;
  fpgacnn_fifo #(
      .WIDTH(SLOT_BITS + BEAT_BITS),
      .DEPTH(4)
  ) pack_commands (
      .clk(clk),
      .rst(rst),
      .push(cmd_push),
      .push_data({cmd_lead, cmd_beats}),
      .pop(pack_pop),
      .head(pack_head),
      .empty(pack_empty),
      .full(pack_full),
      .count(unused_pack_count)
  );
  assign cmd_ready = !cmd_full && !pack_full;
  assign cmd_push = cmd_valid && cmd_ready;

  // Elements waiting to be packed.
  logic data_empty, data_full;
  logic [ELEM_BITS-1:0] data_head;
  logic data_pop;
  fpgacnn_fifo #(
      .WIDTH(ELEM_BITS),
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
  logic [          7:0] w_beat;
  logic [          9:0] b_pending;

  // The burst at aw_next: min(left, 256, beats to the 4 KiB boundary), from registers.
  logic [BEAT_BITS:0] burst;
  logic last_burst;

  assign awsize = 3'(BYTE_SHIFT);
  assign awburst = 2'b01;
  // AWVALID only rises with room to remember the burst's length (the queue cannot fill while it is
  // high, so it never drops before AWREADY); the next command starts with the last burst's handshake.
  assign awvalid = aw_active && !bursts_full;
  assign awaddr = aw_next;
  assign awlen = 8'(burst - 1'b1);
  assign aw_done = awvalid && awready;
  assign cmd_pop = (!aw_active || (aw_done && last_burst)) && !cmd_empty;
  fpgacnn_burst_length #(
      .BEAT_BITS (BEAT_BITS),
      .BYTE_SHIFT(BYTE_SHIFT)
  ) lengths (
      .clk(clk),
      .rst(rst),
      .load(cmd_pop),
      .load_addr(cmd_head[BEAT_BITS+1+:12]),
      .load_span(cmd_head[BEAT_BITS:0]),
      .advance(aw_done),
      .burst(burst),
      .last(last_burst)
  );

  // Packer: elements into the beat being filled (slot = the next element's place); a beat is done at
  // its last slot or the command's last element and waits in the W register for its handshake.
  logic pk_active;
  logic [SLOT_BITS-1:0] pk_slot;
  logic [BEAT_BITS-1:0] pk_left;
  logic [DATA_BITS-1:0] pk_data;
  logic [BYTES-1:0] pk_strb;
  logic w_valid_q;
  logic [DATA_BITS-1:0] w_data_q;
  logic [BYTES-1:0] w_strb_q;
  logic w_fire, beat_done;
  assign w_fire = wvalid && wready;
  assign pack_pop = !pk_active && !pack_empty;
  assign data_pop = pk_active && !data_empty && (!w_valid_q || w_fire);
  assign beat_done = 32'(pk_slot) == PER_BEAT - 1 || pk_left == 1;
  logic [DATA_BITS-1:0] slot_data;
  logic [BYTES-1:0] slot_strb;
  always_comb begin
    slot_data = DATA_BITS'(data_head) << (ELEM_BITS * 32'(pk_slot));
    slot_strb = BYTES'({ELEM_BYTES{1'b1}}) << (ELEM_BYTES * 32'(pk_slot));
  end

  assign wvalid = w_valid_q && !bursts_empty;
  assign wdata = w_data_q;
  assign wstrb = w_strb_q;
  assign wlast = w_beat == bursts_head;
  assign w_last_beat = w_fire && wlast;
  assign bready = 1'b1;
  assign idle = cmd_empty && !aw_active && bursts_empty && b_pending == 0;

  always_ff @(posedge clk) begin
    if (rst) begin
      aw_active <= 1'b0;
      aw_next <= '0;
      w_beat <= '0;
      b_pending <= '0;
      pk_active <= 1'b0;
      pk_slot <= '0;
      pk_left <= '0;
      pk_data <= '0;
      pk_strb <= '0;
      w_valid_q <= 1'b0;
      w_data_q <= '0;
      w_strb_q <= '0;
    end else begin
      if (cmd_pop) begin
        aw_active <= 1'b1;
        aw_next <= cmd_head[BEAT_BITS+1+:ADDR_BITS];
      end else if (aw_done) begin
        aw_next <= aw_next + (ADDR_BITS'(burst) << BYTE_SHIFT);
        if (last_burst) aw_active <= 1'b0;
      end
      if (w_fire) w_beat <= wlast ? 8'd0 : w_beat + 1'b1;
      b_pending <= b_pending + 10'(aw_done) - 10'(bvalid);
      if (w_fire) w_valid_q <= 1'b0;
      if (pack_pop) begin
        pk_active <= 1'b1;
        pk_slot <= pack_head[BEAT_BITS+:SLOT_BITS];
        pk_left <= pack_head[BEAT_BITS-1:0];
      end else if (data_pop) begin
        pk_left <= pk_left - 1'b1;
        if (pk_left == 1) pk_active <= 1'b0;
        if (beat_done) begin
          w_valid_q <= 1'b1;
          w_data_q <= pk_data | slot_data;
          w_strb_q <= pk_strb | slot_strb;
          pk_data <= '0;
          pk_strb <= '0;
          pk_slot <= '0;
        end else begin
          pk_data <= pk_data | slot_data;
          pk_strb <= pk_strb | slot_strb;
          pk_slot <= pk_slot + 1'b1;
        end
      end
    end
  end
endmodule
