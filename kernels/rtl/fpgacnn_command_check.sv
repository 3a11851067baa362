// kernel::check_command against this build's maxima: whether the kernel may run a command. A refused
// command does nothing (no bus traffic) and just reports done, as the C++ kernel returns early; which
// rule refused it is not visible on the bus, so the rules are checked together, not in order.
// A reorg also needs in_c / stride^2: a 16-step restoring divider computes it (and checks that it
// divides) in the cycles after `start`. Upsample and shortcut (contract 7) follow
// kernel::check_upsample_shortcut, and only in a build that has them (ELEMENTWISE).
module fpgacnn_command_check #(
    parameter int TR = 8,
    parameter int TC = 8,
    parameter int MAX_K = 3,
    parameter int MAX_S = 2,
    parameter bit ELEMENTWISE = 1'b1,
    localparam int WORDS = fpgacnn_contract_pkg::COMMAND_WORDS
) (
    input  logic                clk,
    input  logic                rst,  // synchronous, active high
    input  logic                start,
    input  logic [WORDS*32-1:0] command,
    output logic                done,
    output logic                ok,
    output logic [        15:0] reorg_maps  // in_c / stride^2 (reorg)
);
  logic [31:0] op, in_c, in_h, in_w, out_c, out_h, out_w, k, s, pad;
  logic [31:0] tile_rows, tile_cols, output_bits, weight_bits, input_bits;
  logic signed [31:0] bias_shift, output_shift;
  logic [31:0] activation;
  assign activation = command[32*fpgacnn_contract_pkg::CMD_LEAKY+:32];
  assign op = command[32*fpgacnn_contract_pkg::CMD_OP+:32];
  assign in_c = command[32*fpgacnn_contract_pkg::CMD_IN_C+:32];
  assign in_h = command[32*fpgacnn_contract_pkg::CMD_IN_H+:32];
  assign in_w = command[32*fpgacnn_contract_pkg::CMD_IN_W+:32];
  assign out_c = command[32*fpgacnn_contract_pkg::CMD_OUT_C+:32];
  assign out_h = command[32*fpgacnn_contract_pkg::CMD_OUT_H+:32];
  assign out_w = command[32*fpgacnn_contract_pkg::CMD_OUT_W+:32];
  assign k = command[32*fpgacnn_contract_pkg::CMD_KERNEL_SIZE+:32];
  assign s = command[32*fpgacnn_contract_pkg::CMD_STRIDE+:32];
  assign pad = command[32*fpgacnn_contract_pkg::CMD_PAD+:32];
  assign bias_shift = command[32*fpgacnn_contract_pkg::CMD_BIAS_SHIFT+:32];
  assign output_shift = command[32*fpgacnn_contract_pkg::CMD_OUTPUT_SHIFT+:32];
  assign tile_rows = command[32*fpgacnn_contract_pkg::CMD_TILE_ROWS+:32];
  assign tile_cols = command[32*fpgacnn_contract_pkg::CMD_TILE_COLS+:32];
  assign output_bits = command[32*fpgacnn_contract_pkg::CMD_OUTPUT_BITS+:32];
  assign weight_bits = command[32*fpgacnn_contract_pkg::CMD_WEIGHT_BITS+:32];
  assign input_bits = command[32*fpgacnn_contract_pkg::CMD_INPUT_BITS+:32];

  // The offsets are not part of the check.
  logic unused_fields;
  assign unused_fields = &{1'b0, command[32*fpgacnn_contract_pkg::CMD_INPUT_OFFSET+:32*4]};

  localparam logic [31:0] DATA = 32'(fpgacnn_contract_pkg::DATA_BITS);
  localparam logic [31:0] NARROW = 32'(fpgacnn_contract_pkg::NARROW_BITS);
  localparam logic [31:0] MAX_DIM = 32'(fpgacnn_contract_pkg::MAX_DIMENSION);
  localparam logic [31:0] MAX_CH = 32'(fpgacnn_contract_pkg::MAX_CHANNELS);
  localparam int SB = $clog2(MAX_S + 1);

  logic is_conv, is_pool, is_reorg, is_identify, is_upsample, is_shortcut;
  assign is_conv = op == 32'(fpgacnn_contract_pkg::OP_CONV);
  assign is_upsample = op == 32'(fpgacnn_contract_pkg::OP_UPSAMPLE);
  assign is_shortcut = op == 32'(fpgacnn_contract_pkg::OP_SHORTCUT);
  assign is_pool = op == 32'(fpgacnn_contract_pkg::OP_MAXPOOL);
  assign is_reorg = op == 32'(fpgacnn_contract_pkg::OP_REORG);
  assign is_identify = op == 32'(fpgacnn_contract_pkg::OP_IDENTIFY);

  // The stride is only used in products once it is known to be in 1..MAX_S.
  logic [SB-1:0] s_small;
  assign s_small = SB'(s);

  // x * y for a y of SB bits (the stride): shifted adds, no DSP.
  function automatic logic [35:0] times_stride(input logic [35:0] x, input logic [SB-1:0] y);
    logic [35:0] sum;
    sum = 36'd0;
    for (int i = 0; i < SB; i++) if (y[i]) sum = sum + (x << i);
    times_stride = sum;
  endfunction

  // Conv extent: out == (in + 2 pad - k) / s + 1 <=> span >= 0 and (out-1)*s <= span < out*s.
  function automatic logic extent_ok(input logic [31:0] in, input logic [31:0] out, input logic [31:0] kk,
                                     input logic [31:0] pp, input logic [SB-1:0] ss);
    logic signed [35:0] span;
    logic [35:0] low, high;
    span = 36'(in) + (36'(pp) << 1) - 36'(kk);
    low = times_stride(36'(out) - 36'd1, ss);
    high = times_stride(36'(out), ss);
    extent_ok = !span[35] && low <= 36'(span) && 36'(span) < high;
  endfunction

  logic basic_ok, elementwise_ok, elementwise_verdict;
  always_comb begin
    basic_ok = 1'b1;
    if (!is_conv && !is_pool && !is_reorg) basic_ok = 1'b0;
    if (output_bits != DATA && output_bits != NARROW) basic_ok = 1'b0;
    if (is_conv ? (weight_bits != DATA && weight_bits != NARROW) : weight_bits != DATA) basic_ok = 1'b0;
    if (is_conv ? (input_bits != DATA && input_bits != NARROW) : input_bits != output_bits) basic_ok = 1'b0;
    if (in_h == 0 || in_w == 0 || out_h == 0 || out_w == 0) basic_ok = 1'b0;
    if (in_h > MAX_DIM || in_w > MAX_DIM || out_h > MAX_DIM || out_w > MAX_DIM) basic_ok = 1'b0;
    if (in_c == 0 || out_c == 0 || in_c > MAX_CH || out_c > MAX_CH) basic_ok = 1'b0;
    if (s < 1 || s > 32'(MAX_S)) basic_ok = 1'b0;
    if (output_shift < fpgacnn_contract_pkg::EXACT_MIN_OUTPUT_SHIFT ||
        output_shift > fpgacnn_contract_pkg::EXACT_MAX_OUTPUT_SHIFT)
      basic_ok = 1'b0;
    if (tile_cols < 1 || tile_cols > 32'(TC)) basic_ok = 1'b0;
    if (is_reorg) begin
      if (36'(out_c) != times_stride(times_stride(36'(in_c), s_small), s_small) ||
          times_stride(36'(out_h), s_small) != 36'(in_h) || times_stride(36'(out_w), s_small) != 36'(in_w))
        basic_ok = 1'b0;
    end else begin
      if (k < 1 || k > 32'(MAX_K)) basic_ok = 1'b0;
      if (pad >= k) basic_ok = 1'b0;
      if (tile_rows < 1 || tile_rows > 32'(TR)) basic_ok = 1'b0;
      if (is_pool && out_c != in_c) basic_ok = 1'b0;
      if (is_conv) begin
        if (bias_shift < fpgacnn_contract_pkg::EXACT_MIN_BIAS_SHIFT ||
            bias_shift > fpgacnn_contract_pkg::EXACT_MAX_BIAS_SHIFT)
          basic_ok = 1'b0;
        if (activation >= 32'(fpgacnn_contract_pkg::ACTIVATION_CODES)) basic_ok = 1'b0;
        if (!extent_ok(in_h, out_h, k, pad, s_small) || !extent_ok(in_w, out_w, k, pad, s_small))
          basic_ok = 1'b0;
      end
    end
    if (is_identify) basic_ok = 1'b1;
  end
  // Upsample and shortcut: their verdict is registered every cycle (the command registers hold still
  // from before ap_start) and ORed into the others' (false for these ops) at the end, so their rules
  // add no more than one input of its last gate to the path through the conv's extent arithmetic.
  always_ff @(posedge clk) elementwise_verdict <= ELEMENTWISE && (is_upsample || is_shortcut) && elementwise_ok;

  // kernel::check_upsample_shortcut.
  localparam logic [31:0] SEGMENT = 32'(fpgacnn_contract_pkg::MAX_ELEMENTWISE_SEGMENT);
  always_comb begin
    elementwise_ok = 1'b1;
    if (in_h == 0 || in_w == 0 || out_h == 0 || out_w == 0) elementwise_ok = 1'b0;
    if (in_h > MAX_DIM || in_w > MAX_DIM || out_h > MAX_DIM || out_w > MAX_DIM) elementwise_ok = 1'b0;
    if (in_c == 0 || in_c > MAX_CH) elementwise_ok = 1'b0;
    if (output_bits != DATA && output_bits != NARROW) elementwise_ok = 1'b0;
    if (input_bits != output_bits) elementwise_ok = 1'b0;
    if (tile_cols < 1 || tile_cols > SEGMENT) elementwise_ok = 1'b0;
    if (k != 1 || pad != 0) elementwise_ok = 1'b0;
    if (is_upsample) begin
      if (s < 1 || s > 32'(MAX_S)) elementwise_ok = 1'b0;
      if (weight_bits != DATA || activation != 32'(fpgacnn_contract_pkg::ACTIVATION_LINEAR)) elementwise_ok = 1'b0;
      if (output_shift < fpgacnn_contract_pkg::EXACT_MIN_OUTPUT_SHIFT ||
          output_shift > fpgacnn_contract_pkg::EXACT_MAX_OUTPUT_SHIFT)
        elementwise_ok = 1'b0;
      if (out_c != in_c || 36'(out_h) != times_stride(36'(in_h), s_small) ||
          36'(out_w) != times_stride(36'(in_w), s_small))
        elementwise_ok = 1'b0;
    end else begin
      if (s != 1) elementwise_ok = 1'b0;
      if (weight_bits != DATA && weight_bits != NARROW) elementwise_ok = 1'b0;
      if (activation >= 32'(fpgacnn_contract_pkg::ACTIVATION_CODES)) elementwise_ok = 1'b0;
      if (bias_shift < -fpgacnn_contract_pkg::SHORTCUT_MAX_ALIGN_SHIFT ||
          bias_shift > fpgacnn_contract_pkg::SHORTCUT_MAX_ALIGN_SHIFT ||
          output_shift < -fpgacnn_contract_pkg::SHORTCUT_MAX_OUTPUT_GAIN ||
          output_shift > fpgacnn_contract_pkg::EXACT_MAX_OUTPUT_SHIFT)
        elementwise_ok = 1'b0;
      if (out_c != in_c || out_h != in_h || out_w != in_w) elementwise_ok = 1'b0;
    end
  end

  // Restoring division of in_c (<= MAX_CHANNELS after basic_ok) by stride^2.
  logic [4:0] step;
  logic running;
  logic [15:0] quotient;
  logic [16:0] remainder;
  logic [15:0] dividend;
  logic [ 7:0] divisor;
  logic [16:0] trial;
  assign trial = {remainder[15:0], dividend[15]} - 17'(divisor);

  always_ff @(posedge clk) begin
    if (rst) begin
      done <= 1'b0;
      ok <= 1'b0;
      running <= 1'b0;
      step <= '0;
      quotient <= '0;
      remainder <= '0;
      dividend <= '0;
      divisor <= '0;
      reorg_maps <= '0;
    end else begin
      done <= 1'b0;
      if (start) begin
        if (basic_ok && is_reorg) begin
          running <= 1'b1;
          step <= 5'd16;
          dividend <= 16'(in_c);
          divisor <= 8'(times_stride(36'(s_small), s_small));
          remainder <= '0;
          quotient <= '0;
        end else begin
          done <= 1'b1;
          ok <= basic_ok || elementwise_verdict;
        end
      end else if (running) begin
        if (step == 0) begin
          running <= 1'b0;
          done <= 1'b1;
          ok <= remainder == 0;
          reorg_maps <= quotient;
        end else begin
          step <= step - 1'b1;
          dividend <= {dividend[14:0], 1'b0};
          if (!trial[16]) begin
            remainder <= trial;
            quotient <= {quotient[14:0], 1'b1};
          end else begin
            remainder <= {remainder[15:0], dividend[15]};
            quotient <= {quotient[14:0], 1'b0};
          end
        end
      end
    end
  end
endmodule
