// The data types of the HLS top's AXI masters (fpgacnn_accel in accel.hpp). A word-wide master
// (fm_read, fm_write, params) is FPGACNN_PORT_BITS wide and carries kPortElements int16 a beat; a
// byte-wide one (fm8_read, fm8_write) is half as wide and carries as many int8. At the reference
// width (16 bits: one element a beat) the beat is the element itself, so the top's signature is the
// one of 0.2.0; wider builds aggregate the elements into a struct, which Vitis HLS maps onto one
// m_axi data bus of the struct's width (structs on an interface are aggregated by default, the first
// member in the lowest bits, as the RTL twin's lanes).
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/config.hpp"

namespace fpgacnn {
namespace kernel {

/// One beat of `Elements` consecutive elements; element 0 is the lowest address (AXI is little-endian).
template <class Element, int Elements>
struct PortBeat {
    Element element[Elements];  ///< the beat's elements, element[0] at the beat's lowest byte address
};

/// The data type of a master moving `Elements` elements a beat: the element itself for one.
template <class Element, int Elements>
struct PortData {
    typedef PortBeat<Element, Elements> type;  ///< the beat type
};
template <class Element>
struct PortData<Element, 1> {
    typedef Element type;  ///< the element itself
};

/// A beat of the word-wide masters: kPortBits bits, kPortElements int16 (or parameter words).
typedef PortData<int16_t, kPortElements>::type WordBeat;
/// A beat of the byte-wide masters: kPortBits / 2 bits, kPortElements int8.
typedef PortData<int8_t, kPortElements>::type ByteBeat;

}  // namespace kernel
}  // namespace fpgacnn
