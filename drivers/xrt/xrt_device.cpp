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
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

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

struct ByteRange {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

std::atomic<int> next_buffer_id_{1};

ByteRange elements(std::uint64_t offset, std::uint64_t count) { return {2 * offset, 2 * (offset + count)}; }

class XrtDevice final : public Device {
public:
    XrtDevice(std::shared_ptr<XrtCard> card, const XrtSpec& spec) : card_(std::move(card)), spec_(spec) {
        const std::string& name = card_->kernel_name();
        std::string handle_name = name;
        if (spec.compute_unit) handle_name += ":{" + card_->compute_units()[*spec.compute_unit] + "}";
        kernel_ = card_->open_kernel(handle_name);
        fm_group_ = kernel_.group_id(kXrtFmReadArgument);
        param_group_ = kernel_.group_id(kXrtParamsArgument);
        if (kernel_.group_id(kXrtFmWriteArgument) != fm_group_) {
            throw Error(
                context() + ": fm_read and fm_write are wired to different memory banks (" +
                card_->bank_name(fm_group_) + ", " + card_->bank_name(kernel_.group_id(kXrtFmWriteArgument)) +
                "); both ports read and write the one feature-map arena, so link them to the same bank "
                "(kernels/hls/vitis/*.cfg)");
        }
        run_ = xrt::run(kernel_);
        fingerprint_ = card_->metadata_fingerprint().value_or(KernelFingerprint{});
    }

    /// The identify command where the device really executes (not on XRT's no-op device): the
    /// kernel's own fingerprint must equal the xclbin's metadata (or stands in for missing metadata).
    void identify_kernel() {
        if (!card_->executes()) {
            if (!card_->metadata_fingerprint()) {
                throw Error(context() +
                            ": the xclbin has no fpgacnn fingerprint (USER_METADATA section) and "
                            "XRT's no-op device cannot run the identify command; rebuild the xclbin with "
                            "kernels/hls/vitis/Makefile");
            }
            return;
        }
        const KernelFingerprint answer = read_fingerprint(*this, std::chrono::seconds(2));
        if (const auto& meta = card_->metadata_fingerprint()) {
            if (fingerprint_metadata(answer) != fingerprint_metadata(*meta)) {
                throw Error(context() + ": the xclbin's metadata says " + meta->text() +
                            " but the kernel answers " + answer.text() +
                            "; the xclbin's metadata is stale, rebuild it with kernels/hls/vitis/Makefile");
            }
        }
        require_compatible_kernel(answer, name());
        fingerprint_ = answer;
    }

    ~XrtDevice() override {
        if (busy_) abort_run();
        buffers_.clear();  // before the kernel and card go
    }

    std::string name() const override {
        return xrt_spec_text(spec_) + " (" + card_->device_name() + ", " + tile_text(fingerprint_.maxima) +
               ")";
    }

    KernelMaxima maxima() const override { return fingerprint_.maxima; }
    KernelFingerprint fingerprint() const override { return fingerprint_; }

    DeviceBuffer allocate(std::size_t bytes, BufferRole role, const std::string& purpose) override {
        const int group = role == BufferRole::Parameters ? param_group_ : fm_group_;
        std::lock_guard<std::mutex> lock(mutex_);
        Buffer b;
        try {
            b.bo = xrt::bo(card_->device(), std::max<std::size_t>(bytes, 1), xrt::bo::flags::normal,
                           static_cast<xrt::memory_group>(group));
            b.info.host = b.bo.map();
        } catch (const std::exception& e) {
            throw Error(context() + ": cannot allocate " + std::to_string(bytes) + " bytes for '" + purpose +
                        "' in memory bank " + card_->bank_name(group) + " (XRT: " + e.what() +
                        "); the bank is full or smaller than the plan needs: free other buffers, close other "
                        "programs using the card, or plan a smaller network");
        }
        b.info.id = next_buffer_id_++;  // unique in the process: a buffer of another device is refused
        b.info.device_address = b.bo.address();
        b.info.bytes = bytes;
        b.info.purpose = purpose;
        b.group = group;
        DeviceBuffer info = b.info;
        buffers_.emplace(info.id, std::move(b));
        return info;
    }

    void free_buffer(const DeviceBuffer& buffer) override {
        std::lock_guard<std::mutex> lock(mutex_);
        get(buffer, "free_buffer");
        if (busy_ && (buffer.id == arena_id_ || buffer.id == params_id_)) {
            throw Error(context() + ": free_buffer: '" + buffer.purpose + "' is in use by " +
                        command_.description + "; wait() for it first");
        }
        buffers_.erase(buffer.id);
    }

    void sync(const DeviceBuffer& buffer, SyncDirection direction, std::size_t offset,
              std::size_t bytes) override {
        std::lock_guard<std::mutex> lock(mutex_);
        Buffer& b = get(buffer, "sync");
        if (offset > b.info.bytes || bytes > b.info.bytes - offset) {
            throw Error(context() + ": sync of bytes [" + std::to_string(offset) + ", " +
                        std::to_string(offset + bytes) + ") of '" + b.info.purpose + "', which has " +
                        std::to_string(b.info.bytes) + " bytes");
        }
        if (busy_ && buffer.id == arena_id_) {
            throw Error(context() + ": sync of '" + b.info.purpose + "' while " + command_.description +
                        " is running; wait() for the command first");
        }
        if (bytes == 0) return;
        try {
            b.bo.sync(
                direction == SyncDirection::ToDevice ? XCL_BO_SYNC_BO_TO_DEVICE : XCL_BO_SYNC_BO_FROM_DEVICE,
                bytes, offset);
        } catch (const std::exception& e) {
            throw Error(context() + ": sync of '" + b.info.purpose + "' failed (XRT: " + e.what() +
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
        Buffer& a = get(arena, who);
        Buffer& p = get(parameters, who);
        check(who, command.command, a, p);
        std::uint32_t words[kernel::kCommandWords];
        kernel::regs::command_words(command.command, words);
        try {
            for (int i = 0; i < kernel::kCommandWords; ++i) run_.set_arg(i, words[i]);
            run_.set_arg(kXrtFmReadArgument, a.bo);
            run_.set_arg(kXrtFmWriteArgument, a.bo);
            run_.set_arg(kXrtParamsArgument, parameter_port_buffer(command.command, p));
            run_.start();
        } catch (const std::exception& e) {
            run_ = xrt::run(kernel_);  // a half-set run must not be reused
            throw Error(who + ": XRT refused to start the run (" + e.what() +
                        "); check xbutil examine for the card");
        }
        busy_ = true;
        command_ = command;
        arena_id_ = arena.id;
        params_id_ = parameters.id;
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
            busy_ = false;
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
        throw Error(
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
        const auto it = buffers_.find(buffer.id);
        if (it == buffers_.end())
            throw Error(context() + ": buffer '" + buffer.purpose + "' is not one of its buffers");
        return card_->bank_name(static_cast<int>(it->second.bo.get_memory_group()));
    }

    /// "xrt:0 (device name), xclbin <path> (uuid ...), kernel fpgacnn_accel[:cu]" for messages.
    std::string context() const {
        std::string kernel = card_->kernel_name();
        if (spec_.compute_unit) kernel += ":" + card_->compute_units()[*spec_.compute_unit];
        return xrt_spec_text(spec_) + " (" + card_->device_name() + "), xclbin " + card_->xclbin_path() +
               " (uuid " + card_->uuid_text() + "), kernel " + kernel;
    }

private:
    struct Buffer {
        xrt::bo bo;
        DeviceBuffer info;
        int group = 0;
    };

    Buffer& get(const DeviceBuffer& buffer, const std::string& who) {
        const auto it = buffers_.find(buffer.id);
        if (it == buffers_.end()) {
            throw Error(who + ": buffer '" + buffer.purpose + "' (id " + std::to_string(buffer.id) +
                        ") does not belong to " + context() + " or was freed");
        }
        return it->second;
    }

    /// What the kernel would reject or what would read / write outside the buffers.
    void check(const std::string& who, const kernel::LayerCommand& c, const Buffer& arena,
               const Buffer& params) const {
        const kernel::CommandCheck verdict = kernel::check_command(c);
        if (verdict != kernel::kCommandOk) {
            throw Error(who + ": the kernel rejects the command: " + kernel::command_check_text(verdict) +
                        " (plan the network for this device's maxima)");
        }
        auto inside = [&](const Buffer& b, ByteRange r, const char* what) {
            if (r.end > b.info.bytes) {
                throw Error(who + ": " + what + " bytes [" + std::to_string(r.begin) + ", " +
                            std::to_string(r.end) + ") but '" + b.info.purpose + "' has " +
                            std::to_string(b.info.bytes) + " bytes; the plan does not match the buffer");
            }
        };
        if (c.op == kernel::kOpIdentify) {
            inside(arena, elements(c.output_offset, kernel::kFingerprintWords), "writes the fingerprint to");
            return;
        }
        inside(arena, elements(c.input_offset, std::uint64_t{c.in_c} * c.in_h * c.in_w),
               "reads its input from");
        inside(arena, elements(c.output_offset, std::uint64_t{c.out_c} * c.out_h * c.out_w),
               "writes its output to");
        if (c.op != kernel::kOpConv) return;
        const auto tm = static_cast<std::uint32_t>(fingerprint_.maxima.tm);
        const auto tn = static_cast<std::uint32_t>(fingerprint_.maxima.tn);
        inside(params,
               elements(c.weight_offset,
                        kernel::reordered_weight_elements(c.out_c, c.in_c, c.kernel_size, tm, tn)),
               "reads its weights from");
        inside(params, elements(c.bias_offset, kernel::padded_bias_elements(c.out_c, tm)),
               "reads its biases from");
    }

    /// The buffer for the params port. The identify command reads no parameters, and callers pass
    /// their feature-map scratch buffer there; a small buffer in the params bank keeps XRT from
    /// copying a buffer from the wrong bank.
    const xrt::bo& parameter_port_buffer(const kernel::LayerCommand& c, const Buffer& params) {
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
        busy_ = false;
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
    mutable std::mutex mutex_;
    std::map<int, Buffer> buffers_;
    bool busy_ = false;
    DeviceCommand command_;
    int arena_id_ = -1;
    int params_id_ = -1;
    Clock::time_point started_;
    std::uint64_t completed_ = 0;
};

}  // namespace

std::unique_ptr<Device> open_xrt_device(const std::string& spec_text) {
    const XrtSpec spec = parse_xrt_spec(spec_text);
    std::shared_ptr<XrtCard> card = XrtCard::open(spec);
    if (spec.compute_unit && *spec.compute_unit >= static_cast<int>(card->compute_units().size())) {
        throw Error(spec_text + ": the xclbin " + card->xclbin_path() + " has " +
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
