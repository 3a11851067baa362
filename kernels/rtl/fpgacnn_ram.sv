// One on-chip buffer lane: a simple dual-port memory (one write port, one registered read port,
// read-first on a same-address collision) in the template yosys maps to block or distributed RAM.
module fpgacnn_ram #(
    parameter int WIDTH = 16,
    parameter int DEPTH = 64,
    localparam int AW = DEPTH > 1 ? $clog2(DEPTH) : 1
) (
    input  logic             clk,
    input  logic             we,
    input  logic [   AW-1:0] waddr,
    input  logic [WIDTH-1:0] wdata,
    input  logic [   AW-1:0] raddr,
    output logic [WIDTH-1:0] rdata
);
  logic [WIDTH-1:0] mem[DEPTH];

  always_ff @(posedge clk) begin
    if (we) mem[waddr] <= wdata;
    rdata <= mem[raddr];
  end
endmodule
