// The burst an AXI4 master issues next for a command of `span` beats from a beat-aligned address:
// min(beats left, 256, beats to the next 4 KiB boundary), and whether it is the command's last.
// Shared by the read and write masters. Timing (the 150 MHz path ran from this minimum into the
// master's address adder): the length, the beats left and the beats to the boundary are registers,
// set when a command is loaded (from its address and span) and after each accepted burst (from the
// registers alone: the boundary is `burst` beats nearer, or a whole page away once reached), so the
// master's address adds a register. The bursts and their cycles are what the combinational minimum
// gave.
module fpgacnn_burst_length #(
    parameter int BEAT_BITS  = 16,
    parameter int BYTE_SHIFT = 1    // log2 of the bytes a beat
) (
    input  logic               clk,
    input  logic               rst,         // synchronous, active high
    input  logic               load,        // a command starts: its first burst follows
    input  logic [       11:0] load_addr,   // its address within the 4 KiB page
    input  logic [BEAT_BITS:0] load_span,   // its beats
    input  logic               advance,     // the current burst was accepted (ignored under load)
    output logic [BEAT_BITS:0] burst,       // beats of the current burst
    output logic               last         // the current burst is the command's last
);
  localparam logic [12:0] PAGE_BEATS = 13'(4096 >> BYTE_SHIFT);
  logic [BEAT_BITS:0] left;  // beats of the command from the current burst on
  logic [12:0] to_boundary;  // beats from the current burst's address to the next boundary
  logic [12:0] load_to_boundary, next_to_boundary;
  logic [BEAT_BITS:0] next_left;

  function automatic logic [BEAT_BITS:0] burst_of(input logic [BEAT_BITS:0] beats, input logic [12:0] room);
    burst_of = beats;
    if (burst_of > (BEAT_BITS + 1)'(256)) burst_of = (BEAT_BITS + 1)'(256);
    if (burst_of > (BEAT_BITS + 1)'(room)) burst_of = (BEAT_BITS + 1)'(room);
  endfunction

  always_comb begin
    load_to_boundary = (13'd4096 - {1'b0, load_addr}) >> BYTE_SHIFT;
    next_left = left - burst;
    next_to_boundary = (BEAT_BITS + 1)'(to_boundary) == burst ? PAGE_BEATS : to_boundary - 13'(burst);
  end
  assign last = left == burst;

  always_ff @(posedge clk) begin
    if (rst) begin
      left <= '0;
      to_boundary <= '0;
      burst <= '0;
    end else if (load) begin
      left <= load_span;
      to_boundary <= load_to_boundary;
      burst <= burst_of(load_span, load_to_boundary);
    end else if (advance) begin
      left <= next_left;
      to_boundary <= next_to_boundary;
      burst <= burst_of(next_left, next_to_boundary);
    end
  end
endmodule
