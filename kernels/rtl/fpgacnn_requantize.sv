// arith::requantize_to_width (and a shortcut's arith::requantize_sum, whose sum needs 48 bits) as a
// four-stage pipeline: the input registered, the product (acc * 13107
// for a leaky negative value, acc * 0 for a relu negative one, acc * 1 otherwise: one multiplication, no multiplexer behind it), the
// rounding shift (round half up: (v + 2^(s-1)) >> s, or a left shift for s < 0) and the saturation to
// 16 or 8 bits. Every step is exact in 64-bit two's complement for the contract's shift range
// (arith::kExact*OutputShift), as in the C++. The input register and the product register keep the
// multiplier's DSPs between two registers of their own: the accumulator read and lane selection in
// front of this module and the rounding behind it are separate paths.
module fpgacnn_requantize (
    input  logic        clk,
    input  logic        in_valid,
    input  logic [47:0] acc,  // a conv's int32 accumulator sign-extended, or a shortcut's sum (< 2^48)
    input  logic [31:0] shift,  // output_shift, within [EXACT_MIN_OUTPUT_SHIFT, EXACT_MAX_OUTPUT_SHIFT]
    input  logic        leaky,
    input  logic        relu,  // leaky with slope 0 (arith::kActivationRelu)
    input  logic        narrow,  // saturate to NARROW_BITS instead of DATA_BITS
    output logic        out_valid,
    output logic [15:0] value
);
  // The shift is within [-16, 46]: eight bits carry it.
  logic unused_shift_bits;
  assign unused_shift_bits = &{1'b0, shift[31:8]};

  // Stage 0: the input and the activation's choice of factor and total shift.
  logic               s0_valid;
  logic signed [47:0] s0_acc;
  logic signed [15:0] s0_factor;
  logic signed [ 7:0] s0_shift;
  logic               s0_narrow;
  always_ff @(posedge clk) begin
    s0_valid  <= in_valid;
    s0_narrow <= narrow;
    s0_acc    <= acc;
    if (leaky && acc[47]) begin
      s0_factor <= 16'(fpgacnn_contract_pkg::LEAKY_MULTIPLIER);
      s0_shift  <= 8'(shift) + 8'(fpgacnn_contract_pkg::LEAKY_SHIFT);
    end else if (relu && acc[47]) begin
      s0_factor <= 16'sd0;  // 0 through every later stage: the rounding of 0 is 0
      s0_shift  <= 8'(shift);
    end else begin
      s0_factor <= 16'sd1;
      s0_shift  <= 8'(shift);
    end
  end

  // Stage 1: the product (exact: |acc * factor| < 2^62).
  logic               s1_valid;
  logic signed [63:0] s1_value;
  logic signed [ 7:0] s1_shift;
  logic               s1_narrow;
  always_ff @(posedge clk) begin
    s1_valid  <= s0_valid;
    s1_narrow <= s0_narrow;
    s1_shift  <= s0_shift;
    s1_value  <= $signed({{16{s0_acc[47]}}, s0_acc}) * $signed({{48{s0_factor[15]}}, s0_factor});
  end

  // Stage 2: one rounding.
  logic               s2_valid;
  logic signed [63:0] s2_value;
  logic               s2_narrow;
  logic        [ 5:0] right, left;
  assign right = 6'(s1_shift);
  assign left  = 6'(-s1_shift);
  always_ff @(posedge clk) begin
    s2_valid  <= s1_valid;
    s2_narrow <= s1_narrow;
    if (s1_shift > 0) s2_value <= (s1_value + (64'sd1 <<< (right - 6'd1))) >>> right;
    else if (s1_shift < 0) s2_value <= s1_value <<< left;
    else s2_value <= s1_value;
  end

  // Stage 3: saturation to the output width.
  always_ff @(posedge clk) begin
    out_valid <= s2_valid;
    if (s2_narrow) begin
      if (s2_value > 64'sd127) value <= 16'd127;
      else if (s2_value < -64'sd128) value <= 16'hFF80;
      else value <= 16'(s2_value);
    end else begin
      if (s2_value > 64'sd32767) value <= 16'h7FFF;
      else if (s2_value < -64'sd32768) value <= 16'h8000;
      else value <= 16'(s2_value);
    end
  end
endmodule
