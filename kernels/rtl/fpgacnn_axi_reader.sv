// An AXI4 read master: takes commands "read BEATS elements from ADDR" (with an opaque TAG for the
// consumer) and issues them as INCR bursts of at most 256 beats that never cross a 4 KiB boundary,
// one element per beat (ARSIZE from the element width). It keeps issuing bursts while earlier ones
// return (the slave limits how many are in flight with ARREADY) and hands every beat on with its
// command's tag and its index in the command. The consumer always accepts, so RREADY stays high.
module fpgacnn_axi_reader #(
    parameter int DATA_BITS = 16,
    parameter int ADDR_BITS = 64,
    parameter int TAG_BITS = 8,
    parameter int BEAT_BITS = 16,
    localparam int QUEUE = 4
) (
    input  logic                 clk,
    input  logic                 rst,  // synchronous, active high
    // commands
    input  logic                 cmd_valid,
    output logic                 cmd_ready,
    input  logic [ADDR_BITS-1:0] cmd_addr,
    input  logic [BEAT_BITS-1:0] cmd_beats,   // >= 1
    input  logic [ TAG_BITS-1:0] cmd_tag,
    // returned beats
    output logic                 beat_valid,
    output logic [DATA_BITS-1:0] beat_data,
    output logic [ TAG_BITS-1:0] beat_tag,
    output logic [BEAT_BITS-1:0] beat_index,
    output logic                 idle,
    // AXI4 read address / data channels
    output logic                 arvalid,
    input  logic                 arready,
    output logic [ADDR_BITS-1:0] araddr,
    output logic [          7:0] arlen,
    output logic [          2:0] arsize,
    output logic [          1:0] arburst,
    input  logic                 rvalid,
    output logic                 rready,
    input  logic [DATA_BITS-1:0] rdata,
    input  logic                 rlast,
    input  logic [          1:0] rresp
);
  localparam int BYTES = DATA_BITS / 8;
  localparam int BYTE_SHIFT = $clog2(BYTES);

  // Command queue with two read pointers: the AR side walks ahead, the R side retires entries.
  logic [ADDR_BITS-1:0] q_addr [QUEUE];
  logic [BEAT_BITS-1:0] q_beats[QUEUE];
  logic [ TAG_BITS-1:0] q_tag  [QUEUE];
  logic [1:0] wr_ptr, ar_ptr, r_ptr;
  logic [2:0] used;  // entries not yet retired by the R side
  logic [2:0] unissued;  // entries the AR side has not started

  // The burst being issued.
  logic                 ar_active;
  logic [ADDR_BITS-1:0] ar_next;
  logic [BEAT_BITS-1:0] ar_left;
  logic [BEAT_BITS-1:0] r_count;

  assign cmd_ready = used != 3'(QUEUE);
  assign rready = 1'b1;
  assign arsize = 3'(BYTE_SHIFT);
  assign arburst = 2'b01;
  assign idle = used == 0;

  // Beats to the next 4 KiB boundary and the burst length: min(left, 256, to_boundary).
  logic [12:0] to_boundary;
  logic [BEAT_BITS-1:0] burst;
  always_comb begin
    to_boundary = (13'd4096 - {1'b0, ar_next[11:0]}) >> BYTE_SHIFT;
    burst = ar_left;
    if (burst > BEAT_BITS'(256)) burst = BEAT_BITS'(256);
    if (burst > BEAT_BITS'(to_boundary)) burst = BEAT_BITS'(to_boundary);
  end

  // Beats are counted against the command (RLAST is implied); responses are OKAY on these memories.
  logic unused_inputs;
  assign unused_inputs = &{1'b0, rlast, rresp};

  logic pushed, retired, started;
  assign pushed = cmd_valid && cmd_ready;
  assign retired = rvalid && (r_count + 1'b1 == q_beats[r_ptr]);
  // The next command starts as soon as the last burst of the current one is accepted, so a burst
  // can be issued every cycle.
  logic ar_fire, last_burst;
  assign ar_fire = arvalid && arready;
  assign last_burst = ar_left == burst;
  assign started = (!ar_active || (ar_fire && last_burst)) && unissued != 0;
  assign arvalid = ar_active;
  assign araddr = ar_next;
  assign arlen = 8'(burst - 1'b1);

  assign beat_valid = rvalid;
  assign beat_data = rdata;
  assign beat_tag = q_tag[r_ptr];
  assign beat_index = r_count;

  always_ff @(posedge clk) begin
    if (cmd_valid && cmd_ready) begin
      q_addr[wr_ptr]  <= cmd_addr;
      q_beats[wr_ptr] <= cmd_beats;
      q_tag[wr_ptr]   <= cmd_tag;
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
      ar_left <= '0;
      r_count <= '0;
    end else begin
      if (pushed) wr_ptr <= wr_ptr + 1'b1;
      // AR side: load a command, then one burst per accepted AR.
      if (started) begin
        ar_active <= 1'b1;
        ar_next <= q_addr[ar_ptr];
        ar_left <= q_beats[ar_ptr];
        ar_ptr <= ar_ptr + 1'b1;
      end else if (ar_fire) begin
        ar_next <= ar_next + (ADDR_BITS'(burst) << BYTE_SHIFT);
        ar_left <= ar_left - burst;
        if (last_burst) ar_active <= 1'b0;
      end
      unissued <= unissued + 3'(pushed) - 3'(started);
      // R side: count beats of the oldest command.
      if (rvalid) begin
        if (retired) begin
          r_count <= '0;
          r_ptr <= r_ptr + 1'b1;
        end else begin
          r_count <= r_count + 1'b1;
        end
      end
      used <= used + 3'(pushed) - 3'(retired);
    end
  end
endmodule
