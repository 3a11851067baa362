// The layer engine: runs one command (conv, maxpool, reorg, upsample, shortcut, identify) with the loop
// structure of kernels/src/conv_layer.hpp, pool_layer.hpp, reorg_layer.hpp and
// upsample_shortcut_layer.hpp. For conv and maxpool, three engines work on a stream of
// jobs, one job = one input-map group (Tn maps) of one output-map group (Tm maps; maxpool:
// min(Tm, Tn) lanes) of one output tile (Tr x Tc):
//   loader:  walks tiles, map groups and input groups; reads the bias of a map group, the input tile
//            (one burst per map row, only the part inside the tensor: padding is substituted when the
//            tile is read) and the (Tm, Tn) weight block (one burst) into bank job % 2;
//   compute: runs every tap over the tile through the multiplier array into the int32 accumulators
//            of bank map-group % 2;
//   store:   requantizes a finished map group's accumulators and writes one burst per map row.
// Input tiles and weight blocks are ping-ponged (the loader fills job n+1 while compute runs job n)
// and so are the accumulators (map group m is stored while m+1 is computed), as conv_layer.hpp
// describes. Buffers are one memory per lane (generate loops) with registered reads.
module fpgacnn_core #(
    parameter int TM = 8,
    parameter int TN = 4,
    parameter int TR = 8,
    parameter int TC = 8,
    parameter int MAX_K = 3,
    parameter int MAX_S = 2,
    parameter int INT8_PAIRS = 1,
    parameter int ADDR_BITS = 64,
    parameter int PORT_BITS = 16,  // the word-wide masters' data width (fm8: half)
    localparam int PE = PORT_BITS / 16,  // feature-map elements / parameter words a beat
    localparam int PC = $clog2(PE + 1),  // bits of a beat's element count
    localparam int WORDS = fpgacnn_contract_pkg::COMMAND_WORDS,
    localparam int PTRS = fpgacnn_contract_pkg::POINTER_COUNT
) (
    input  logic                 clk,
    input  logic                 rst,  // synchronous, active high
    input  logic                 start,
    input  logic [ WORDS*32-1:0] command,
    input  logic [  PTRS*64-1:0] pointers,
    output logic                 busy,
    output logic                 done,
    // fm_read (16-bit) reader
    output logic                 fm_cmd_valid,
    input  logic                 fm_cmd_ready,
    output logic                 fm8_cmd_valid,
    input  logic                 fm8_cmd_ready,
    output logic [ADDR_BITS-1:0] fm_cmd_addr,   // shared by both feature-map readers
    output logic [         15:0] fm_cmd_beats,
    output logic [         23:0] fm_cmd_tag,    // {lane, buffer address}
    input  logic                 fm_beat_valid,
    input  logic [    PE*16-1:0] fm_beat_data,   // element fm_beat_index of the row and on
    input  logic [         23:0] fm_beat_tag,
    input  logic [         15:0] fm_beat_index,
    input  logic [       PC-1:0] fm_beat_count,  // elements in fm_beat_data
    input  logic                 fm8_beat_valid,
    input  logic [     PE*8-1:0] fm8_beat_data,
    input  logic [         23:0] fm8_beat_tag,
    input  logic [         15:0] fm8_beat_index,
    input  logic [       PC-1:0] fm8_beat_count,
    input  logic                 fm_idle,
    input  logic                 fm8_idle,
    // params reader
    output logic                 par_cmd_valid,
    input  logic                 par_cmd_ready,
    output logic [ADDR_BITS-1:0] par_cmd_addr,
    output logic [         15:0] par_cmd_beats,
    output logic [          1:0] par_cmd_tag,   // {weights, bank}
    input  logic                 par_beat_valid,
    input  logic [    PE*16-1:0] par_beat_data,  // word par_beat_index of the read and on
    input  logic [          1:0] par_beat_tag,
    input  logic [         15:0] par_beat_index,
    input  logic [       PC-1:0] par_beat_count,
    input  logic                 par_idle,
    // writers (16-bit fm_write, 8-bit fm8_write)
    output logic                 wr_cmd_valid,
    output logic                 wr8_cmd_valid,
    input  logic                 wr_cmd_ready,
    input  logic                 wr8_cmd_ready,
    output logic [ADDR_BITS-1:0] wr_cmd_addr,
    output logic [         15:0] wr_cmd_beats,
    output logic                 wr_data_valid,
    output logic                 wr8_data_valid,
    output logic [         15:0] wr_data,
    input  logic [          4:0] wr_count,
    input  logic [          4:0] wr8_count,
    input  logic                 wr_idle,
    input  logic                 wr8_idle
);
  // ---------------------------------------------------------------- sizes
  localparam int IN_ROWS = (TR - 1) * MAX_S + MAX_K;
  localparam int IN_COLS = (TC - 1) * MAX_S + MAX_K;
  localparam int IN_SIZE = IN_ROWS * IN_COLS;
  localparam int IN_DEPTH = 2 * IN_SIZE;  // two banks (ping-pong)
  localparam int IN_AW = $clog2(IN_DEPTH);
  localparam int TAPS = MAX_K * MAX_K;
  localparam int W_DEPTH = 2 * TAPS;
  localparam int W_AW = $clog2(W_DEPTH);
  localparam int LANES = TM * TN;
  localparam int TCH = (TC + 1) / 2;  // accumulators split by column parity (pair mode: two a cycle)
  localparam int ACC_DEPTH = TR * TCH;
  localparam int ACC_AW = ACC_DEPTH > 1 ? $clog2(ACC_DEPTH) : 1;
  localparam int PL = TN < TM ? TN : TM;  // maxpool lanes (kPoolLanes)
  localparam int WRITE_DEPTH = 16;  // the writers' data queues

  localparam logic [31:0] OP_CONV = 32'(fpgacnn_contract_pkg::OP_CONV);
  localparam logic [31:0] OP_MAXPOOL = 32'(fpgacnn_contract_pkg::OP_MAXPOOL);
  localparam logic [31:0] OP_REORG = 32'(fpgacnn_contract_pkg::OP_REORG);
  localparam logic [31:0] NARROW = 32'(fpgacnn_contract_pkg::NARROW_BITS);
  localparam logic [31:0] OP_UPSAMPLE = 32'(fpgacnn_contract_pkg::OP_UPSAMPLE);
  localparam logic [31:0] OP_SHORTCUT = 32'(fpgacnn_contract_pkg::OP_SHORTCUT);
  // Upsample and shortcut (contract 7) use input lanes 0 and 1 as their line buffers (a row segment of
  // up to MAX_ELEMENTWISE_SEGMENT elements each): a build with fewer lanes or a smaller input buffer
  // has no such ops, refuses them and says so in its fingerprint.
  localparam int SEGMENT = fpgacnn_contract_pkg::MAX_ELEMENTWISE_SEGMENT;
  localparam bit ELEMENTWISE = TN >= 2 && IN_DEPTH >= SEGMENT;
  localparam int B_LANE = TN >= 2 ? 1 : 0;  // the shortcut's second operand

  // ---------------------------------------------------------------- the command, latched at start
  logic [31:0] op, in_off, out_off, w_off, b_off, err_off, in_c, in_h, in_w, out_c, out_h, out_w, k, s, pad;
  logic [31:0] bias_shift, output_shift, tile_rows, tile_cols;
  logic leaky, relu, out_narrow, w_narrow, in_narrow, pair;
  logic [ADDR_BITS-1:0] base_fm_read, base_fm_write, base_params, base_fm8_read, base_fm8_write;

  // ---------------------------------------------------------------- command check
  logic check_start, check_done, check_ok;
  logic [15:0] reorg_maps;
  fpgacnn_command_check #(
      .TR(TR),
      .TC(TC),
      .MAX_K(MAX_K),
      .MAX_S(MAX_S),
      .ELEMENTWISE(ELEMENTWISE)
  ) command_check (
      .clk(clk),
      .rst(rst),
      .start(check_start),
      .command(command),
      .done(check_done),
      .ok(check_ok),
      .reorg_maps(reorg_maps)
  );

  // Bits wider than the buffers and shifts need: indices stay inside the tile buffers.
  logic unused_bits;
  assign unused_bits = &{1'b0, fm_beat_index, fm8_beat_index, bias_shift[31:5], dest_col, reorg_read_beats[31:16],
                        ew_read_beats[31:16], wr_beats[31:16]};

  // ---------------------------------------------------------------- small products without DSPs
  // x * y for a y of at most MAX_S / MAX_K (strides, kernel sizes): a few shifted adds.
  localparam int SMALL_BITS = $clog2((MAX_S > MAX_K ? MAX_S : MAX_K) + 1);
  function automatic logic [31:0] mul_small(input logic [31:0] x, input logic [31:0] y);
    logic [31:0] sum;
    sum = 32'd0;
    for (int i = 0; i < SMALL_BITS; i++) if (y[i]) sum = sum + (x << i);
    mul_small = sum;
  endfunction

  // ---------------------------------------------------------------- buffers
  // Input tile: TN lanes x two banks, two read ports (pair mode reads two columns a cycle); each lane
  // takes a beat's PE elements a cycle (fpgacnn_banked_ram).
  logic [IN_AW-1:0] in_waddr[TN];
  logic [PE*16-1:0] in_wdata[TN];
  logic [PC-1:0] in_wcount[TN];
  logic in_we[TN];
  logic [IN_AW-1:0] in_raddr0, in_raddr1;
  logic [15:0] in_rdata0[TN];
  logic [15:0] in_rdata1[TN];
  // Weight block: one memory per multiplier, [bank][tap].
  logic [W_AW-1:0] w_waddr[LANES];
  logic [15:0] w_wdata[LANES];
  logic w_we[LANES];
  logic [W_AW-1:0] w_raddr;
  logic [LANES*16-1:0] w_rdata;
  // Accumulators: TM lanes x two banks (ping-pong between compute and store) x column parity (pair
  // mode writes two columns a cycle). Compute reads and writes one bank, store reads the other.
  logic [ACC_AW-1:0] acc_waddr;
  logic [ACC_AW-1:0] acc_raddr[2];
  logic acc_we0, acc_we1;
  logic c_acc_bank, st_bank;
  logic [31:0] acc_wdata0[TM];
  logic [31:0] acc_wdata1[TM];
  logic [31:0] acc_rdata[TM][2][2];  // [lane][bank][parity]

  genvar gi, gb;
  for (gi = 0; gi < TN; gi++) begin : g_input_lanes
    fpgacnn_banked_ram #(
        .WIDTH(16),
        .DEPTH(IN_DEPTH),
        .BANKS(PE)
    ) port0 (
        .clk(clk),
        .we(in_we[gi]),
        .waddr(in_waddr[gi]),
        .wcount(in_wcount[gi]),
        .wdata(in_wdata[gi]),
        .raddr(in_raddr0),
        .rdata(in_rdata0[gi])
    );
    if (INT8_PAIRS != 0) begin : g_second_port
      fpgacnn_banked_ram #(
          .WIDTH(16),
          .DEPTH(IN_DEPTH),
          .BANKS(PE)
      ) port1 (
          .clk(clk),
          .we(in_we[gi]),
          .waddr(in_waddr[gi]),
          .wcount(in_wcount[gi]),
          .wdata(in_wdata[gi]),
          .raddr(in_raddr1),
          .rdata(in_rdata1[gi])
      );
    end else begin : g_no_second_port
      logic unused_second_address;  // no pair mode: the second column is never read
      assign unused_second_address = &{1'b0, in_raddr1};
      assign in_rdata1[gi] = 16'd0;
    end
  end
  for (gi = 0; gi < LANES; gi++) begin : g_weight_lanes
    fpgacnn_ram #(
        .WIDTH(16),
        .DEPTH(W_DEPTH)
    ) lane (
        .clk(clk),
        .we(w_we[gi]),
        .waddr(w_waddr[gi]),
        .wdata(w_wdata[gi]),
        .raddr(w_raddr),
        .rdata(w_rdata[16*gi+:16])
    );
  end
  for (gi = 0; gi < TM; gi++) begin : g_acc_lanes
    for (gb = 0; gb < 2; gb++) begin : g_banks
      fpgacnn_ram #(
          .WIDTH(32),
          .DEPTH(ACC_DEPTH)
      ) even (
          .clk(clk),
          .we(acc_we0 && c_acc_bank == gb[0]),
          .waddr(acc_waddr),
          .wdata(acc_wdata0[gi]),
          .raddr(acc_raddr[gb]),
          .rdata(acc_rdata[gi][gb][0])
      );
      fpgacnn_ram #(
          .WIDTH(32),
          .DEPTH(ACC_DEPTH)
      ) odd (
          .clk(clk),
          .we(acc_we1 && c_acc_bank == gb[0]),
          .waddr(acc_waddr),
          .wdata(acc_wdata1[gi]),
          .raddr(acc_raddr[gb]),
          .rdata(acc_rdata[gi][gb][1])
      );
    end
  end

  // ---------------------------------------------------------------- per-command values
  logic is_pool;
  assign is_pool = op == OP_MAXPOOL;
  logic [31:0] map_step;  // output maps per map group: TM (conv) or PL (maxpool)
  logic [31:0] block_words;  // parameter words of one weight block
  logic [31:0] block_elements;  // weights of one block
  logic [31:0] s_cols;  // s * IN_COLS: one output row further in the input buffer
  logic [31:0] in_plane, out_plane, in_step, out_step, tr_s_inw, tr_outw, pad_inw;
  logic [31:0] tr_s, tc_s;  // tile_rows * s, tile_cols * s
  always_comb begin
    block_elements = 32'(LANES);
    s_cols = 32'(IN_COLS);
    for (int i = 2; i <= MAX_K; i++) if (k == 32'(i)) block_elements = 32'(LANES * i * i);
    for (int i = 2; i <= MAX_S; i++) if (s == 32'(i)) s_cols = 32'(IN_COLS * i);
  end

  // The per-command products, one after another through one serial multiplier.
  logic mul_start, mul_busy;
  logic [31:0] mul_a, mul_product;
  logic [15:0] mul_b;
  fpgacnn_serial_mul multiplier (
      .clk(clk),
      .rst(rst),
      .start(mul_start),
      .a(mul_a),
      .b(mul_b),
      .busy(mul_busy),
      .product(mul_product)
  );

  // ---------------------------------------------------------------- sequencer and loader
  typedef enum logic [4:0] {
    S_IDLE,
    S_CHECK,
    S_SETUP,
    S_SETUP_WAIT,
    S_TILE,
    S_TILE2,
    S_TILE3,
    S_MAP,
    S_GROUP,
    S_WAIT_BANK,
    S_BIAS,
    S_LOAD,
    S_LOAD_WAIT,
    S_HANDOFF,
    S_NEXT,
    S_FINISH,
    S_REORG_SETUP,
    S_REORG,
    S_IDENTIFY,
    S_ELEMENTWISE,
    S_DRAIN,
    S_DONE
  } state_t;
  state_t state;
  logic [2:0] setup_step;
  logic [31:0] rg_hsws;  // reorg: in_h * s * in_w * s

  // Loop state of the loader (the job it loads).
  logic [31:0] row0, col0, row0_s, row0_s_inw, col0_s, out_row_base;
  logic [31:0] rows, cols, win_rows, win_cols;
  logic signed [31:0] first_row, first_col, col_begin, col_end;
  logic [31:0] row_len;  // elements of one input row inside the tensor
  logic [31:0] tile_in_off;  // first_row * in_w + col_begin (wrapping, as the C++'s uint32)
  logic [31:0] dest_col;  // col_begin - first_col
  logic [31:0] map0, out_map_off, map_chan;  // map group: first map, its output offset, its input maps
  logic [31:0] group_map, chan_base;  // input group: first input map, its offset
  logic [31:0] valid_maps, store_maps;
  logic last_group, first_group;
  logic [31:0] w_ptr;  // parameter word of the next weight block
  logic [31:0] jobs_loaded, jobs_computed, groups_loaded, groups_stored;
  logic bank;  // input / weight bank of the job being loaded: jobs_loaded % 2
  logic map_bank;  // bias / accumulator bank of the map group being loaded

  // The job handed to compute (one register: the loader is at most one job ahead).
  logic jd_valid, jd_take;
  logic [31:0] jd_rows, jd_cols, jd_valid_maps, jd_store_off, jd_store_maps, jd_group;
  logic signed [31:0] jd_first_row, jd_first_col;
  logic jd_first, jd_last, jd_bank, jd_map_bank;

  logic load_start, load_busy;
  logic reorg_start, reorg_busy;
  logic ew_start, ew_busy;
  logic ident_start, ident_busy;
  logic compute_idle, store_idle, sd_valid;
  logic [4:0] inflight;
  assign busy = state != S_IDLE;

  always_ff @(posedge clk) begin
    if (rst) begin
      state <= S_IDLE;
      setup_step <= '0;
      done <= 1'b0;
      check_start <= 1'b0;
      load_start <= 1'b0;
      reorg_start <= 1'b0;
      ew_start <= 1'b0;
      ident_start <= 1'b0;
      mul_start <= 1'b0;
      mul_a <= '0;
      mul_b <= '0;
      {op, in_off, out_off, w_off, b_off, err_off, in_c, in_h, in_w, out_c, out_h, out_w, k, s, pad} <= '0;
      {bias_shift, output_shift, tile_rows, tile_cols} <= '0;
      {leaky, relu, out_narrow, w_narrow, in_narrow, pair} <= '0;
      {base_fm_read, base_fm_write, base_params, base_fm8_read, base_fm8_write} <= '0;
      {map_step, block_words, in_plane, out_plane, in_step, out_step, tr_s_inw, tr_outw, pad_inw} <= '0;
      {tr_s, tc_s, rg_hsws} <= '0;
      {row0, col0, row0_s, row0_s_inw, col0_s, out_row_base, rows, cols, win_rows, win_cols} <= '0;
      {first_row, first_col, col_begin, col_end, row_len, tile_in_off, dest_col} <= '0;
      {map0, out_map_off, map_chan, group_map, chan_base, valid_maps, store_maps, w_ptr} <= '0;
      {jobs_loaded, groups_loaded} <= '0;
      {last_group, first_group, bank, map_bank} <= '0;
      jd_valid <= 1'b0;
      {jd_rows, jd_cols, jd_valid_maps, jd_store_off, jd_store_maps, jd_group} <= '0;
      {jd_first_row, jd_first_col} <= '0;
      {jd_first, jd_last, jd_bank, jd_map_bank} <= '0;
    end else begin
      done <= 1'b0;
      check_start <= 1'b0;
      load_start <= 1'b0;
      reorg_start <= 1'b0;
      ew_start <= 1'b0;
      ident_start <= 1'b0;
      mul_start <= 1'b0;
      if (jd_take) jd_valid <= 1'b0;
      case (state)
        S_IDLE:
        if (start) begin
          op <= command[32*fpgacnn_contract_pkg::CMD_OP+:32];
          in_off <= command[32*fpgacnn_contract_pkg::CMD_INPUT_OFFSET+:32];
          out_off <= command[32*fpgacnn_contract_pkg::CMD_OUTPUT_OFFSET+:32];
          w_off <= command[32*fpgacnn_contract_pkg::CMD_WEIGHT_OFFSET+:32];
          b_off <= command[32*fpgacnn_contract_pkg::CMD_BIAS_OFFSET+:32];
          err_off <= command[32*fpgacnn_contract_pkg::CMD_ERROR_OFFSET+:32];
          in_c <= command[32*fpgacnn_contract_pkg::CMD_IN_C+:32];
          in_h <= command[32*fpgacnn_contract_pkg::CMD_IN_H+:32];
          in_w <= command[32*fpgacnn_contract_pkg::CMD_IN_W+:32];
          out_c <= command[32*fpgacnn_contract_pkg::CMD_OUT_C+:32];
          out_h <= command[32*fpgacnn_contract_pkg::CMD_OUT_H+:32];
          out_w <= command[32*fpgacnn_contract_pkg::CMD_OUT_W+:32];
          k <= command[32*fpgacnn_contract_pkg::CMD_KERNEL_SIZE+:32];
          s <= command[32*fpgacnn_contract_pkg::CMD_STRIDE+:32];
          pad <= command[32*fpgacnn_contract_pkg::CMD_PAD+:32];
          leaky <= command[32*fpgacnn_contract_pkg::CMD_LEAKY+:32] == 32'(fpgacnn_contract_pkg::ACTIVATION_LEAKY);
          relu <= command[32*fpgacnn_contract_pkg::CMD_LEAKY+:32] == 32'(fpgacnn_contract_pkg::ACTIVATION_RELU);
          bias_shift <= command[32*fpgacnn_contract_pkg::CMD_BIAS_SHIFT+:32];
          output_shift <= command[32*fpgacnn_contract_pkg::CMD_OUTPUT_SHIFT+:32];
          tile_rows <= command[32*fpgacnn_contract_pkg::CMD_TILE_ROWS+:32];
          tile_cols <= command[32*fpgacnn_contract_pkg::CMD_TILE_COLS+:32];
          out_narrow <= command[32*fpgacnn_contract_pkg::CMD_OUTPUT_BITS+:32] == NARROW;
          w_narrow <= command[32*fpgacnn_contract_pkg::CMD_WEIGHT_BITS+:32] == NARROW;
          in_narrow <= command[32*fpgacnn_contract_pkg::CMD_INPUT_BITS+:32] == NARROW;
          pair <= INT8_PAIRS != 0 && command[32*fpgacnn_contract_pkg::CMD_OP+:32] == OP_CONV &&
              command[32*fpgacnn_contract_pkg::CMD_WEIGHT_BITS+:32] == NARROW &&
              command[32*fpgacnn_contract_pkg::CMD_INPUT_BITS+:32] == NARROW;
          base_fm_read <= ADDR_BITS'(pointers[64*fpgacnn_contract_pkg::PTR_FM_READ+:64]);
          base_fm_write <= ADDR_BITS'(pointers[64*fpgacnn_contract_pkg::PTR_FM_WRITE+:64]);
          base_params <= ADDR_BITS'(pointers[64*fpgacnn_contract_pkg::PTR_PARAMS+:64]);
          base_fm8_read <= ADDR_BITS'(pointers[64*fpgacnn_contract_pkg::PTR_FM8_READ+:64]);
          base_fm8_write <= ADDR_BITS'(pointers[64*fpgacnn_contract_pkg::PTR_FM8_WRITE+:64]);
          check_start <= 1'b1;
          state <= S_CHECK;
        end
        S_CHECK:
        if (check_done) begin
          if (!check_ok) state <= S_DONE;
          else if (op == OP_REORG) begin
            mul_start <= 1'b1;
            mul_a <= mul_small(in_w, s);
            mul_b <= 16'(mul_small(in_h, s));
            state <= S_REORG_SETUP;
          end else if (op == OP_UPSAMPLE || op == OP_SHORTCUT) begin
            ew_start <= 1'b1;
            state <= S_ELEMENTWISE;
          end else if (op != OP_CONV && op != OP_MAXPOOL) begin
            ident_start <= 1'b1;
            state <= S_IDENTIFY;
          end else begin
            map_step <= is_pool ? 32'(PL) : 32'(TM);
            block_words <= w_narrow ? (block_elements + 1) >> 1 : block_elements;
            tr_s <= mul_small(tile_rows, s);
            tc_s <= mul_small(tile_cols, s);
            pad_inw <= mul_small(in_w, pad);
            setup_step <= '0;
            state <= S_SETUP;
          end
        end
        // Products of the command, each through the serial multiplier (the operands fit 16 bits:
        // dimensions <= MAX_DIMENSION, maps <= TM).
        S_SETUP: begin
          mul_start <= 1'b1;
          case (setup_step)
            3'd0: {mul_a, mul_b} <= {in_h, 16'(in_w)};
            3'd1: {mul_a, mul_b} <= {out_h, 16'(out_w)};
            3'd2: {mul_a, mul_b} <= {in_plane, 16'(is_pool ? PL : TN)};
            3'd3: {mul_a, mul_b} <= {out_plane, 16'(map_step)};
            3'd4: {mul_a, mul_b} <= {in_w, 16'(tr_s)};
            default: {mul_a, mul_b} <= {out_w, 16'(tile_rows)};
          endcase
          state <= S_SETUP_WAIT;
        end
        S_SETUP_WAIT:
        if (!mul_start && !mul_busy) begin
          case (setup_step)
            3'd0: in_plane <= mul_product;
            3'd1: out_plane <= mul_product;
            3'd2: in_step <= mul_product;
            3'd3: out_step <= mul_product;
            3'd4: tr_s_inw <= mul_product;
            default: tr_outw <= mul_product;
          endcase
          if (setup_step == 3'd5) begin
            {row0, row0_s, row0_s_inw, col0, col0_s} <= '0;
            out_row_base <= out_off;
            {jobs_loaded, groups_loaded, bank, map_bank} <= '0;
            w_ptr <= w_off;
            state <= S_TILE;
          end else begin
            setup_step <= setup_step + 1'b1;
            state <= S_SETUP;
          end
        end
        // A new output tile at (row0, col0).
        S_TILE: begin
          rows <= tile_rows < out_h - row0 ? tile_rows : out_h - row0;
          cols <= tile_cols < out_w - col0 ? tile_cols : out_w - col0;
          first_row <= $signed(row0_s) - $signed(pad);
          first_col <= $signed(col0_s) - $signed(pad);
          state <= S_TILE2;
        end
        S_TILE2: begin
          win_rows <= mul_small(rows - 1, s) + k;
          win_cols <= mul_small(cols - 1, s) + k;
          col_begin <= first_col > 0 ? first_col : 0;
          state <= S_TILE3;
        end
        S_TILE3: begin
          col_end <= first_col + $signed(win_cols) < $signed(in_w) ? first_col + $signed(win_cols) : $signed(in_w);
          tile_in_off <= row0_s_inw - pad_inw + col_begin;
          dest_col <= col_begin - first_col;
          map0 <= 0;
          out_map_off <= 0;
          map_chan <= in_off;
          w_ptr <= w_off;
          state <= S_MAP;
        end
        // A new output-map group at map0.
        S_MAP: begin
          row_len <= col_end > col_begin ? col_end - col_begin : 0;
          store_maps <= map_step < out_c - map0 ? map_step : out_c - map0;
          group_map <= 0;
          chan_base <= map_chan;
          first_group <= 1'b1;
          state <= S_GROUP;
        end
        // A new job: input-map group at group_map (maxpool: the map group's own maps).
        S_GROUP: begin
          if (is_pool) begin
            valid_maps <= map_step < out_c - map0 ? map_step : out_c - map0;
            last_group <= 1'b1;
          end else begin
            valid_maps <= 32'(TN) < in_c - group_map ? 32'(TN) : in_c - group_map;
            last_group <= group_map + 32'(TN) >= in_c;
          end
          state <= S_WAIT_BANK;
        end
        // The job's input and weight bank is free once compute finished the job before the last.
        S_WAIT_BANK:
        if (jobs_loaded <= jobs_computed + 1) begin
          state <= !is_pool && first_group ? S_BIAS : S_LOAD;
        end
        S_BIAS: if (par_cmd_valid && par_cmd_ready) state <= S_LOAD;
        S_LOAD: begin
          load_start <= 1'b1;
          state <= S_LOAD_WAIT;
        end
        S_LOAD_WAIT: if (!load_start && !load_busy) state <= S_HANDOFF;
        S_HANDOFF:
        if (!jd_valid) begin
          jd_valid <= 1'b1;
          jd_rows <= rows;
          jd_cols <= cols;
          jd_first_row <= first_row;
          jd_first_col <= first_col;
          jd_valid_maps <= valid_maps;
          jd_first <= first_group;
          jd_last <= last_group;
          jd_bank <= bank;
          jd_map_bank <= map_bank;
          jd_group <= groups_loaded;
          jd_store_off <= out_row_base + col0 + out_map_off;
          jd_store_maps <= store_maps;
          jobs_loaded <= jobs_loaded + 1;
          bank <= !bank;
          if (!is_pool) w_ptr <= w_ptr + block_words;
          state <= S_NEXT;
        end
        S_NEXT: begin
          if (!last_group) begin
            group_map <= group_map + 32'(TN);
            chan_base <= chan_base + in_step;
            first_group <= 1'b0;
            state <= S_GROUP;
          end else begin
            groups_loaded <= groups_loaded + 1;
            map_bank <= !map_bank;
            if (map0 + map_step < out_c) begin
              map0 <= map0 + map_step;
              out_map_off <= out_map_off + out_step;
              if (is_pool) map_chan <= map_chan + in_step;  // conv: every map group reads all inputs
              state <= S_MAP;
            end else if (col0 + tile_cols < out_w) begin
              col0 <= col0 + tile_cols;
              col0_s <= col0_s + tc_s;
              state <= S_TILE;
            end else if (row0 + tile_rows < out_h) begin
              row0 <= row0 + tile_rows;
              row0_s <= row0_s + tr_s;
              row0_s_inw <= row0_s_inw + tr_s_inw;
              out_row_base <= out_row_base + tr_outw;
              col0 <= 0;
              col0_s <= 0;
              state <= S_TILE;
            end else state <= S_FINISH;
          end
        end
        S_FINISH: if (!jd_valid && compute_idle && !sd_valid && store_idle) state <= S_DRAIN;
        S_REORG_SETUP:
        if (!mul_start && !mul_busy) begin
          rg_hsws <= mul_product;
          reorg_start <= 1'b1;
          state <= S_REORG;
        end
        S_REORG: if (!reorg_start && !reorg_busy) state <= S_DRAIN;
        S_IDENTIFY: if (!ident_start && !ident_busy) state <= S_DRAIN;
        S_ELEMENTWISE: if (!ew_start && !ew_busy) state <= S_DRAIN;
        S_DRAIN: if (inflight == 0 && wr_idle && wr8_idle && fm_idle && fm8_idle && par_idle) state <= S_DONE;
        S_DONE: begin
          done <= 1'b1;
          state <= S_IDLE;
        end
        default: state <= S_IDLE;
      endcase
    end
  end

  // ---------------------------------------------------------------- loader: reads of one job
  // One read per input map row inside the tensor and, on the parameter master at the same time, the
  // weight block (conv); busy until every beat has landed. The bias of a map group is read in S_BIAS through the same parameter reader.
  logic [31:0] ld_n, ld_r, ld_lane_off, ld_row_off;
  logic [IN_AW-1:0] ld_dest, ld_dest_row0;
  logic signed [31:0] ld_y;
  logic ld_rows_active, ld_weights_pending;
  logic ld_row_inside;
  assign ld_row_inside = ld_y >= 0 && ld_y < $signed(in_h) && row_len != 0;
  assign ld_dest_row0 = IN_AW'(bank ? IN_SIZE : 0) + IN_AW'(dest_col);

  logic fm_cmd_fire;
  assign fm_cmd_fire = (fm_cmd_valid && fm_cmd_ready) || (fm8_cmd_valid && fm8_cmd_ready);

  // Reorg drives the feature-map readers too (its line buffer is input lane 0), and so do upsample and
  // shortcut (lanes 0 and 1; each read at its tensor's own width).
  logic reorg_read_valid;
  logic [31:0] reorg_read_off, reorg_read_beats;
  logic ew_read_valid, ew_read_narrow, ew_read_lane;
  logic [31:0] ew_read_off, ew_read_beats;

  always_comb begin
    fm_cmd_valid = 1'b0;
    fm8_cmd_valid = 1'b0;
    fm_cmd_addr = '0;
    fm_cmd_beats = '0;
    fm_cmd_tag = '0;
    if (ld_rows_active && ld_row_inside) begin
      fm_cmd_valid = !in_narrow;
      fm8_cmd_valid = in_narrow;
      fm_cmd_addr = in_narrow ? base_fm8_read + ADDR_BITS'(ld_row_off) :
          base_fm_read + (ADDR_BITS'(ld_row_off) << 1);
      fm_cmd_beats = 16'(row_len);
      fm_cmd_tag = {8'(ld_n), 16'(ld_dest)};
    end else if (reorg_read_valid) begin
      fm_cmd_valid = !in_narrow;
      fm8_cmd_valid = in_narrow;
      fm_cmd_addr = in_narrow ? base_fm8_read + ADDR_BITS'(reorg_read_off) :
          base_fm_read + (ADDR_BITS'(reorg_read_off) << 1);
      fm_cmd_beats = 16'(reorg_read_beats);
      fm_cmd_tag = '0;
    end else if (ew_read_valid) begin
      fm_cmd_valid = !ew_read_narrow;
      fm8_cmd_valid = ew_read_narrow;
      fm_cmd_addr = ew_read_narrow ? base_fm8_read + ADDR_BITS'(ew_read_off) :
          base_fm_read + (ADDR_BITS'(ew_read_off) << 1);
      fm_cmd_beats = 16'(ew_read_beats);
      fm_cmd_tag = {8'(ew_read_lane), 16'd0};
    end
  end

  logic [31:0] bias_word;  // uint32 arithmetic, as the C++ index
  assign bias_word = b_off + map0;

  // Parameter reads: the bias of a map group (S_BIAS) or a weight block (loader).
  always_comb begin
    par_cmd_valid = 1'b0;
    par_cmd_addr = '0;
    par_cmd_beats = '0;
    par_cmd_tag = '0;
    if (state == S_BIAS) begin
      par_cmd_valid = 1'b1;
      par_cmd_addr = base_params + (ADDR_BITS'(bias_word) << 1);
      par_cmd_beats = 16'(TM);
      par_cmd_tag = {1'b0, map_bank};
    end else if (ld_weights_pending) begin  // on its own master: in parallel with the input rows
      par_cmd_valid = 1'b1;
      par_cmd_addr = base_params + (ADDR_BITS'(w_ptr) << 1);
      par_cmd_beats = 16'(block_words);
      par_cmd_tag = {1'b1, bank};
    end
  end

  assign load_busy = ld_rows_active || ld_weights_pending || !fm_idle || !fm8_idle || !par_idle;

  always_ff @(posedge clk) begin
    if (rst) begin
      ld_rows_active <= 1'b0;
      ld_weights_pending <= 1'b0;
      ld_n <= '0;
      ld_r <= '0;
      ld_lane_off <= '0;
      ld_row_off <= '0;
      ld_dest <= '0;
      ld_y <= '0;
    end else if (load_start) begin
      ld_rows_active <= valid_maps != 0;
      ld_weights_pending <= !is_pool;
      ld_n <= 0;
      ld_r <= 0;
      ld_lane_off <= chan_base;
      ld_row_off <= chan_base + tile_in_off;
      ld_dest <= ld_dest_row0;
      ld_y <= first_row;
    end else begin
      if (ld_rows_active && (!ld_row_inside || fm_cmd_fire)) begin
        if (ld_r + 1 == win_rows) begin
          ld_r <= 0;
          ld_n <= ld_n + 1;
          ld_lane_off <= ld_lane_off + in_plane;
          ld_row_off <= ld_lane_off + in_plane + tile_in_off;
          ld_dest <= ld_dest_row0;
          ld_y <= first_row;
          if (ld_n + 1 == valid_maps) ld_rows_active <= 1'b0;
        end else begin
          ld_r <= ld_r + 1;
          ld_row_off <= ld_row_off + in_w;
          ld_dest <= ld_dest + IN_AW'(IN_COLS);
          ld_y <= ld_y + 1;
        end
      end
      if (ld_weights_pending && par_cmd_valid && par_cmd_ready && state != S_BIAS)
        ld_weights_pending <= 1'b0;
    end
  end

  // Beats landing: a run of up to PE elements of a feature-map row into its input lane (8-bit values
  // sign-extended).
  logic [PE*16-1:0] fm8_beat_wide;
  always_comb begin
    for (int j = 0; j < PE; j++) fm8_beat_wide[16*j+:16] = {{8{fm8_beat_data[8*j+7]}}, fm8_beat_data[8*j+:8]};
  end
  always_comb begin
    for (int n = 0; n < TN; n++) begin
      in_we[n] = 1'b0;
      in_waddr[n] = '0;
      in_wdata[n] = '0;
      in_wcount[n] = '0;
      if (fm_beat_valid && fm_beat_tag[23:16] == 8'(n)) begin
        in_we[n] = 1'b1;
        in_waddr[n] = IN_AW'(fm_beat_tag[15:0]) + IN_AW'(fm_beat_index);
        in_wdata[n] = fm_beat_data;
        in_wcount[n] = fm_beat_count;
      end else if (fm8_beat_valid && fm8_beat_tag[23:16] == 8'(n)) begin
        in_we[n] = 1'b1;
        in_waddr[n] = IN_AW'(fm8_beat_tag[15:0]) + IN_AW'(fm8_beat_index);
        in_wdata[n] = fm8_beat_wide;
        in_wcount[n] = fm8_beat_count;
      end
    end
  end

  // Parameter beats: the bias (aligned to the accumulator's exponent) or the weight block, whose
  // element e goes to (tap e / LANES, lane e % LANES). A beat carries a run of up to PE words: PE
  // weights, or 2 * PE at 8 bits (two per word, the low byte first). wl_tap / wl_lane hold the place
  // of the beat's first element; lane l takes element (l - wl_lane) mod LANES of the run, one tap
  // further when it wraps (a run is never longer than LANES: 2 * PE <= Tm * Tn).
  // Area (the wide-port LUTs): the run is rotated once, element j to place (wl_lane + j) mod PW, so
  // lane l finds its element at the fixed place l mod PW, or (l + LANES) mod PW when it wraps, and
  // only lanes l < PW - 1 can wrap (the run ends before wl_lane + PW <= LANES + PW - 1). Each lane
  // is then two compares of constants with wl_lane and wl_end instead of a subtraction and a PW:1
  // multiplexer of 16-bit values (23 LUTs a lane and beat element at Tm=32 Tn=6, 64-bit ports).
  // Timing (the 150 MHz path): the place is kept in counters of $clog2 width, reset when the loader
  // issues the block's read (no beat-index compare on the beat's path), and the block's end is a
  // flag registered a beat ahead (wl_last_tap): the only element a run can carry past the block is the
  // pad byte of an odd 8-bit block, and it would land on the tap after the last one.
  localparam int PW = 2 * PE;  // weights a beat at most
  localparam int LB = $clog2(LANES + 1);  // bits of a lane position (0 .. LANES)
  localparam int TB = $clog2(TAPS + 1);  // bits of a tap
  // Two banks of Tm biases as plain registers (one bank per accumulator bank), each lane reading
  // its own word: no memory with Tm read ports for yosys to map.
  logic [TM*32-1:0] bias_q0, bias_q1;
  logic [TB-1:0] wl_tap, wl_tap_next;  // tap of the beat's first element, and the one after it
  logic [LB-1:0] wl_lane;  // lane of the beat's first element
  logic wl_last_tap;  // wl_tap is the block's last tap (K^2 - 1)
  logic [TB-1:0] wl_taps_last;  // K^2 - 1 of the command
  logic [LB:0] wl_run, wl_end;
  logic wl_block_start;  // the loader issues a weight block's read: its place starts at (0, 0)
  localparam int PWB = $clog2(PW);
  logic [15:0] wl_value[PW];  // the beat's weights, sign-extended
  logic [15:0] wl_rot[PW];  // the same rotated: element j at (wl_lane + j) mod PW
  logic wl_wraps[LANES];  // lane l takes its element of the run from the next tap
  logic [W_AW-1:0] wl_addr, wl_addr_next;  // the tap's word in the bank being filled, and the next tap's
  assign wl_block_start = ld_weights_pending && par_cmd_valid && par_cmd_ready && state != S_BIAS;
  always_comb begin
    // Weights in this beat: its words, or two per word (an odd block's pad byte is dropped by tap).
    wl_run = w_narrow ? (LB + 1)'(par_beat_count) << 1 : (LB + 1)'(par_beat_count);
    wl_end = {1'b0, wl_lane} + wl_run;
    for (int j = 0; j < PW; j++) begin
      if (w_narrow) wl_value[j] = {{8{par_beat_data[8*j+7]}}, par_beat_data[8*j+:8]};
      else if (j < PE) wl_value[j] = par_beat_data[16*j+:16];
      else wl_value[j] = 16'd0;
    end
    for (int p = 0; p < PW; p++) wl_rot[p] = wl_value[PWB'(p) - PWB'(wl_lane)];
    wl_addr = W_AW'(par_beat_tag[0] ? TAPS : 0) + W_AW'(wl_tap);
    wl_addr_next = W_AW'(par_beat_tag[0] ? TAPS : 0) + W_AW'(wl_tap_next);
    for (int l = 0; l < LANES; l++) begin
      // l + LANES < wl_end implies l < wl_lane (a run is at most LANES long).
      wl_wraps[l] = l < PW - 1 && (LB + 1)'(l + LANES) < wl_end;
      w_we[l] = par_beat_valid && par_beat_tag[1] &&
          ((LB'(l) >= wl_lane && (LB + 1)'(l) < wl_end) || (wl_wraps[l] && !wl_last_tap));
      w_waddr[l] = wl_wraps[l] ? wl_addr_next : wl_addr;
      w_wdata[l] = wl_wraps[l] ? wl_rot[(l + LANES) % PW] : wl_rot[l % PW];
    end
  end

  always_ff @(posedge clk) begin
    // k is set when the command is taken and read here long after (the per-command products run
    // first), so a register of K^2 - 1 keeps the multiply off the beat's path.
    wl_taps_last <= TB'(8'(k[3:0]) * 8'(k[3:0]) - 8'd1);
    if (wl_block_start) begin
      wl_tap <= '0;
      wl_tap_next <= TB'(1);
      wl_lane <= '0;
      wl_last_tap <= wl_taps_last == 0;
    end else if (par_beat_valid && par_beat_tag[1] && wl_end >= (LB + 1)'(LANES)) begin
      wl_tap <= wl_tap_next;
      wl_tap_next <= wl_tap_next + 1'b1;
      wl_lane <= LB'(wl_end - (LB + 1)'(LANES));
      wl_last_tap <= wl_tap_next == wl_taps_last;
    end else if (par_beat_valid && par_beat_tag[1]) begin
      wl_lane <= LB'(wl_end);
    end
    if (par_beat_valid && !par_beat_tag[1]) begin
      for (int m = 0; m < TM; m++) begin
        for (int j = 0; j < PE; j++) begin
          if (32'(par_beat_index) + 32'(j) == 32'(m) && j < 32'(par_beat_count)) begin
            if (!par_beat_tag[0])
              bias_q0[32*m+:32] <= {{16{par_beat_data[16*j+15]}}, par_beat_data[16*j+:16]} << bias_shift[4:0];
            else
              bias_q1[32*m+:32] <= {{16{par_beat_data[16*j+15]}}, par_beat_data[16*j+:16]} << bias_shift[4:0];
          end
        end
      end
    end
  end

  // ---------------------------------------------------------------- compute
  // A job starts when it is loaded and, for the first input group of a map group, when its
  // accumulator bank has been stored (map group m - 2 done). Iterations: for each tap (ky, kx), each
  // tile row r, each column c (two in pair mode):
  //   G:  counters -> buffer addresses and padding masks (registered: S0)
  //   S0: input / weight buffers read -> S1
  //   S1: padding substituted, multipliers -> S2 (products)
  //   S2: adder trees -> S3 (sums); accumulators read
  //   S3: accumulate (or bias / max), accumulators written; a read of the address S3 writes in the
  //       same cycle is forwarded, so taps of one-pixel tiles follow each other without bubbles.
  logic c_busy;
  logic [31:0] c_rows, c_cols, c_valid_maps, c_store_off, c_store_maps;
  logic signed [31:0] c_first_row, c_first_col;
  logic c_first, c_last, c_bank;
  logic g_active;
  logic [31:0] g_r, g_c, g_ky, g_kx, g_tap, g_rs, g_cs, g_rowa, g_kya, g_acc_row;
  logic pipe_busy;
  logic sd_take;
  logic [31:0] sd_rows, sd_cols, sd_store_off, sd_store_maps;
  logic sd_bank;
  logic [31:0] c_step_s;  // columns an iteration advances, times s
  assign c_step_s = pair ? s << 1 : s;

  assign jd_take = jd_valid && !c_busy && (!jd_first || jd_group <= groups_stored + 1);
  assign compute_idle = !c_busy;

  always_ff @(posedge clk) begin
    if (rst) begin
      c_busy <= 1'b0;
      {c_rows, c_cols, c_valid_maps, c_store_off, c_store_maps, c_first_row, c_first_col} <= '0;
      {c_first, c_last, c_bank, c_acc_bank} <= '0;
      g_active <= 1'b0;
      {g_r, g_c, g_ky, g_kx, g_tap, g_rs, g_cs, g_rowa, g_kya, g_acc_row} <= '0;
      jobs_computed <= '0;
      sd_valid <= 1'b0;
      {sd_rows, sd_cols, sd_store_off, sd_store_maps, sd_bank} <= '0;
    end else begin
      if (sd_take) sd_valid <= 1'b0;
      if (state == S_CHECK) jobs_computed <= '0;
      if (jd_take) begin
        c_busy <= 1'b1;
        c_rows <= jd_rows;
        c_cols <= jd_cols;
        c_first_row <= jd_first_row;
        c_first_col <= jd_first_col;
        c_valid_maps <= jd_valid_maps;
        c_first <= jd_first;
        c_last <= jd_last;
        c_bank <= jd_bank;
        c_acc_bank <= jd_map_bank;
        c_store_off <= jd_store_off;
        c_store_maps <= jd_store_maps;
        g_active <= 1'b1;
        {g_r, g_c, g_ky, g_kx, g_tap, g_rs, g_cs, g_rowa, g_kya, g_acc_row} <= '0;
      end else if (g_active) begin
        if (g_c + (pair ? 2 : 1) < c_cols) begin
          g_c <= g_c + (pair ? 2 : 1);
          g_cs <= g_cs + c_step_s;
        end else begin
          g_c <= 0;
          g_cs <= 0;
          if (g_r + 1 < c_rows) begin
            g_r <= g_r + 1;
            g_rs <= g_rs + s;
            g_rowa <= g_rowa + s_cols;
            g_acc_row <= g_acc_row + 32'(TCH);
          end else begin
            g_r <= 0;
            g_rs <= 0;
            g_acc_row <= 0;
            g_tap <= g_tap + 1;
            if (g_kx + 1 < k) begin
              g_kx <= g_kx + 1;
              g_rowa <= g_kya;
            end else begin
              g_kx <= 0;
              g_kya <= g_kya + 32'(IN_COLS);
              g_rowa <= g_kya + 32'(IN_COLS);
              if (g_ky + 1 < k) g_ky <= g_ky + 1;
              else g_active <= 1'b0;
            end
          end
        end
      end else if (c_busy && !pipe_busy) begin
        // The job's last iteration has left the pipeline: hand a finished map group to the store.
        if (!c_last) begin
          c_busy <= 1'b0;
          jobs_computed <= jobs_computed + 1;
        end else if (!sd_valid) begin
          c_busy <= 1'b0;
          jobs_computed <= jobs_computed + 1;
          sd_valid <= 1'b1;
          sd_rows <= c_rows;
          sd_cols <= c_cols;
          sd_store_off <= c_store_off;
          sd_store_maps <= c_store_maps;
          sd_bank <= c_acc_bank;
        end
      end
    end
  end

  logic [31:0] g_in_col;
  logic signed [31:0] g_ty, g_tx0, g_tx1;
  logic g_row_ok, g_ok0, g_ok1, g_second;
  always_comb begin
    g_in_col = g_cs + g_kx;
    g_ty = c_first_row + $signed(g_rs + g_ky);
    g_tx0 = c_first_col + $signed(g_in_col);
    g_tx1 = g_tx0 + $signed(s);
    g_second = pair && g_c + 1 < c_cols;
    g_row_ok = g_ty >= 0 && g_ty < $signed(in_h);
    g_ok0 = g_row_ok && g_tx0 >= 0 && g_tx0 < $signed(in_w);
    g_ok1 = g_row_ok && g_second && g_tx1 >= 0 && g_tx1 < $signed(in_w);
  end

  logic s0_v, s1_v, s2_v, s3_v;
  logic [IN_AW-1:0] s0_addr0, s0_addr1;
  logic [W_AW-1:0] s0_wtap;
  logic s0_ok0, s1_ok0, s0_ok1, s1_ok1;
  logic s0_second, s1_second, s2_second, s3_second;
  logic [ACC_AW-1:0] s0_acc, s1_acc, s2_acc, s3_acc;
  logic s0_odd, s1_odd, s2_odd, s3_odd;
  logic s0_first, s1_first, s2_first, s3_first;

  always_ff @(posedge clk) begin
    if (rst) {s0_v, s1_v, s2_v, s3_v} <= '0;
    else {s0_v, s1_v, s2_v, s3_v} <= {g_active, s0_v, s1_v, s2_v};
  end
  assign pipe_busy = s0_v || s1_v || s2_v || s3_v;

  always_ff @(posedge clk) begin
    s0_addr0 <= IN_AW'(c_bank ? IN_SIZE : 0) + IN_AW'(g_rowa + g_in_col);
    s0_addr1 <= IN_AW'(c_bank ? IN_SIZE : 0) + IN_AW'(g_rowa + g_in_col + s);
    s0_wtap <= W_AW'(c_bank ? TAPS : 0) + W_AW'(g_tap);
    s0_ok0 <= g_ok0;
    s0_ok1 <= g_ok1;
    s0_second <= g_second;
    s0_acc <= ACC_AW'(g_acc_row + (g_c >> 1));
    s0_odd <= g_c[0];
    s0_first <= c_first && g_tap == 0;
    {s1_ok0, s1_ok1, s1_second, s1_acc, s1_odd, s1_first} <= {s0_ok0, s0_ok1, s0_second, s0_acc, s0_odd, s0_first};
    {s2_second, s2_acc, s2_odd, s2_first} <= {s1_second, s1_acc, s1_odd, s1_first};
    {s3_second, s3_acc, s3_odd, s3_first} <= {s2_second, s2_acc, s2_odd, s2_first};
  end

  // S1: padding (0 for conv; -32768 for maxpool so that outside taps never win) and lanes past the
  // layer's input maps (0).
  logic [TN*16-1:0] x0_lanes, x1_lanes;
  logic [15:0] fill;
  assign fill = is_pool ? 16'h8000 : 16'h0000;
  always_comb begin
    for (int n = 0; n < TN; n++) begin
      x0_lanes[16*n+:16] = 32'(n) < c_valid_maps ? (s1_ok0 ? in_rdata0[n] : fill) : 16'd0;
      x1_lanes[16*n+:16] = 32'(n) < c_valid_maps && s1_ok1 ? in_rdata1[n] : 16'd0;
    end
  end

  logic [TM*32-1:0] sum0, sum1;
  fpgacnn_mac_array #(
      .TM(TM),
      .TN(TN),
      .INT8_PAIRS(INT8_PAIRS)
  ) macs (
      .clk(clk),
      .pair(pair),
      .x0(x0_lanes),
      .x1(x1_lanes),
      .w(w_rdata),
      .sum0(sum0),
      .sum1(sum1)
  );

  // Maxpool takes the input lanes themselves, delayed like the sums.
  logic [TN*16-1:0] pool_s2, pool_s3;
  always_ff @(posedge clk) begin
    pool_s2 <= x0_lanes;
    pool_s3 <= pool_s2;
  end

  // S3: accumulate.
  logic fwd0, fwd1;
  logic [31:0] fwd_data0[TM];
  logic [31:0] fwd_data1[TM];
  logic s3_we0, s3_we1;
  assign s3_we0 = s3_v && (pair || !s3_odd);
  assign s3_we1 = s3_v && (pair ? s3_second : s3_odd);
  for (gi = 0; gi < TM; gi++) begin : g_accumulate
    logic [31:0] add0, add1, old0, old1, bias, sum_add0, sum_add1;
    assign bias = c_acc_bank ? bias_q1[32*gi+:32] : bias_q0[32*gi+:32];
    always_comb begin
      add0 = sum0[32*gi+:32];
      add1 = pair ? sum1[32*gi+:32] : add0;
      old0 = fwd0 ? fwd_data0[gi] : acc_rdata[gi][c_acc_bank][0];
      old1 = fwd1 ? fwd_data1[gi] : acc_rdata[gi][c_acc_bank][1];
      sum_add0 = (s3_first ? bias : old0) + add0;
      sum_add1 = (s3_first ? bias : old1) + add1;
    end
    // Maxpool uses the first PL lanes only (a pool map group has at most PL maps, and the store
    // reads no other lane): the comparators exist there and nowhere else.
    if (gi < PL) begin : g_pool_lane
      logic [31:0] pool_value;
      assign pool_value = {{16{pool_s3[16*gi+15]}}, pool_s3[16*gi+:16]};
      always_comb begin
        if (is_pool) begin
          acc_wdata0[gi] = s3_first || $signed(pool_value) > $signed(old0) ? pool_value : old0;
          acc_wdata1[gi] = s3_first || $signed(pool_value) > $signed(old1) ? pool_value : old1;
        end else begin
          acc_wdata0[gi] = sum_add0;
          acc_wdata1[gi] = sum_add1;
        end
      end
    end else begin : g_conv_lane
      assign acc_wdata0[gi] = sum_add0;
      assign acc_wdata1[gi] = sum_add1;
    end
  end
  assign acc_we0 = s3_we0;
  assign acc_we1 = s3_we1;
  assign acc_waddr = s3_acc;

  always_ff @(posedge clk) begin
    fwd0 <= s3_we0 && s2_v && s3_acc == s2_acc;
    fwd1 <= s3_we1 && s2_v && s3_acc == s2_acc;
    for (int m = 0; m < TM; m++) begin
      fwd_data0[m] <= acc_wdata0[m];
      fwd_data1[m] <= acc_wdata1[m];
    end
  end

  // ---------------------------------------------------------------- store, reorg and identify output
  // One output stream: element values (requantized or not) to the writer of the layer's width.
  logic st_issue;  // an element read issued this cycle
  logic [ACC_AW-1:0] st_acc_addr;
  logic [31:0] st_lane;
  logic st_odd;
  logic [IN_AW-1:0] rg_line_addr, ew_line_addr;
  logic rg_issue, ew_issue;
  logic [4:0] queue_count;
  logic credit;
  assign queue_count = out_narrow && op != 32'(fpgacnn_contract_pkg::OP_IDENTIFY) ? wr8_count : wr_count;
  assign credit = 6'(inflight) + 6'(queue_count) < 6'(WRITE_DEPTH - 1);

  logic st_active;
  assign acc_raddr[0] = st_active && !st_bank ? st_acc_addr : s2_acc;
  assign acc_raddr[1] = st_active && st_bank ? st_acc_addr : s2_acc;
  assign in_raddr0 = ew_busy ? ew_line_addr : reorg_busy ? rg_line_addr : s0_addr0;
  assign in_raddr1 = s0_addr1;
  assign w_raddr = s0_wtap;

  // Element pipeline: P1 buffer read, P2 lane select, then the requantizer. The select is decoded
  // into a one-hot register while the accumulators are read (lane, bank, parity: 4·Tm sources) and
  // P2 ORs the selected source's bits: a balanced tree of a few LUT levels behind the block RAM,
  // where a compare per lane became a chain of multiplexers 8 LUT6 + MUXF7 + MUXF8 levels deep at
  // Tm = 35 (yosys sta: 10.5 ns).
  // A shortcut's two operands are shifted to the sum's exponent here (arith::shortcut_sum: |sum| < 2^48)
  // and added in front of the requantizer; every other source is one 32-bit value, sign-extended.
  logic p1_v, p1_line, p1_shortcut, p2_v;
  logic [4*TM-1:0] p1_select;  // source 4·lane + 2·bank + parity
  logic [31:0] p2_next;  // the selected 32-bit source: an accumulator or a line value
  logic [47:0] p2_value, p2_second;
  logic [5:0] align_a, align_b;  // shortcut: the shift of a (Qa < Qb) or of b (Qb < Qa)
  logic element_issue;
  assign element_issue = st_issue || rg_issue || ew_issue;
  always_ff @(posedge clk) begin
    if (rst) begin
      p1_v <= 1'b0;
      p2_v <= 1'b0;
    end else begin
      p1_v <= element_issue;
      p2_v <= p1_v;
    end
  end
  always_ff @(posedge clk) begin
    p1_line <= rg_issue || (ew_issue && op == OP_UPSAMPLE);
    p1_shortcut <= ew_issue && op == OP_SHORTCUT;
    for (int m = 0; m < TM; m++) begin
      for (int b = 0; b < 2; b++) begin
        for (int q = 0; q < 2; q++)
          p1_select[4*m+2*b+q] <= st_issue && st_lane == 32'(m) && st_bank == 1'(b) && st_odd == 1'(q);
      end
    end
  end
  always_comb begin
    p2_next = p1_line ? {{16{in_rdata0[0][15]}}, in_rdata0[0]} : 32'd0;
    for (int m = 0; m < TM; m++) begin
      for (int b = 0; b < 2; b++) begin
        for (int q = 0; q < 2; q++) p2_next = p2_next | (acc_rdata[m][b][q] & {32{p1_select[4*m+2*b+q]}});
      end
    end
  end
  // The OR tree stays 32 bits wide (one source is selected); the sign extension and the shortcut's
  // operands come after it.
  always_ff @(posedge clk) begin
    p2_value <= p1_shortcut ? {{32{in_rdata0[0][15]}}, in_rdata0[0]} << align_a : {{16{p2_next[31]}}, p2_next};
    p2_second <= p1_shortcut ? {{32{in_rdata0[B_LANE][15]}}, in_rdata0[B_LANE]} << align_b : 48'd0;
  end

  logic rq_valid;
  logic [15:0] rq_value;
  fpgacnn_requantize requantizer (
      .clk(clk),
      .in_valid(p2_v),
      .acc(p2_value + p2_second),
      .shift(output_shift),
      .leaky(leaky && (op == OP_CONV || op == OP_SHORTCUT)),
      .relu(relu && (op == OP_CONV || op == OP_SHORTCUT)),
      .narrow(out_narrow),
      .out_valid(rq_valid),
      .value(rq_value)
  );

  logic id_push;
  logic [15:0] id_value;
  always_comb begin
    wr_data_valid = 1'b0;
    wr8_data_valid = 1'b0;
    wr_data = rq_value;
    if (id_push) begin
      wr_data_valid = 1'b1;
      wr_data = id_value;
    end else if (rq_valid) begin
      wr_data_valid = !out_narrow;
      wr8_data_valid = out_narrow;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) inflight <= '0;
    else inflight <= inflight + 5'(element_issue) - 5'(rq_valid);
  end

  // Write commands: tile rows (store), reorg and upsample / shortcut segments, and the fingerprint.
  logic st_cmd_valid, rg_cmd_valid, ew_cmd_valid, id_cmd_valid;
  logic [31:0] st_cmd_off, rg_cmd_off, ew_cmd_off, st_cmd_beats, rg_cmd_beats, ew_cmd_beats;
  logic wr_fire;
  logic [31:0] wr_off, wr_beats;
  assign wr_off = st_cmd_valid ? st_cmd_off : rg_cmd_valid ? rg_cmd_off : ew_cmd_off;
  assign wr_beats = st_cmd_valid ? st_cmd_beats : rg_cmd_valid ? rg_cmd_beats : ew_cmd_beats;
  always_comb begin
    wr_cmd_valid = 1'b0;
    wr8_cmd_valid = 1'b0;
    wr_cmd_addr = '0;
    wr_cmd_beats = '0;
    if (id_cmd_valid) begin
      wr_cmd_valid = 1'b1;
      wr_cmd_addr = base_fm_write + (ADDR_BITS'(out_off) << 1);
      wr_cmd_beats = 16'(fpgacnn_contract_pkg::FINGERPRINT_WORDS);
    end else if (st_cmd_valid || rg_cmd_valid || ew_cmd_valid) begin
      wr_cmd_valid = !out_narrow;
      wr8_cmd_valid = out_narrow;
      wr_cmd_addr = out_narrow ? base_fm8_write + ADDR_BITS'(wr_off) : base_fm_write + (ADDR_BITS'(wr_off) << 1);
      wr_cmd_beats = 16'(wr_beats);
    end
  end
  assign wr_fire = (wr_cmd_valid && wr_cmd_ready) || (wr8_cmd_valid && wr8_cmd_ready);

  // Store: for each output map of the group and each tile row, a write command, then the row's
  // elements read from the accumulators. The bank is free again once its last element is read.
  logic [31:0] st_m, st_r, st_c, st_row_off, st_rows, st_cols, st_maps, st_acc_row;
  logic st_in_row;
  assign sd_take = sd_valid && !st_active;
  assign store_idle = !st_active;
  assign st_cmd_valid = st_active && !st_in_row;
  assign st_cmd_off = st_row_off;
  assign st_cmd_beats = st_cols;
  assign st_issue = st_active && st_in_row && credit;
  assign st_acc_addr = ACC_AW'(st_acc_row + (st_c >> 1));
  assign st_lane = st_m;
  assign st_odd = st_c[0];
  always_ff @(posedge clk) begin
    if (rst) begin
      st_active <= 1'b0;
      st_in_row <= 1'b0;
      st_bank <= 1'b0;
      {st_m, st_r, st_c, st_row_off, st_rows, st_cols, st_maps, st_acc_row} <= '0;
      groups_stored <= '0;
    end else begin
      if (state == S_CHECK) groups_stored <= '0;
      if (sd_take) begin
        st_active <= 1'b1;
        st_in_row <= 1'b0;
        {st_m, st_r, st_c, st_acc_row} <= '0;
        st_row_off <= sd_store_off;
        st_rows <= sd_rows;
        st_cols <= sd_cols;
        st_maps <= sd_store_maps;
        st_bank <= sd_bank;
      end else if (st_active) begin
        if (!st_in_row) begin
          if (wr_fire) st_in_row <= 1'b1;
        end else if (st_issue) begin
          if (st_c + 1 < st_cols) st_c <= st_c + 1;
          else begin
            st_c <= 0;
            st_in_row <= 1'b0;
            if (st_r + 1 < st_rows) begin
              st_r <= st_r + 1;
              st_acc_row <= st_acc_row + 32'(TCH);
              st_row_off <= st_row_off + out_w;
            end else begin
              st_r <= 0;
              st_acc_row <= 0;
              st_row_off <= st_row_off + out_plane - mul_small_rows_w;
              if (st_m + 1 < st_maps) st_m <= st_m + 1;
              else begin
                st_active <= 1'b0;
                groups_stored <= groups_stored + 1;
              end
            end
          end
        end
      end
    end
  end
  // (rows - 1) * out_w, kept as a running sum: how far the last row is from the first.
  logic [31:0] mul_small_rows_w;
  always_ff @(posedge clk) begin
    if (sd_take) mul_small_rows_w <= 0;
    else if (st_active && st_issue && st_c + 1 >= st_cols)
      mul_small_rows_w <= st_r + 1 < st_rows ? mul_small_rows_w + out_w : 0;
  end

  // Identify: the fingerprint words as one burst of 16-bit words at output_offset.
  logic [4:0] id_index;
  logic id_active, id_in_data;
  assign ident_busy = id_active;
  assign id_cmd_valid = id_active && !id_in_data;
  assign id_push = id_active && id_in_data;
  always_comb begin
    case (32'(id_index))
      fpgacnn_contract_pkg::FP_MAGIC0: id_value = 16'(fpgacnn_contract_pkg::FINGERPRINT_MAGIC0);
      fpgacnn_contract_pkg::FP_MAGIC1: id_value = 16'(fpgacnn_contract_pkg::FINGERPRINT_MAGIC1);
      fpgacnn_contract_pkg::FP_FORMAT: id_value = 16'(fpgacnn_contract_pkg::FINGERPRINT_FORMAT);
      fpgacnn_contract_pkg::FP_CONTRACT: id_value = 16'(fpgacnn_contract_pkg::CONTRACT_VERSION);
      fpgacnn_contract_pkg::FP_DATA_BITS: id_value = 16'(fpgacnn_contract_pkg::DATA_BITS);
      fpgacnn_contract_pkg::FP_TM: id_value = 16'(TM);
      fpgacnn_contract_pkg::FP_TN: id_value = 16'(TN);
      fpgacnn_contract_pkg::FP_TR: id_value = 16'(TR);
      fpgacnn_contract_pkg::FP_TC: id_value = 16'(TC);
      fpgacnn_contract_pkg::FP_MAX_K: id_value = 16'(MAX_K);
      fpgacnn_contract_pkg::FP_MAX_S: id_value = 16'(MAX_S);
      fpgacnn_contract_pkg::FP_INT8_PAIRS: id_value = 16'(INT8_PAIRS != 0 ? 1 : 0);
      fpgacnn_contract_pkg::FP_PORT_BITS: id_value = 16'(PORT_BITS);
      fpgacnn_contract_pkg::FP_UPSAMPLE_SHORTCUT: id_value = 16'(ELEMENTWISE ? 1 : 0);
      default: id_value = 16'd0;
    endcase
  end
  always_ff @(posedge clk) begin
    if (rst) begin
      id_active <= 1'b0;
      id_in_data <= 1'b0;
      id_index <= '0;
    end else if (ident_start) begin
      id_active <= 1'b1;
      id_in_data <= 1'b0;
      id_index <= '0;
    end else if (id_active) begin
      if (!id_in_data) begin
        if (wr_fire) id_in_data <= 1'b1;
      end else begin
        // The queue holds FINGERPRINT_WORDS (16) and nothing else is in flight.
        id_index <= id_index + 1'b1;
        if (32'(id_index) + 1 == fpgacnn_contract_pkg::FINGERPRINT_WORDS) id_active <= 1'b0;
      end
    end
  end

  // Reorg (reorg_layer.hpp): for k = offset * oc + source_map, each input row j, each segment of
  // tile_cols elements: read span = (count - 1) * s + 1 elements into input lane 0, then write
  // every s-th one, requantized (linear). rg_hsws = in_h * s * in_w * s comes from the sequencer's
  // serial multiplier.
  typedef enum logic [2:0] {
    R_IDLE,
    R_SEGMENT,
    R_READ,
    R_READ_WAIT,
    R_WRITE_CMD,
    R_WRITE,
    R_NEXT
  } reorg_state_t;
  reorg_state_t rg_state;
  logic [31:0] rg_oc, rg_ws, rg_sws, rg_seg_s;
  logic [31:0] rg_off_div, rg_off_mod, rg_offset_base, rg_sm, rg_map_term, rg_j, rg_j_term, rg_tgt;
  logic [31:0] rg_i0, rg_i0s, rg_src, rg_count, rg_i, rg_is;
  assign reorg_busy = rg_state != R_IDLE;
  assign reorg_read_valid = rg_state == R_READ;
  assign reorg_read_off = rg_src;
  assign reorg_read_beats = mul_small(rg_count - 1, s) + 1;
  assign rg_cmd_valid = rg_state == R_WRITE_CMD;
  assign rg_cmd_off = rg_tgt + rg_i0;
  assign rg_cmd_beats = rg_count;
  assign rg_issue = rg_state == R_WRITE && credit;
  assign rg_line_addr = IN_AW'(rg_is);

  always_ff @(posedge clk) begin
    if (rst) begin
      rg_state <= R_IDLE;
      {rg_oc, rg_ws, rg_sws, rg_seg_s} <= '0;
      {rg_off_div, rg_off_mod, rg_offset_base, rg_sm, rg_map_term, rg_j, rg_j_term, rg_tgt} <= '0;
      {rg_i0, rg_i0s, rg_src, rg_count, rg_i, rg_is} <= '0;
    end else begin
      case (rg_state)
        R_IDLE:
        if (reorg_start) begin
          rg_oc <= 32'(reorg_maps);
          rg_ws <= mul_small(in_w, s);
          rg_sws <= mul_small(mul_small(in_w, s), s);
          rg_seg_s <= mul_small(tile_cols, s);
          {rg_off_div, rg_off_mod, rg_offset_base, rg_sm, rg_map_term, rg_j, rg_j_term, rg_i0, rg_i0s} <= '0;
          rg_tgt <= out_off;
          rg_state <= R_SEGMENT;
        end
        R_SEGMENT: begin
          rg_count <= in_w - rg_i0 < tile_cols ? in_w - rg_i0 : tile_cols;
          rg_src <= in_off + rg_map_term + rg_j_term + rg_offset_base + rg_off_mod + rg_i0s;
          rg_state <= R_READ;
        end
        R_READ: if (fm_cmd_fire) rg_state <= R_READ_WAIT;
        R_READ_WAIT: if (fm_idle && fm8_idle) rg_state <= R_WRITE_CMD;
        R_WRITE_CMD:
        if (wr_fire) begin
          rg_i <= 0;
          rg_is <= 0;
          rg_state <= R_WRITE;
        end
        R_WRITE:
        if (rg_issue) begin
          rg_i <= rg_i + 1;
          rg_is <= rg_is + s;
          if (rg_i + 1 == rg_count) rg_state <= R_NEXT;
        end
        R_NEXT: begin
          rg_state <= R_SEGMENT;
          if (rg_i0 + tile_cols < in_w) begin
            rg_i0 <= rg_i0 + tile_cols;
            rg_i0s <= rg_i0s + rg_seg_s;
          end else begin
            rg_i0 <= 0;
            rg_i0s <= 0;
            rg_tgt <= rg_tgt + in_w;
            if (rg_j + 1 < in_h) begin
              rg_j <= rg_j + 1;
              rg_j_term <= rg_j_term + rg_sws;
            end else begin
              rg_j <= 0;
              rg_j_term <= 0;
              if (rg_sm + 1 < rg_oc) begin
                rg_sm <= rg_sm + 1;
                rg_map_term <= rg_map_term + rg_hsws;
              end else begin
                rg_sm <= 0;
                rg_map_term <= 0;
                if (rg_off_mod + 1 < s) rg_off_mod <= rg_off_mod + 1;
                else begin
                  rg_off_mod <= 0;
                  if (rg_off_div + 1 < s) begin
                    rg_off_div <= rg_off_div + 1;
                    rg_offset_base <= rg_offset_base + rg_ws;
                  end else rg_state <= R_IDLE;
                end
              end
            end
          end
        end
        default: rg_state <= R_IDLE;
      endcase
    end
  end
  // Upsample and shortcut (upsample_shortcut_layer.hpp): for each map k and input row y, each segment of
  // tile_cols output columns from x0: read the input columns it needs (upsample: first = x0 / s to
  // (x0 + count - 1) / s; shortcut: a's and b's count elements, into lanes 0 and 1), then write the
  // segment to each of the s output rows that repeat it (shortcut: s = 1), every element through the
  // requantizer. x0 / s is kept as first and phase (x0 = first * s + phase), advanced by tile_cols / s
  // and tile_cols % s, so no division runs per element or segment but the span's, by a stride <= MAX_S.
  function automatic logic [31:0] div_stride(input logic [31:0] x, input logic [31:0] y);
    div_stride = x;
    for (int i = 2; i <= MAX_S; i++) if (y == 32'(i)) div_stride = x / 32'(i);
  endfunction
  typedef enum logic [3:0] {
    E_IDLE,
    E_SEGMENT,
    E_SPAN,
    E_READ_A,
    E_READ_B,
    E_READ_WAIT,
    E_WRITE_CMD,
    E_WRITE,
    E_NEXT
  } elementwise_state_t;
  elementwise_state_t ew_state;
  logic [31:0] ew_k, ew_y, ew_src_row, ew_dst_row, ew_dst_step, ew_seg_div, ew_seg_mod;
  logic [31:0] ew_x0, ew_first, ew_phase0, ew_count, ew_span, ew_r, ew_target, ew_i, ew_src, ew_phase;
  assign ew_busy = ew_state != E_IDLE;
  assign ew_read_valid = ew_state == E_READ_A || ew_state == E_READ_B;
  assign ew_read_lane = ew_state == E_READ_B;
  assign ew_read_narrow = ew_state == E_READ_B ? w_narrow : in_narrow;
  assign ew_read_off = (ew_state == E_READ_B ? err_off : in_off) + ew_src_row + ew_first;
  assign ew_read_beats = ew_state == E_READ_B ? ew_count : ew_span;
  assign ew_cmd_valid = ew_state == E_WRITE_CMD;
  assign ew_cmd_off = ew_target;
  assign ew_cmd_beats = ew_count;
  assign ew_issue = ew_state == E_WRITE && credit;
  assign ew_line_addr = IN_AW'(ew_src);

  always_ff @(posedge clk) begin
    if (rst) begin
      ew_state <= E_IDLE;
      {align_a, align_b} <= '0;
      {ew_k, ew_y, ew_src_row, ew_dst_row, ew_dst_step, ew_seg_div, ew_seg_mod} <= '0;
      {ew_x0, ew_first, ew_phase0, ew_count, ew_span, ew_r, ew_target, ew_i, ew_src, ew_phase} <= '0;
    end else begin
      case (ew_state)
        E_IDLE:
        if (ew_start) begin
          // |bias_shift| <= SHORTCUT_MAX_ALIGN_SHIFT (32) after the check.
          align_a <= $signed(bias_shift) < 0 ? 6'(-bias_shift) : 6'd0;
          align_b <= $signed(bias_shift) > 0 ? 6'(bias_shift) : 6'd0;
          ew_seg_div <= div_stride(tile_cols, s);
          ew_seg_mod <= tile_cols - mul_small(div_stride(tile_cols, s), s);
          ew_dst_step <= mul_small(out_w, s);
          {ew_k, ew_y, ew_src_row, ew_dst_row, ew_x0, ew_first, ew_phase0} <= '0;
          ew_state <= E_SEGMENT;
        end
        E_SEGMENT: begin
          ew_count <= out_w - ew_x0 < tile_cols ? out_w - ew_x0 : tile_cols;
          ew_state <= E_SPAN;
        end
        E_SPAN: begin
          ew_span <= div_stride(ew_phase0 + ew_count - 1, s) + 1;
          ew_state <= E_READ_A;
        end
        E_READ_A: if (fm_cmd_fire) ew_state <= op == OP_SHORTCUT ? E_READ_B : E_READ_WAIT;
        E_READ_B: if (fm_cmd_fire) ew_state <= E_READ_WAIT;
        E_READ_WAIT:
        if (fm_idle && fm8_idle) begin
          ew_r <= 0;
          ew_target <= out_off + ew_dst_row + ew_x0;
          ew_state <= E_WRITE_CMD;
        end
        E_WRITE_CMD:
        if (wr_fire) begin
          ew_i <= 0;
          ew_src <= 0;
          ew_phase <= ew_phase0;
          ew_state <= E_WRITE;
        end
        E_WRITE:
        if (ew_issue) begin
          ew_i <= ew_i + 1;
          if (ew_phase + 1 == s) begin
            ew_phase <= 0;
            ew_src <= ew_src + 1;
          end else ew_phase <= ew_phase + 1;
          if (ew_i + 1 == ew_count) begin
            if (ew_r + 1 < s) begin
              ew_r <= ew_r + 1;
              ew_target <= ew_target + out_w;
              ew_state <= E_WRITE_CMD;
            end else ew_state <= E_NEXT;
          end
        end
        E_NEXT: begin
          ew_state <= E_SEGMENT;
          if (ew_x0 + tile_cols < out_w) begin
            ew_x0 <= ew_x0 + tile_cols;
            if (ew_phase0 + ew_seg_mod >= s) begin
              ew_phase0 <= ew_phase0 + ew_seg_mod - s;
              ew_first <= ew_first + ew_seg_div + 1;
            end else begin
              ew_phase0 <= ew_phase0 + ew_seg_mod;
              ew_first <= ew_first + ew_seg_div;
            end
          end else begin
            {ew_x0, ew_first, ew_phase0} <= '0;
            ew_src_row <= ew_src_row + in_w;
            ew_dst_row <= ew_dst_row + ew_dst_step;
            if (ew_y + 1 < in_h) ew_y <= ew_y + 1;
            else begin
              ew_y <= 0;
              if (ew_k + 1 < in_c) ew_k <= ew_k + 1;
              else ew_state <= E_IDLE;
            end
          end
        end
        default: ew_state <= E_IDLE;
      endcase
    end
  end
endmodule
