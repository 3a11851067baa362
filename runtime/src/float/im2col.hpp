// darknet's im2col_cpu: unrolls the K x K receptive fields of a CHW image into a
// (channels*K*K) x (out_h*out_w) matrix so that a convolution becomes one sgemm.
#pragma once

namespace fpgacnn::detail {

struct Im2colGeometry {
    int channels = 0;
    int height = 0;
    int width = 0;
    int ksize = 1;
    int stride = 1;
    int pad = 0;
    int out_height() const { return (height + 2 * pad - ksize) / stride + 1; }
    int out_width() const { return (width + 2 * pad - ksize) / stride + 1; }
};

/// Writes the columns of output rows [first_row, first_row + rows) of the column matrix, i.e. a
/// (channels*K*K) x (rows*out_w) matrix, into `columns`; taps in the padding read as zero.
/// With first_row = 0 and rows = out_height() this is darknet's whole im2col_cpu matrix.
void im2col(const Im2colGeometry& geometry, const float* image, int first_row, int rows, float* columns);

}  // namespace fpgacnn::detail
