// A buffer lane that takes a run of up to BANKS consecutive elements a cycle (a wide AXI beat) and is
// read one element a cycle, like fpgacnn_ram: element a sits in bank a % BANKS at a / BANKS, so any
// BANKS consecutive addresses fall into different banks whatever the first one. The read is
// registered in the banks; the bank select is registered beside it, so the read latency stays one
// cycle. BANKS = 1 is one fpgacnn_ram.
module fpgacnn_banked_ram #(
    parameter int WIDTH = 16,
    parameter int DEPTH = 64,
    parameter int BANKS = 1,  // a power of two
    localparam int AW = DEPTH > 1 ? $clog2(DEPTH) : 1,
    localparam int COUNT_BITS = $clog2(BANKS + 1)
) (
    input  logic                   clk,
    input  logic                   we,
    input  logic [         AW-1:0] waddr,   // the first element's address
    input  logic [ COUNT_BITS-1:0] wcount,  // elements in wdata, 1 .. BANKS
    input  logic [BANKS*WIDTH-1:0] wdata,   // element j (address waddr + j) at [WIDTH*j +: WIDTH]
    input  logic [         AW-1:0] raddr,
    output logic [    WIDTH-1:0] rdata
);
  if (BANKS == 1) begin : g_one
    logic unused_count;
    assign unused_count = &{1'b0, wcount};
    fpgacnn_ram #(
        .WIDTH(WIDTH),
        .DEPTH(DEPTH)
    ) bank (
        .clk(clk),
        .we(we),
        .waddr(waddr),
        .wdata(wdata),
        .raddr(raddr),
        .rdata(rdata)
    );
  end else begin : g_banks
    localparam int SEL = $clog2(BANKS);
    localparam int BANK_DEPTH = (DEPTH + BANKS - 1) / BANKS;
    localparam int BAW = BANK_DEPTH > 1 ? $clog2(BANK_DEPTH) : 1;
    logic [WIDTH-1:0] bank_rdata[BANKS];
    logic [SEL-1:0] read_bank;
    always_ff @(posedge clk) read_bank <= raddr[SEL-1:0];
    assign rdata = bank_rdata[read_bank];
    genvar b;
    for (b = 0; b < BANKS; b++) begin : g_bank
      // The element of this run that lands in bank b: j = (b - waddr) mod BANKS.
      logic [SEL-1:0] j;
      logic [AW:0] address;
      assign j = SEL'(b) - waddr[SEL-1:0];
      assign address = {1'b0, waddr} + (AW + 1)'(j);
      fpgacnn_ram #(
          .WIDTH(WIDTH),
          .DEPTH(BANK_DEPTH)
      ) bank (
          .clk(clk),
          .we(we && COUNT_BITS'(j) < wcount),
          .waddr(BAW'(address >> SEL)),
          .wdata(wdata[WIDTH*j+:WIDTH]),
          .raddr(BAW'(raddr >> SEL)),
          .rdata(bank_rdata[b])
      );
    end
  end
endmodule
