// An AXI4 read master: takes commands "read ELEMENTS elements of ELEM_BITS from ADDR" (ADDR a byte
// address aligned to the element, not to the bus; with an opaque TAG for the consumer) and issues
// them as INCR bursts of full DATA_BITS beats from ADDR rounded down to the beat, at most 256 beats
// and never across a 4 KiB boundary. It keeps issuing bursts while earlier ones return (the slave
// limits how many are in flight with ARREADY) and hands every beat on as a run of consecutive
// elements: beat_data holds element beat_index of the command in its lowest ELEM_BITS and
// beat_count (1 .. DATA_BITS / ELEM_BITS) of them are the command's (the first beat drops what lies
// before ADDR, the last what lies past the end). The consumer always accepts, so RREADY stays high.
module fpgacnn_axi_reader #(
    parameter int DATA_BITS = 16,
    parameter int ELEM_BITS = 16,
    parameter int ADDR_BITS = 64,
    parameter int TAG_BITS = 8,
    parameter int BEAT_BITS = 16,
    localparam int PER_BEAT = DATA_BITS / ELEM_BITS,  // elements a beat
    localparam int COUNT_BITS = $clog2(PER_BEAT + 1),
    localparam int QUEUE = 4
) (
    input  logic                  clk,
    input  logic                  rst,  // synchronous, active high
    // commands
    input  logic                  cmd_valid,
    output logic                  cmd_ready,
    input  logic [ ADDR_BITS-1:0] cmd_addr,
    input  logic [ BEAT_BITS-1:0] cmd_beats,   // elements, >= 1
    input  logic [  TAG_BITS-1:0] cmd_tag,
    // returned elements, a beat at a time
    output logic                  beat_valid,
    output logic [ DATA_BITS-1:0] beat_data,
    output logic [  TAG_BITS-1:0] beat_tag,
    output logic [ BEAT_BITS-1:0] beat_index,  // the command's element in beat_data's lowest bits
    output logic [COUNT_BITS-1:0] beat_count,
    output logic                  idle,
    // AXI4 read address / data channels
    output logic                  arvalid,
    input  logic                  arready,
    output logic [ ADDR_BITS-1:0] araddr,
    output logic [           7:0] arlen,
    output logic [           2:0] arsize,
    output logic [           1:0] arburst,
    input  logic                  rvalid,
    output logic                  rready,
    input  logic [ DATA_BITS-1:0] rdata,
    input  logic                  rlast,
    input  logic [           1:0] rresp
);
  localparam int BYTES = DATA_BITS / 8;
  localparam int BYTE_SHIFT = $clog2(BYTES);
  localparam logic [ADDR_BITS-1:0] BEAT_MASK = ADDR_BITS'(BYTES) - 1'b1;  // byte within a beat
  localparam int ELEM_SHIFT = $clog2(ELEM_BITS / 8);  // element bytes, log2
  localparam int LEAD_BITS = PER_BEAT > 1 ? $clog2(PER_BEAT) : 1;

  // Elements before ADDR in its beat, and the beats the command covers.
  logic [LEAD_BITS-1:0] cmd_lead;
  logic [BEAT_BITS:0] cmd_span;
  always_comb begin
    cmd_lead = LEAD_BITS'((cmd_addr & BEAT_MASK) >> ELEM_SHIFT);
    cmd_span = ({1'b0, cmd_beats} + (BEAT_BITS + 1)'(cmd_lead) + (BEAT_BITS + 1)'(PER_BEAT - 1)) >>
        $clog2(PER_BEAT);
  end

  // Command queue with two read pointers: the AR side walks ahead, the R side retires entries.
  logic [ADDR_BITS-1:0] q_addr [QUEUE];  // first beat's address
  logic [  BEAT_BITS:0] q_span [QUEUE];  // beats
  logic [BEAT_BITS-1:0] q_elems[QUEUE];  // elements
  logic [LEAD_BITS-1:0] q_lead [QUEUE];
  logic [ TAG_BITS-1:0] q_tag  [QUEUE];
  logic [COUNT_BITS-1:0] q_first[QUEUE];  // elements of the first beat
  logic [1:0] wr_ptr, ar_ptr, r_ptr;
  logic [2:0] used;  // entries not yet retired by the R side
  logic [2:0] unissued;  // entries the AR side has not started

  // The burst being issued.
  logic                 ar_active;
  logic [ADDR_BITS-1:0] ar_next;
  logic [  BEAT_BITS:0] r_count;  // beats of the oldest command returned
  logic [BEAT_BITS-1:0] r_index;  // its next element
  // Elements of the oldest command after the beats handed on, and whether a whole beat is left:
  // registered, so a beat's count is a choice between registers (the 150 MHz path ran through a
  // subtraction and a compare here into the consumer's counters).
  logic [BEAT_BITS-1:0] r_left;
  logic r_full;

  assign cmd_ready = used != 3'(QUEUE);
  assign rready = 1'b1;
  assign arsize = 3'(BYTE_SHIFT);
  assign arburst = 2'b01;
  assign idle = used == 0;

  // The burst at ar_next: min(left, 256, beats to the 4 KiB boundary), from registers.
  logic [BEAT_BITS:0] burst;
  logic last_burst;

  // Beats are counted against the command (RLAST is implied); responses are OKAY on these memories.
  logic unused_inputs;
  assign unused_inputs = &{1'b0, rlast, rresp};

  logic pushed, retired, started;
  assign pushed = cmd_valid && cmd_ready;
  assign retired = rvalid && (r_count + 1'b1 == q_span[r_ptr]);
  // The next command starts as soon as the last burst of the current one is accepted, so a burst
  // can be issued every cycle.
  logic ar_fire;
  assign ar_fire = arvalid && arready;
  assign started = (!ar_active || (ar_fire && last_burst)) && unissued != 0;
  fpgacnn_burst_length #(
      .BEAT_BITS (BEAT_BITS),
      .BYTE_SHIFT(BYTE_SHIFT)
  ) bursts (
      .clk(clk),
      .rst(rst),
      .load(started),
      .load_addr(q_addr[ar_ptr][11:0]),
      .load_span(q_span[ar_ptr]),
      .advance(ar_fire),
      .burst(burst),
      .last(last_burst)
  );
  assign arvalid = ar_active;
  assign araddr = ar_next;
  assign arlen = 8'(burst - 1'b1);

  // The returned beat as elements: the first beat of a command shifted down past its lead.
  logic first_beat;
  assign first_beat = r_count == 0;
  always_comb begin
    beat_data = rdata;
    if (first_beat) beat_data = rdata >> (ELEM_BITS * 32'(q_lead[r_ptr]));
    if (first_beat) beat_count = q_first[r_ptr];
    else beat_count = r_full ? COUNT_BITS'(PER_BEAT) : COUNT_BITS'(r_left);
  end
  // A command's first beat, computed when it is queued: min(elements, PER_BEAT - lead) with the
  // compare of the 16-bit count reduced to "are its high bits zero" (PER_BEAT is a power of two),
  // which keeps the commands' own arithmetic (the reorg span, the row lengths) short in front of it.
  localparam int PB_LOG = $clog2(PER_BEAT);
  logic [COUNT_BITS-1:0] cmd_room, cmd_first;
  // What follows the oldest command's first beat (from its queue entry, into r_left).
  logic [BEAT_BITS-1:0] first_rest;
  assign first_rest = q_elems[r_ptr] - BEAT_BITS'(q_first[r_ptr]);
  logic cmd_short;  // fewer elements than a beat holds
  always_comb begin
    cmd_room = COUNT_BITS'(PER_BEAT) - COUNT_BITS'(cmd_lead);
    cmd_short = (cmd_beats >> PB_LOG) == 0;
    cmd_first = cmd_short && COUNT_BITS'(cmd_beats) < cmd_room ? COUNT_BITS'(cmd_beats) : cmd_room;
  end
  assign beat_valid = rvalid;
  assign beat_tag = q_tag[r_ptr];
  assign beat_index = r_index;

  always_ff @(posedge clk) begin
    if (cmd_valid && cmd_ready) begin
      q_addr[wr_ptr]  <= cmd_addr & ~BEAT_MASK;
      q_span[wr_ptr]  <= cmd_span;
      q_elems[wr_ptr] <= cmd_beats;
      q_lead[wr_ptr]  <= cmd_lead;
      q_tag[wr_ptr]   <= cmd_tag;
      q_first[wr_ptr] <= cmd_first;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_ptr <= '0;
      ar_ptr <= '0;
      r_ptr <= '0;
      used <= '0;
      unissued <= '0;
      ar_active <= 1'b0;
      ar_next <= '0;
      r_count <= '0;
      r_index <= '0;
      r_left <= '0;
      r_full <= 1'b0;
    end else begin
      if (pushed) wr_ptr <= wr_ptr + 1'b1;
      // AR side: load a command, then one burst per accepted AR.
      if (started) begin
        ar_active <= 1'b1;
        ar_next <= q_addr[ar_ptr];
        ar_ptr <= ar_ptr + 1'b1;
      end else if (ar_fire) begin
        ar_next <= ar_next + (ADDR_BITS'(burst) << BYTE_SHIFT);
        if (last_burst) ar_active <= 1'b0;
      end
      unissued <= unissued + 3'(pushed) - 3'(started);
      // R side: count beats and elements of the oldest command.
      if (rvalid) begin
        if (retired) begin
          r_count <= '0;
          r_index <= '0;
          r_ptr <= r_ptr + 1'b1;
        end else begin
          r_count <= r_count + 1'b1;
          r_index <= r_index + BEAT_BITS'(beat_count);
          if (first_beat) begin
            r_left <= first_rest;
            r_full <= (first_rest >> PB_LOG) != 0;
          end else begin
            r_left <= r_full ? r_left - BEAT_BITS'(PER_BEAT) : '0;
            r_full <= r_left >= BEAT_BITS'(2 * PER_BEAT);
          end
        end
      end
      used <= used + 3'(pushed) - 3'(retired);
    end
  end
endmodule
