// Element runs over the beat-wide AXI masters (port_beat.hpp). A run of consecutive elements (a
// row segment, a weight block, the biases) starts and ends anywhere inside a beat: a read fetches
// whole beats from the one holding its first element and keeps only the run's lanes; a write sends
// whole beats whose strobes cover only the run's lanes, so the neighbours in the first and last beat
// are never rewritten. The same as the RTL twin's readers and writers (kernels/rtl), so both
// compute the same bits at every FPGACNN_PORT_BITS.
//
// Natively the port is host memory that may end inside a beat (an arena sized in elements), so the
// native build touches only the run's lanes; under __SYNTHESIS__ a read takes the whole beat and a
// write assigns the run's lanes of one beat (the lanes left alone get no write strobe).
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/port_beat.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

/// Element `lane` of a beat (a one-element beat is the element).
template <class Element>
inline Element beat_lane(const Element& beat, int /*lane*/) {
    return beat;
}
template <class Element, int Elements>
inline Element beat_lane(const PortBeat<Element, Elements>& beat, int lane) {
    return beat.element[lane];
}

/// Sets element `lane` of a beat.
template <class Element>
inline void set_beat_lane(Element& beat, int /*lane*/, Element value) {
    beat = value;
}
template <class Element, int Elements>
inline void set_beat_lane(PortBeat<Element, Elements>& beat, int lane, Element value) {
    beat.element[lane] = value;
}

/// Where a run of `length` elements from element `first` lies in beats: the beat holding `first`,
/// the run's lanes before it in that beat (lead) and the beats it covers.
struct BeatSpan {
    uint32_t first_beat;
    int lead;
    int beats;
};
inline BeatSpan beat_span(uint32_t first, int length) {
    BeatSpan span;
    span.first_beat = first / static_cast<uint32_t>(kPortElements);
    span.lead = static_cast<int>(first % static_cast<uint32_t>(kPortElements));
    span.beats = (span.lead + length + kPortElements - 1) / kPortElements;
    return span;
}

/// The element of the run that lane `lane` of the run's beat `b` holds (negative or >= length: not
/// the run's).
inline int run_element(const BeatSpan& span, int b, int lane) { return b * kPortElements + lane - span.lead; }

/// Beat `index` of a port, of which lanes [lane_begin, lane_end) belong to the run being read.
template <class Element>
inline typename PortData<Element, kPortElements>::type read_beat(
    const typename PortData<Element, kPortElements>::type* port, uint32_t index, int lane_begin,
    int lane_end) {
#ifdef __SYNTHESIS__
    (void)lane_begin, (void)lane_end;
    return port[index];
#else
    typename PortData<Element, kPortElements>::type beat = typename PortData<Element, kPortElements>::type();
    const Element* elements =
        reinterpret_cast<const Element*>(port) + index * static_cast<uint32_t>(kPortElements);
    Element* lanes = reinterpret_cast<Element*>(&beat);
    for (int lane = lane_begin; lane < lane_end; ++lane) lanes[lane] = elements[lane];
    return beat;
#endif
}

/// Writes lanes [lane_begin, lane_end) of beat `index` (the write strobes) from `values`, indexed by
/// lane.
template <class Element>
inline void write_beat_lanes(typename PortData<Element, kPortElements>::type* port, uint32_t index,
                             const int16_t* values, int lane_begin, int lane_end) {
#ifdef __SYNTHESIS__
    for (int lane = 0; lane < kPortElements; ++lane) {
#pragma HLS UNROLL
        if (lane >= lane_begin && lane < lane_end)
            set_beat_lane(port[index], lane, static_cast<Element>(values[lane]));
    }
#else
    Element* elements = reinterpret_cast<Element*>(port) + index * static_cast<uint32_t>(kPortElements);
    for (int lane = lane_begin; lane < lane_end; ++lane) elements[lane] = static_cast<Element>(values[lane]);
#endif
}

/// The run's lanes of its beat `b`: [begin, end).
inline int run_lane_begin(const BeatSpan& span, int b) { return b == 0 ? span.lead : 0; }
inline int run_lane_end(const BeatSpan& span, int b, int length) {
    const int end = span.lead + length - b * kPortElements;
    return end < kPortElements ? end : kPortElements;
}

/// One burst of `length` consecutive elements of either width from element `source` into int16
/// values (8-bit elements sign-extended).
template <class Element>
void read_run(const typename PortData<Element, kPortElements>::type* port, uint32_t source, int length,
              int16_t* target) {
    const BeatSpan span = beat_span(source, length);
    for (int b = 0; b < span.beats; ++b) {
#pragma HLS PIPELINE II = 1
        const typename PortData<Element, kPortElements>::type beat =
            read_beat<Element>(port, span.first_beat + static_cast<uint32_t>(b), run_lane_begin(span, b),
                               run_lane_end(span, b, length));
        for (int lane = 0; lane < kPortElements; ++lane) {
#pragma HLS UNROLL
            const int c = run_element(span, b, lane);
            // An 8-bit element is a signed byte: the sign extension is the point, not a misuse.
            if (c >= 0 && c < length)
                target[c] =
                    static_cast<int16_t>(beat_lane(beat, lane));  // NOLINT(bugprone-signed-char-misuse)
        }
    }
}

/// One burst of `length` int16 values out to consecutive elements of either width from element
/// `target` (the values fit the width already).
template <class Element>
void write_run(const int16_t* values, int length, typename PortData<Element, kPortElements>::type* port,
               uint32_t target) {
    const BeatSpan span = beat_span(target, length);
    for (int b = 0; b < span.beats; ++b) {
#pragma HLS PIPELINE II = 1
        int16_t lanes[kPortElements];
#pragma HLS ARRAY_PARTITION variable = lanes complete
        for (int lane = 0; lane < kPortElements; ++lane) {
#pragma HLS UNROLL
            const int c = run_element(span, b, lane);
            lanes[lane] = c >= 0 && c < length ? values[c] : static_cast<int16_t>(0);
        }
        write_beat_lanes<Element>(port, span.first_beat + static_cast<uint32_t>(b), lanes,
                                  run_lane_begin(span, b), run_lane_end(span, b, length));
    }
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn
