// The Tm x Tn multiplier array and its Tm adder trees: for each output map m, the sum over the Tn
// input maps of w[n][m] * x[n], two register stages (the products, as in a DSP's MREG, then the
// trees' sums). In pair mode (8-bit input and weights, arith::pair_products) each multiplier takes the
// packed operand x1 * 2^16 + x0 (25 bits: a DSP48's A port) and its product is split into x0 * w
// (the sign-extended low 16 bits) and x1 * w (the rest, plus the borrow of the low field), so every
// tree sums two output columns at once. Sums wrap modulo 2^32 like arith::mac.
module fpgacnn_mac_array #(
    parameter int TM = 8,
    parameter int TN = 4,
    parameter int INT8_PAIRS = 1
) (
    input  logic                  clk,
    input  logic                  pair,   // split the products (pair mode)
    input  logic [   TN*16-1:0]   x0,     // lane n at [16*n +: 16]
    input  logic [   TN*16-1:0]   x1,     // pair mode: the second column's values (8-bit, sign-extended)
    input  logic [TM*TN*16-1:0]   w,      // weight of (n, m) at lane n*TM + m
    output logic [   TM*32-1:0]   sum0,   // first column (every mode)
    output logic [   TM*32-1:0]   sum1    // second column (pair mode)
);
  localparam int LEAVES = TN > 1 ? 1 << $clog2(TN) : 1;
  localparam int PROD_BITS = 41;

  logic signed [PROD_BITS-1:0] product[TM*TN];
  // x1 holds 8-bit values (sign-extended): nine bits carry them.
  logic unused_x1_bits;
  always_comb begin
    unused_x1_bits = 1'b0;
    for (int n = 0; n < TN; n++) unused_x1_bits = unused_x1_bits | (&x1[16*n+9+:7]);
  end
  logic pair_q;

  // Stage 1: the multipliers.
  genvar gm, gn;
  for (gm = 0; gm < TM; gm++) begin : g_maps
    for (gn = 0; gn < TN; gn++) begin : g_inputs
      logic signed [24:0] operand;
      if (INT8_PAIRS != 0) begin : g_packed
        assign operand = pair ? $signed({x1[16*gn+:9], 16'd0}) + $signed({{9{x0[16*gn+15]}}, x0[16*gn+:16]})
                              : $signed({{9{x0[16*gn+15]}}, x0[16*gn+:16]});
      end else begin : g_plain
        assign operand = $signed({{9{x0[16*gn+15]}}, x0[16*gn+:16]});
      end
      always_ff @(posedge clk) begin
        product[gm*TN+gn] <= $signed({{16{operand[24]}}, operand}) *
                             $signed({{25{w[16*(gn*TM+gm)+15]}}, w[16*(gn*TM+gm)+:16]});
      end
    end
  end
  always_ff @(posedge clk) pair_q <= pair;

  // Stage 2: split (pair mode) and the adder trees.
  for (gm = 0; gm < TM; gm++) begin : g_trees
    logic [31:0] node0[2*LEAVES];
    logic [31:0] node1[2*LEAVES];
    always_comb begin
      for (int i = 0; i < 2 * LEAVES; i++) begin
        node0[i] = 32'd0;
        node1[i] = 32'd0;
      end
      for (int n = 0; n < TN; n++) begin
        if (INT8_PAIRS != 0 && pair_q) begin
          node0[LEAVES+n] = {{16{product[gm*TN+n][15]}}, product[gm*TN+n][15:0]};
          node1[LEAVES+n] = {{(48 - PROD_BITS){product[gm*TN+n][PROD_BITS-1]}}, product[gm*TN+n][PROD_BITS-1:16]} +
                            {31'd0, product[gm*TN+n][15]};
        end else begin
          node0[LEAVES+n] = 32'(product[gm*TN+n]);
        end
      end
      for (int i = LEAVES - 1; i >= 1; i--) begin
        node0[i] = node0[2*i] + node0[2*i+1];
        node1[i] = node1[2*i] + node1[2*i+1];
      end
    end
    always_ff @(posedge clk) begin
      sum0[32*gm+:32] <= LEAVES > 1 ? node0[1] : node0[LEAVES];
      sum1[32*gm+:32] <= LEAVES > 1 ? node1[1] : node1[LEAVES];
    end
  end
endmodule
