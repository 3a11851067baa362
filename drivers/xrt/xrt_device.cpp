// XrtDevice: the Device interface on XRT's native API. One object drives one kernel handle (all
// compute units, or one with /cu<k>) with one run in flight: start() marshals the LayerCommand into
// xrt::run arguments, wait() polls the run's state against a deadline and aborts what does not
// finish. Cards are shared: several XrtDevice objects on the same card (one per CU) share one
// xrt::device and one xclbin load.
#include <experimental/xrt_xclbin.h>
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/owned_memory.hpp"
#include "fpgacnn/drivers/command_footprint.hpp"
#include "fpgacnn/drivers/xrt_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"
#include "fpgacnn/kernel/register_map.hpp"
#include "xrt/xclbin_file.hpp"
#include "xrt/xrt_card.hpp"

namespace fpgacnn {

namespace {

using Clock = std::chrono::steady_clock;
using xrt_driver::XrtCard;

const char* state_name(ert_cmd_state state) {
    switch (state) {
        case ERT_CMD_STATE_NEW:
            return "NEW";
        case ERT_CMD_STATE_QUEUED:
            return "QUEUED";
        case ERT_CMD_STATE_RUNNING:
            return "RUNNING";
        case ERT_CMD_STATE_COMPLETED:
            return "COMPLETED";
        case ERT_CMD_STATE_ERROR:
            return "ERROR";
        case ERT_CMD_STATE_ABORT:
            return "ABORT";
        case ERT_CMD_STATE_SUBMITTED:
            return "SUBMITTED";
        case ERT_CMD_STATE_TIMEOUT:
            return "TIMEOUT";
        case ERT_CMD_STATE_NORESPONSE:
            return "NORESPONSE";
        default:
            return "UNKNOWN";
    }
}

bool finished(ert_cmd_state state) {
    return state != ERT_CMD_STATE_NEW && state != ERT_CMD_STATE_QUEUED && state != ERT_CMD_STATE_RUNNING &&
           state != ERT_CMD_STATE_SUBMITTED;
}

/// One buffer: XRT's buffer object (freed with it) and the card it lives on, kept alive with it.
struct XrtMemory final : DeviceMemory {
    std::shared_ptr<XrtCard> card;
    xrt::bo bo;
    int group = 0;
};

class XrtDevice final : public Device {
public:
    XrtDevice(std::shared_ptr<XrtCard> card, const XrtSpec& spec) : card_(std::move(card)), spec_(spec) {
        const std::string& name = card_->kernel_name();
        std::string handle_name = name;
        if (spec.compute_unit) handle_name += ":{" + card_->compute_units()[*spec.compute_unit] + "}";
        kernel_ = card_->open_kernel(handle_name);
        fm_group_ = kernel_.group_id(kXrtFmReadArgument);
        param_group_ = kernel_.group_id(kXrtParamsArgument);
        for (const int argument : {kXrtFmWriteArgument, kXrtFm8ReadArgument, kXrtFm8WriteArgument}) {
            const int group = kernel_.group_id(argument);
            if (group == fm_group_) continue;
            const char* port = kernel::regs::kPointerNames[argument - kernel::kCommandWords];
            throw DeviceError(context() + ": fm_read and " + port + " are wired to different memory banks (" +
                              card_->bank_name(fm_group_) + ", " + card_->bank_name(group) +
                              "); every feature-map port reads or writes the one feature-map arena, so link "
                              "them to the same bank (kernels/hls/vitis/*.cfg)");
        }
        run_ = xrt::run(kernel_);
        fingerprint_ = card_->metadata_fingerprint().value_or(KernelFingerprint{});
    }

    /// The identify command where the device really executes (not on XRT's no-op device): the
    /// kernel's own fingerprint must equal the xclbin's metadata (or stands in for missing metadata).
    void identify_kernel() {
        if (!card_->executes()) {
            if (!card_->metadata_fingerprint()) {
                throw DeviceError(
                    context() +
                    ": the xclbin has no fpgacnn fingerprint (USER_METADATA section) and "
                    "XRT's no-op device cannot run the identify command; rebuild the xclbin with "
                    "kernels/hls/vitis/Makefile");
            }
            return;
        }
        const KernelFingerprint answer = read_fingerprint(*this, std::chrono::seconds(2));
        if (const auto& meta = card_->metadata_fingerprint()) {
            if (fingerprint_metadata(answer) != fingerprint_metadata(*meta)) {
                throw DeviceError(
                    context() + ": the xclbin's metadata says " + meta->text() + " but the kernel answers " +
                    answer.text() +
                    "; the xclbin's metadata is stale, rebuild it with kernels/hls/vitis/Makefile");
            }
        }
        require_compatible_kernel(answer, name());
        fingerprint_ = answer;
    }

    ~XrtDevice() override {
        if (busy_) abort_run();
    }

    std::string name() const override {
        return xrt_spec_text(spec_) + " (" + card_->device_name() + ", " + tile_text(fingerprint_.maxima) +
               ")";
    }

    KernelMaxima maxima() const override { return fingerprint_.maxima; }
    KernelFingerprint fingerprint() const override { return fingerprint_; }

    DeviceBuffer allocate(std::size_t bytes, BufferRole role, const std::string& purpose) override {
        const int group = role == BufferRole::Parameters ? param_group_ : fm_group_;
        auto b = std::make_shared<XrtMemory>();
        try {
            b->bo = xrt::bo(card_->device(), std::max<std::size_t>(bytes, 1), xrt::bo::flags::normal,
                            static_cast<xrt::memory_group>(group));
            b->host = b->bo.map();
        } catch (const std::exception& e) {
            throw DeviceError(
                context() + ": cannot allocate " + std::to_string(bytes) + " bytes for '" + purpose +
                "' in memory bank " + card_->bank_name(group) + " (XRT: " + e.what() +
                "); the bank is full or smaller than the plan needs: free other buffers, close other "
                "programs using the card, or plan a smaller network");
        }
        b->device_address = b->bo.address();
        b->bytes = bytes;
        b->purpose = purpose;
        b->owner = token_;
        b->card = card_;
        b->group = group;
        return DeviceBuffer(std::move(b));
    }

    void sync(const DeviceBuffer& buffer, SyncDirection direction, std::size_t offset,
              std::size_t bytes) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto b = own(buffer, context() + ": sync");
        if (offset > b->bytes || bytes > b->bytes - offset) {
            throw Error(context() + ": sync of bytes [" + std::to_string(offset) + ", " +
                        std::to_string(offset + bytes) + ") of '" + b->purpose + "', which has " +
                        std::to_string(b->bytes) + " bytes");
        }
        if (busy_ && b == arena_) {
            throw Error(context() + ": sync of '" + b->purpose + "' while " + command_.description +
                        " is running; wait() for the command first");
        }
        if (bytes == 0) return;
        try {
            b->bo.sync(
                direction == SyncDirection::ToDevice ? XCL_BO_SYNC_BO_TO_DEVICE : XCL_BO_SYNC_BO_FROM_DEVICE,
                bytes, offset);
        } catch (const std::exception& e) {
            throw DeviceError(context() + ": sync of '" + b->purpose + "' failed (XRT: " + e.what() +
                              "); the card may have been reset, check dmesg and xbutil examine");
        }
    }

    void start(const DeviceCommand& command, const DeviceBuffer& arena,
               const DeviceBuffer& parameters) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::string who = context() + ": " + command.description;
        if (busy_) {
            throw Error(who + ": cannot start while " + command_.description +
                        " is still running; wait() for it first");
        }
        const auto a = own(arena, who);
        const auto p = own(parameters, who);
        check_command_fits(who, command.command, fingerprint_.maxima, arena, parameters);
        std::uint32_t words[kernel::kCommandWords];
        kernel::regs::command_words(command.command, words);
        try {
            for (int i = 0; i < kernel::kCommandWords; ++i) run_.set_arg(i, words[i]);
            run_.set_arg(kXrtFmReadArgument, a->bo);
            run_.set_arg(kXrtFmWriteArgument, a->bo);
            run_.set_arg(kXrtFm8ReadArgument, a->bo);
            run_.set_arg(kXrtFm8WriteArgument, a->bo);
            run_.set_arg(kXrtParamsArgument, parameter_port_buffer(command.command, *p));
            run_.start();
        } catch (const std::exception& e) {
            run_ = xrt::run(kernel_);  // a half-set run must not be reused
            throw DeviceError(who + ": XRT refused to start the run (" + e.what() +
                              "); check xbutil examine for the card");
        }
        busy_ = true;
        command_ = command;
        arena_ = a;
        params_ = p;
        started_ = Clock::now();
    }

    CommandStats wait(std::chrono::milliseconds timeout) override {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!busy_) throw Error(context() + ": wait() without a started command");
        const Clock::time_point deadline = Clock::now() + timeout;
        // Polled rather than run.wait(timeout): XRT's no-op shim ignores the timeout of run.wait, and
        // the state poll is cheap (the command packet's state word). The sleep grows from 20 us to
        // 1 ms so short layers are not delayed and long ones do not spin.
        std::chrono::microseconds pause(20);
        ert_cmd_state state = run_.state();
        while (!finished(state) && Clock::now() < deadline) {
            lock.unlock();
            std::this_thread::sleep_for(pause);
            pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(1));
            lock.lock();
            state = run_.state();
        }
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
        if (state == ERT_CMD_STATE_COMPLETED) {
            finish_run();
            ++completed_;
            CommandStats stats;
            stats.layer = command_.layer;
            stats.milliseconds = ms;
            return stats;  // XRT has no AXI traffic counters: the byte and burst counts stay 0
        }
        const std::string what = finished(state)
                                     ? std::string("ended in state ERT_CMD_STATE_") + state_name(state)
                                     : "did not finish within " + std::to_string(timeout.count()) +
                                           " ms (state ERT_CMD_STATE_" + state_name(state) + ")";
        const std::string aborted = abort_run();
        throw DeviceError(
            context() + ": " + command_.description + " (layer " + std::to_string(command_.layer) + ") " +
            what + "; " + aborted +
            ". The device accepts the next command; if this repeats, check the kernel build against the "
            "plan (fpgacnn-plan), dmesg and xbutil examine, or allow more time");
    }

    DeviceTelemetry telemetry() const override {
        DeviceTelemetry t;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            t.busy = busy_;
            t.control_register = busy_ ? 0u : kernel::regs::kApIdle;  // XRT does not expose ap_ctrl
            t.commands_completed = completed_;
        }
        t.power_watts = card_->power_watts();
        t.temperature_celsius = card_->temperature_celsius();
        return t;
    }

    std::string bank_of(const DeviceBuffer& buffer) const {
        std::lock_guard<std::mutex> lock(mutex_);
        return card_->bank_name(static_cast<int>(own(buffer, context())->bo.get_memory_group()));
    }

    /// "xrt:0 (device name), xclbin <path> (uuid ...), kernel fpgacnn_accel[:cu]" for messages.
    std::string context() const {
        std::string kernel = card_->kernel_name();
        if (spec_.compute_unit) kernel += ":" + card_->compute_units()[*spec_.compute_unit];
        return xrt_spec_text(spec_) + " (" + card_->device_name() + "), xclbin " + card_->xclbin_path() +
               " (uuid " + card_->uuid_text() + "), kernel " + kernel;
    }

private:
    std::shared_ptr<XrtMemory> own(const DeviceBuffer& buffer, const std::string& who) const {
        return owned_memory<XrtMemory>(buffer, token_, who, context());
    }

    /// The run is over: the device no longer holds its buffers.
    void finish_run() {
        busy_ = false;
        arena_.reset();
        params_.reset();
    }

    /// The buffer for the params port. The identify command reads no parameters, and callers pass
    /// their feature-map scratch buffer there; a small buffer in the params bank keeps XRT from
    /// copying a buffer from the wrong bank.
    const xrt::bo& parameter_port_buffer(const kernel::LayerCommand& c, const XrtMemory& params) {
        if (c.op != kernel::kOpIdentify || params.group == param_group_) return params.bo;
        if (!identify_params_) {
            identify_params_ = xrt::bo(card_->device(), 64, xrt::bo::flags::normal,
                                       static_cast<xrt::memory_group>(param_group_));
        }
        return identify_params_;
    }

    /// Aborts the running command (XRT's abort returns once the scheduler has retired it) and makes a
    /// fresh run object for the next command. Returns what happened, for the error message.
    std::string abort_run() {
        finish_run();
        std::string result;
        try {
            const ert_cmd_state after = run_.abort();
            result = std::string("aborted the run (now ERT_CMD_STATE_") + state_name(after) + ")";
        } catch (const std::exception& e) {
            result = std::string("aborting the run failed (XRT: ") + e.what() + ")";
        }
        try {
            run_ = xrt::run(kernel_);
        } catch (const std::exception& e) {
            result += std::string("; a new run could not be made (XRT: ") + e.what() + ")";
        }
        return result;
    }

    std::shared_ptr<XrtCard> card_;
    XrtSpec spec_;
    xrt::kernel kernel_;
    xrt::run run_;
    xrt::bo identify_params_;
    int fm_group_ = 0;
    int param_group_ = 0;
    KernelFingerprint fingerprint_;
    const std::shared_ptr<const void> token_ = std::make_shared<int>(0);  // marks this device's buffers
    mutable std::mutex mutex_;
    bool busy_ = false;
    DeviceCommand command_;
    // The running command's buffers, held until it is waited for or aborted.
    std::shared_ptr<XrtMemory> arena_;
    std::shared_ptr<XrtMemory> params_;
    Clock::time_point started_;
    std::uint64_t completed_ = 0;
};

}  // namespace

std::unique_ptr<Device> open_xrt_device(const std::string& spec_text) {
    const XrtSpec spec = parse_xrt_spec(spec_text);
    std::shared_ptr<XrtCard> card = XrtCard::open(spec);
    if (spec.compute_unit && *spec.compute_unit >= static_cast<int>(card->compute_units().size())) {
        throw DeviceError(spec_text + ": the xclbin " + card->xclbin_path() + " has " +
                          std::to_string(card->compute_units().size()) + " compute unit(s) of " +
                          card->kernel_name() + "; use /cu0 ... /cu" +
                          std::to_string(card->compute_units().size() - 1));
    }
    if (const auto& meta = card->metadata_fingerprint()) require_compatible_kernel(*meta, spec_text);
    auto device = std::make_unique<XrtDevice>(card, spec);
    device->identify_kernel();
    return device;
}

std::string xrt_buffer_bank(const Device& device, const DeviceBuffer& buffer) {
    const auto* xrt_device = dynamic_cast<const XrtDevice*>(&device);
    if (!xrt_device) throw Error(device.name() + " is not an XRT device");
    return xrt_device->bank_of(buffer);
}

std::vector<std::string> xrt_compute_unit_specs(const std::string& spec_text) {
    XrtSpec spec = parse_xrt_spec(spec_text);
    const xrt_driver::XclbinFacts facts = xrt_driver::read_xclbin_facts(spec);
    std::vector<std::string> specs;
    for (std::size_t k = 0; k < facts.compute_units.size(); ++k) {
        spec.compute_unit = static_cast<int>(k);
        specs.push_back(xrt_spec_text(spec));
    }
    return specs;
}

}  // namespace fpgacnn
