#include "axi_ports.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace fpgacnn::rtl {

namespace {
constexpr unsigned kMaxWriteBursts = 16;  // AW accepted ahead of their data
}

bool ReadPort::clock(const ReadPins& pins, const ReadDrive& drive, const AxiMemory& memory,
                     const fpgacnn_rtl_memory_model& model, uint64_t now, fpgacnn_rtl_port_counters& counters,
                     BandwidthBudget& budget, std::string& error) {
    if (drive.rvalid && pins.rready) {
        Burst& head = bursts_.front();
        ++head.done;
        ++counters.beats;
        counters.bytes += bytes_;
        if (head.done == head.beats) bursts_.pop_front();
    } else if (offered_) {
        budget.give_back(bytes_);
    }
    offered_ = false;
    if (pins.arvalid && drive.arready) {
        error = memory.check_burst(name_, false, pins.araddr, pins.arlen, pins.arsize, pins.arburst, bytes_);
        if (!error.empty()) return false;
        bursts_.push_back(Burst{pins.araddr, pins.arlen + 1, 0, now + model.read_latency});
        ++counters.bursts;
    }
    return true;
}

ReadDrive ReadPort::drive(const AxiMemory& memory, const fpgacnn_rtl_memory_model& model, uint64_t now,
                          BandwidthBudget& budget) {
    ReadDrive d;
    const uint32_t outstanding = model.outstanding_reads == 0 ? 1 : model.outstanding_reads;
    d.arready = bursts_.size() < outstanding;
    if (!bursts_.empty() && bursts_.front().ready_at <= now && budget.take(bytes_)) {
        const Burst& head = bursts_.front();
        const uint64_t address = head.address + static_cast<uint64_t>(head.done) * bytes_;
        uint8_t beat[8] = {};
        memory.read_beat(address, bytes_, beat);
        uint64_t value = 0;
        std::memcpy(&value, beat, bytes_);  // little-endian hosts
        d.rvalid = true;
        d.rdata = value;
        d.rlast = head.done + 1 == head.beats;
        offered_ = true;
    }
    return d;
}

bool WritePort::clock(const WritePins& pins, const WriteDrive& drive, const AxiMemory& memory,
                      const fpgacnn_rtl_memory_model& model, uint64_t now,
                      fpgacnn_rtl_port_counters& counters, BandwidthBudget& budget, std::string& error) {
    if (drive.bvalid && pins.bready) responses_.pop_front();
    if (pins.wvalid && drive.wready) {
        Burst& head = bursts_.front();
        const uint64_t address = head.address + static_cast<uint64_t>(head.done) * bytes_;
        const bool last = head.done + 1 == head.beats;
        if (pins.wlast != last) {
            char text[200];
            std::snprintf(text, sizeof text, "%s: write burst at 0x%" PRIx64 ": WLAST %s on beat %u of %u",
                          name_, head.address, pins.wlast ? "set" : "missing", head.done + 1, head.beats);
            error = text;
            return false;
        }
        for (unsigned b = 0; b < bytes_; ++b) {
            if ((pins.wstrb >> b) & 1u) {
                uint8_t* host = memory.resolve(address + b, 1);
                if (host == nullptr) {
                    char text[200];
                    std::snprintf(text, sizeof text,
                                  "%s: write burst at 0x%" PRIx64 ": byte 0x%" PRIx64
                                  " is strobed but not mapped",
                                  name_, head.address, address + b);
                    error = text;
                    return false;
                }
                *host = static_cast<uint8_t>(pins.wdata >> (8 * b));
                ++counters.bytes;
            }
        }
        ++counters.beats;
        ++head.done;
        if (last) {
            responses_.push_back(now + model.write_latency);
            bursts_.pop_front();
        }
    } else if (offered_) {
        budget.give_back(bytes_);
    }
    offered_ = false;
    if (pins.awvalid && drive.awready) {
        error = memory.check_burst(name_, true, pins.awaddr, pins.awlen, pins.awsize, pins.awburst, bytes_);
        if (!error.empty()) return false;
        bursts_.push_back(Burst{pins.awaddr, pins.awlen + 1, 0});
        ++counters.bursts;
    }
    return true;
}

WriteDrive WritePort::drive(const fpgacnn_rtl_memory_model& model, uint64_t now, BandwidthBudget& budget) {
    (void)model;
    WriteDrive d;
    d.awready = bursts_.size() < kMaxWriteBursts;
    if (!bursts_.empty() && budget.take(bytes_)) {
        d.wready = true;
        offered_ = true;
    }
    d.bvalid = !responses_.empty() && responses_.front() <= now;
    return d;
}

}  // namespace fpgacnn::rtl
