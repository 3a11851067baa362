#include "sim_uio.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"
#include "fpgacnn/kernel/register_map.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::test {

namespace {

namespace regs = kernel::regs;

void write_file(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path);
    out << text << "\n";
    if (!out) throw std::runtime_error("sim_uio: cannot write " + path.string());
}

std::string hex(std::uint64_t value, int digits) {
    std::ostringstream text;
    text << "0x";
    text.width(digits);
    text.fill('0');
    text << std::hex << value;
    return text.str();
}

/// A file of `bytes` zero bytes mapped shared (the other side maps the same file).
void* map_file(const fs::path& path, std::size_t bytes) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        throw std::runtime_error("sim_uio: cannot create " + path.string() + ": " + std::strerror(errno));
    }
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (base == MAP_FAILED) throw std::runtime_error("sim_uio: cannot map " + path.string());
    return base;
}

int open_fifo(const fs::path& path) {
    ::unlink(path.c_str());
    if (::mkfifo(path.c_str(), 0666) != 0) throw std::runtime_error("sim_uio: mkfifo " + path.string());
    // Read-write: the IP end never blocks on open and never sees EPIPE while the driver is away.
    const int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("sim_uio: cannot open " + path.string());
    return fd;
}

}  // namespace

SimFault parse_sim_fault(const std::string& text) {
    if (text == "none") return SimFault::None;
    if (text == "never-finish") return SimFault::NeverFinish;
    if (text == "wrong-status") return SimFault::WrongStatus;
    if (text == "wrong-fingerprint") return SimFault::WrongFingerprint;
    if (text == "small-tiles") return SimFault::SmallTiles;
    if (text == "not-fpgacnn") return SimFault::NotFpgacnn;
    throw std::runtime_error(
        "unknown fault '" + text +
        "' (none, never-finish, wrong-status, wrong-fingerprint, small-tiles, not-fpgacnn)");
}

SimUio::SimUio(SimUioOptions options)
    : options_(std::move(options)),
      fault_(options_.fault),
      fault_from_(options_.fault_from_command),
      fault_left_(options_.fault_commands) {
    build_tree();
    thread_ = std::thread([this] { ip_loop(); });
}

SimUio::~SimUio() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (irq_fd_ >= 0) ::close(irq_fd_);
    if (rearm_fd_ >= 0) ::close(rearm_fd_);
    ::munmap(registers_, options_.register_bytes);
    if (dma_ != nullptr) ::munmap(dma_, options_.udmabuf_bytes);
}

void SimUio::build_tree() {
    const fs::path root(options_.root);
    const std::string node = "uio" + std::to_string(options_.uio_index);
    sys_dir_ = (root / "sys/class/uio" / node).string();
    dev_path_ = (root / "dev" / node).string();
    write_file(fs::path(sys_dir_) / "name", options_.name);
    write_file(fs::path(sys_dir_) / "version", "devicetree");
    write_file(fs::path(sys_dir_) / "maps/map0/addr", hex(0x43C00000, 8));
    write_file(fs::path(sys_dir_) / "maps/map0/size", hex(options_.register_bytes, 8));
    write_file(fs::path(sys_dir_) / "maps/map0/offset", "0x0");
    write_file(fs::path(sys_dir_) / "maps/map0/name", options_.name + "@43c00000");
    fs::create_directories(root / "dev");
    registers_ = static_cast<std::uint32_t*>(map_file(dev_path_, options_.register_bytes));
    set_reg(regs::kControl, regs::kApIdle);
    if (options_.interrupt) {
        irq_fd_ = open_fifo(dev_path_ + ".irq");
        rearm_fd_ = open_fifo(dev_path_ + ".rearm");
    }
    if (options_.udmabuf_bytes > 0) {
        const fs::path sys = root / "sys/class/u-dma-buf/udmabuf0";
        write_file(sys / "phys_addr", hex(options_.phys_addr, 8));
        write_file(sys / "size", std::to_string(options_.udmabuf_bytes));
        for (const char* attribute : {"sync_offset", "sync_size", "sync_direction", "sync_for_cpu",
                                      "sync_for_device", "sync_mode", "sync_owner", "dma_coherent"})
            write_file(sys / attribute, "0");
        dma_ = static_cast<std::uint8_t*>(map_file(root / "dev/udmabuf0", options_.udmabuf_bytes));
    }
    write_file(
        root / "proc/meminfo",
        "MemTotal:         508000 kB\nCmaTotal:       " + std::to_string(options_.cma_total_bytes / 1024) +
            " kB\nCmaFree:        " + std::to_string(options_.cma_free_bytes / 1024) + " kB");
}

std::uint32_t SimUio::reg(std::uint32_t offset) const {
    return __atomic_load_n(registers_ + offset / 4, __ATOMIC_ACQUIRE);
}

void SimUio::set_reg(std::uint32_t offset, std::uint32_t value) {
    __atomic_store_n(registers_ + offset / 4, value, __ATOMIC_RELEASE);
}

void SimUio::set_fault(SimFault fault, int count) {
    std::lock_guard<std::mutex> lock(mutex_);
    fault_ = fault;
    fault_from_ = static_cast<int>(started_.load());
    fault_left_ = count;
}

void SimUio::release_stall() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stall_released_ = true;
    }
    cv_.notify_all();
}

void SimUio::disappear() {
    std::lock_guard<std::mutex> lock(mutex_);
    gone_ = true;
    std::error_code ignored;
    fs::remove_all(sys_dir_, ignored);
    fs::remove(dev_path_, ignored);
    fs::remove(dev_path_ + ".irq", ignored);
    fs::remove(dev_path_ + ".rearm", ignored);
    if (irq_fd_ >= 0) ::close(irq_fd_);  // the driver's read end sees POLLHUP
    if (rearm_fd_ >= 0) ::close(rearm_fd_);
    irq_fd_ = rearm_fd_ = -1;
}

SimFault SimUio::take_fault() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fault_ == SimFault::None || static_cast<int>(started_.load()) < fault_from_ || fault_left_ == 0)
        return SimFault::None;
    if (fault_left_ > 0) --fault_left_;
    return fault_;
}

/// What the host wrote since the last look: ISR clears (toggle-on-write on the IP; here the
/// register is a mailbox the IP empties) and re-arm writes to the interrupt.
void SimUio::process_host_writes() {
    status_ &= ~__atomic_exchange_n(registers_ + regs::kInterruptStatus / 4, 0u, __ATOMIC_ACQ_REL);
    std::uint32_t word = 0;
    while (rearm_fd_ >= 0 && ::read(rearm_fd_, &word, sizeof(word)) == static_cast<ssize_t>(sizeof(word))) {
        armed_ = word != 0;
    }
    // Level-triggered: a pending, enabled status bit fires as soon as the line is unmasked.
    const bool enabled = (reg(regs::kGlobalInterruptEnable) & 1u) != 0;
    if (armed_ && enabled && (status_ & reg(regs::kInterruptEnable)) != 0 && irq_fd_ >= 0) {
        ++interrupt_count_;
        if (::write(irq_fd_, &interrupt_count_, sizeof(interrupt_count_)) ==
            static_cast<ssize_t>(sizeof(std::uint32_t))) {
            armed_ = false;  // uio_pdrv_genirq masks the line in its handler
            ++interrupts_;
        }
    }
}

void SimUio::ip_loop() {
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (stop_) return;
            if (!gone_) process_host_writes();
        }
        bool gone = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            gone = gone_;
        }
        if (!gone && (reg(regs::kControl) & regs::kApStart) != 0) {
            // The writes before ap_start (ISR clear, re-arm) belong before this command.
            {
                std::lock_guard<std::mutex> lock(mutex_);
                process_host_writes();
            }
            const SimFault fault = take_fault();
            ++started_;
            set_reg(regs::kControl, 0);  // arguments latched: busy
            run_command(fault);
            continue;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

void SimUio::run_command(SimFault fault) {
    std::uint32_t words[kernel::kCommandWords];
    for (int i = 0; i < kernel::kCommandWords; ++i) words[i] = reg(regs::kCommandOffsets[i]);
    const kernel::LayerCommand command = regs::command_from_words(words);
    std::uint64_t address[regs::kPointerCount];
    for (int p = 0; p < regs::kPointerCount; ++p) {
        const std::uint32_t offset = regs::pointer_offset(static_cast<regs::Pointer>(p), options_.address64);
        address[p] = reg(offset) | (options_.address64 ? std::uint64_t{reg(offset + 4)} << 32 : 0);
    }
    if (fault == SimFault::NeverFinish) {
        std::unique_lock<std::mutex> lock(mutex_);
        stall_released_ = false;
        cv_.wait(lock, [&] { return stop_ || stall_released_; });
        if (stop_) return;
    }
    // Bus addresses to the u-dma-buf file; the driver's checks keep every access inside a buffer,
    // so only the bases need translating (anything else counts as a bus error and does nothing).
    const std::uint64_t begin = options_.phys_addr, end = options_.phys_addr + options_.udmabuf_bytes;
    bool inside = dma_ != nullptr;
    for (const std::uint64_t a : address) inside = inside && a >= begin && a < end && a % 2 == 0;
    // The native kernel derives its byte-wide ports from the word-wide ones (one arena): a driver that
    // gives them other addresses would make real hardware read elsewhere, so that is an error here.
    inside = inside && address[regs::kFm8Read] == address[regs::kFmRead] &&
             address[regs::kFm8Write] == address[regs::kFmWrite];
    if (!inside) {
        ++address_errors_;
    } else if (fault != SimFault::NotFpgacnn) {
        auto* fm = reinterpret_cast<std::int16_t*>(dma_ + (address[regs::kFmRead] - begin));
        auto* out = reinterpret_cast<std::int16_t*>(dma_ + (address[regs::kFmWrite] - begin));
        const auto* params = reinterpret_cast<const std::int16_t*>(dma_ + (address[regs::kParams] - begin));
        kernel::run_layer(command, fm, out, params, nullptr);
        if (command.op == kernel::kOpIdentify) {
            std::int16_t* fingerprint = out + command.output_offset;
            if (fault == SimFault::WrongFingerprint) fingerprint[kernel::kFpContract] = 99;
            if (fault == SimFault::SmallTiles) fingerprint[kernel::kFpTr] = fingerprint[kernel::kFpTc] = 8;
        }
    }
    ++completed_;
    std::lock_guard<std::mutex> lock(mutex_);
    set_reg(regs::kControl, fault == SimFault::WrongStatus ? regs::kApDone | regs::kApIdle | 0x100u
                                                           : regs::kApDone | regs::kApIdle | regs::kApReady);
    status_ |= regs::kInterruptDone;
    if (!gone_) process_host_writes();
}

}  // namespace fpgacnn::test
