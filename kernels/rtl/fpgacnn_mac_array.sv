// The Tm x Tn multiplier array and its Tm adder trees: for each output map m, the sum over the Tn
// input maps of w[n][m] * x[n], two register stages (the products, as in a DSP's MREG, then the
// trees' sums). In pair mode (8-bit input and weights, arith::pair_products) each multiplier takes the
// packed operand x1 * 2^16 + x0 (25 bits: a DSP48's A port), and the trees recover the sums of
// x0 * w and of x1 * w (the two columns) from the products (stage 2 below), so every map sums two
// output columns at once. Sums wrap modulo 2^32 like arith::mac.
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

  // Stage 2: the adder trees. One tree sums the whole products (T), a narrow one their low 16 bits
  // sign-extended (L). In pair mode every x0 * w is exact in 16 bits (8-bit operands), so L is the
  // first column's sum, T - L is the second column's sum times 2^16 (T and L agree in their low 16
  // bits) and the second column is T[..:16] - L[..:16]: one narrow tree and one short subtraction
  // instead of a second full tree and a borrow per product (arith::pair_products' p1, summed). T is
  // wide enough not to wrap in pair mode; outside it its low 32 bits are the sum modulo 2^32.
  localparam int TREE_BITS = 32 + $clog2(LEAVES);
  localparam int LOW_BITS = 17 + $clog2(LEAVES);  // one spare bit: no empty replication at TN = 1
  for (gm = 0; gm < TM; gm++) begin : g_trees
    logic [TREE_BITS-1:0] node_t[2*LEAVES];
    logic [LOW_BITS-1:0] node_l[2*LEAVES];
    logic [TREE_BITS-1:0] total;
    logic [LOW_BITS-1:0] low;
    logic [TREE_BITS-17:0] high;  // the second column's sum (pair mode)
    always_comb begin
      for (int i = 0; i < 2 * LEAVES; i++) begin
        node_t[i] = '0;
        node_l[i] = '0;
      end
      for (int n = 0; n < TN; n++) begin
        node_t[LEAVES+n] = TREE_BITS'(product[gm*TN+n]);
        node_l[LEAVES+n] = {{(LOW_BITS - 16) {product[gm*TN+n][15]}}, product[gm*TN+n][15:0]};
      end
      for (int i = LEAVES - 1; i >= 1; i--) begin
        node_t[i] = node_t[2*i] + node_t[2*i+1];
        node_l[i] = node_l[2*i] + node_l[2*i+1];
      end
      total = LEAVES > 1 ? node_t[1] : node_t[LEAVES];
      low = LEAVES > 1 ? node_l[1] : node_l[LEAVES];
      high = total[TREE_BITS-1:16] - {{(TREE_BITS - LOW_BITS) {low[LOW_BITS-1]}}, low[LOW_BITS-1:16]};
    end
    always_ff @(posedge clk) begin
      if (INT8_PAIRS != 0 && pair_q) sum0[32*gm+:32] <= {{(32 - LOW_BITS) {low[LOW_BITS-1]}}, low};
      else sum0[32*gm+:32] <= total[31:0];
      sum1[32*gm+:32] <= INT8_PAIRS != 0 ? {{(48 - TREE_BITS) {high[TREE_BITS-17]}}, high} : 32'd0;
    end
  end
endmodule
