// A shift-and-add multiplier, one bit of b a cycle: the controller's per-command products (plane
// sizes, strides times widths) need no DSP, and a command's setup takes a few dozen cycles more.
// The product is modulo 2^32, as the C++ kernel's uint32 arithmetic.
module fpgacnn_serial_mul (
    input  logic        clk,
    input  logic        rst,  // synchronous, active high
    input  logic        start,
    input  logic [31:0] a,
    input  logic [15:0] b,
    output logic        busy,
    output logic [31:0] product
);
  logic [31:0] shifted;
  logic [15:0] rest;
  assign busy = rest != 0;
  always_ff @(posedge clk) begin
    if (rst) begin
      shifted <= '0;
      rest <= '0;
      product <= '0;
    end else if (start) begin
      shifted <= a;
      rest <= b;
      product <= '0;
    end else if (rest != 0) begin
      if (rest[0]) product <= product + shifted;
      shifted <= shifted << 1;
      rest <= rest >> 1;
    end
  end
endmodule
