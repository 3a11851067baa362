// A small synchronous FIFO (first-word-fall-through): the AXI masters' command and data queues.
module fpgacnn_fifo #(
    parameter int WIDTH = 16,
    parameter int DEPTH = 16,
    localparam int AW = $clog2(DEPTH)
) (
    input  logic             clk,
    input  logic             rst,  // synchronous, active high
    input  logic             push,
    input  logic [WIDTH-1:0] push_data,
    input  logic             pop,
    output logic [WIDTH-1:0] head,
    output logic             empty,
    output logic             full,
    output logic [     AW:0] count
);
  logic [WIDTH-1:0] slots[DEPTH];
  logic [AW-1:0] rd, wr;

  assign empty = count == 0;
  assign full  = count == (AW + 1)'(DEPTH);
  assign head  = slots[rd];

  always_ff @(posedge clk) begin
    if (push && !full) slots[wr] <= push_data;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      rd <= '0;
      wr <= '0;
      count <= '0;
    end else begin
      if (push && !full) wr <= wr + 1'b1;
      if (pop && !empty) rd <= rd + 1'b1;
      count <= count + (AW + 1)'(push && !full) - (AW + 1)'(pop && !empty);
    end
  end
endmodule
