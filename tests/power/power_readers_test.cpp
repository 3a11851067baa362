// The power readers on fake sysfs trees (an injectable root) and on a device without sensors.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "fpgacnn/device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/power.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::test {
namespace {

// Written aside and renamed into place, as the kernel updates a sysfs file: at once. A sampler
// thread reading while a test rewrites a counter saw the truncated, empty file otherwise
// ("energy_uj: not a number: ''", once in a clean-clone run).
void write_file(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    const fs::path aside = path.string() + ".writing";
    std::ofstream(aside) << text << "\n";
    fs::rename(aside, path);
}

fs::path fresh_root(const std::string& name) { return fs::path(scratch_dir("power_" + name)); }

TEST(PowerReaders, HwmonIna226MicrowattsSumOverRails) {
    const fs::path root = fresh_root("ina226");
    const fs::path hwmon = root / "sys/class/hwmon";
    write_file(hwmon / "hwmon0/name", "coretemp");
    write_file(hwmon / "hwmon0/temp1_input", "41000");
    write_file(hwmon / "hwmon1/name", "ina226");
    write_file(hwmon / "hwmon1/power1_input", "2500000");  // 2.5 W
    write_file(hwmon / "hwmon1/power1_label", "VCCINT");
    write_file(hwmon / "hwmon2/name", "ina226");
    write_file(hwmon / "hwmon2/power1_input", "750000");  // 0.75 W
    PowerSource source = find_hwmon_power(root.string());
    ASSERT_EQ(source.sensors.size(), 2u) << source.unavailable;
    EXPECT_EQ(source.sensors[0]->name(), "hwmon1 ina226 power1 (VCCINT)");
    EXPECT_EQ(source.sensors[0]->quantity(), PowerQuantity::Watts);
    EXPECT_DOUBLE_EQ(source.sensors[0]->read(), 2.5);
    EXPECT_DOUBLE_EQ(source.sensors[1]->read(), 0.75);

    PowerSampler sampler(std::move(source), std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    const PowerReport report = sampler.stop();
    ASSERT_TRUE(report.available) << report.reason;
    EXPECT_GE(report.samples, 2);
    EXPECT_NEAR(report.average_watts, 3.25, 1e-9);
    EXPECT_NEAR(report.peak_watts, 3.25, 1e-9);
    EXPECT_NEAR(report.joules, 3.25 * report.seconds, 1e-9);
    EXPECT_NE(report.source.find("hwmon1 ina226"), std::string::npos);
}

TEST(PowerReaders, Ina3221WithoutPowerFilesMultipliesVoltageAndCurrent) {
    const fs::path root = fresh_root("ina3221");
    const fs::path chip = root / "sys/class/hwmon/hwmon3";
    write_file(chip / "name", "ina3221");
    write_file(chip / "in1_input", "5000");   // 5 V bus
    write_file(chip / "curr1_input", "400");  // 0.4 A -> 2 W
    write_file(chip / "in1_label", "VDD_IN");
    write_file(chip / "in2_input", "1000");
    write_file(chip / "curr2_input", "1500");  // 1.5 W
    write_file(chip / "in4_input", "12");      // a shunt voltage: no current of its own, ignored
    PowerSource source = find_hwmon_power(root.string());
    ASSERT_EQ(source.sensors.size(), 2u) << source.unavailable;
    EXPECT_EQ(source.sensors[0]->name(), "hwmon3 ina3221 in1*curr1 (VDD_IN)");
    EXPECT_DOUBLE_EQ(source.sensors[0]->read(), 2.0);
    EXPECT_DOUBLE_EQ(source.sensors[1]->read(), 1.5);
}

TEST(PowerReaders, HwmonWithoutRailsSaysWhichChipsItFound) {
    const fs::path root = fresh_root("no_rails");
    write_file(root / "sys/class/hwmon/hwmon0/name", "k10temp");
    write_file(root / "sys/class/hwmon/hwmon0/temp1_input", "50000");
    const PowerSource source = find_hwmon_power(root.string());
    EXPECT_TRUE(source.sensors.empty());
    EXPECT_NE(source.unavailable.find("k10temp"), std::string::npos) << source.unavailable;
    EXPECT_NE(find_hwmon_power((root / "nowhere").string()).unavailable.find("does not exist"),
              std::string::npos);
}

TEST(PowerReaders, PowercapEnergyUnfoldsTheWrapAround) {
    const fs::path root = fresh_root("rapl");
    const fs::path zone = root / "sys/class/powercap/intel-rapl:0";
    write_file(zone / "name", "package-0");
    write_file(zone / "max_energy_range_uj", "1000000");  // wraps every joule
    write_file(zone / "energy_uj", "900000");
    write_file(root / "sys/class/powercap/intel-rapl:0:0/name", "core");  // inside the package: skipped
    write_file(root / "sys/class/powercap/intel-rapl:0:0/energy_uj", "1");
    PowerSource source = find_powercap_energy(root.string());
    ASSERT_EQ(source.sensors.size(), 1u) << source.unavailable;
    PowerSensor& sensor = *source.sensors[0];
    EXPECT_EQ(sensor.name(), "powercap intel-rapl:0 package-0");
    EXPECT_EQ(sensor.quantity(), PowerQuantity::Joules);
    const double start = sensor.read();
    write_file(zone / "energy_uj", "950000");
    EXPECT_NEAR(sensor.read() - start, 0.05, 1e-9);
    write_file(zone / "energy_uj", "150000");  // wrapped: 0.05 J to the top, then 0.15 J
    EXPECT_NEAR(sensor.read() - start, 0.25, 1e-9);
}

TEST(PowerReaders, PowercapPsysZoneIsUsedAlone) {
    const fs::path root = fresh_root("psys");
    for (const char* zone : {"intel-rapl:0", "intel-rapl:1"}) {
        const fs::path dir = root / "sys/class/powercap" / zone;
        write_file(dir / "name", std::string(zone) == "intel-rapl:1" ? "psys" : "package-0");
        write_file(dir / "max_energy_range_uj", "262143328850");
        write_file(dir / "energy_uj", "10");
    }
    const PowerSource source = find_powercap_energy(root.string());
    ASSERT_EQ(source.sensors.size(), 1u);
    EXPECT_EQ(source.sensors[0]->name(), "powercap intel-rapl:1 psys");
}

TEST(PowerReaders, UnreadableEnergyCounterSaysNeedsRoot) {
    if (::geteuid() == 0) GTEST_SKIP() << "root reads every file regardless of its mode";
    const fs::path root = fresh_root("root_only");
    const fs::path zone = root / "sys/class/powercap/intel-rapl:0";
    write_file(zone / "name", "package-0");
    write_file(zone / "max_energy_range_uj", "1000000");
    write_file(zone / "energy_uj", "5");
    ::chmod((zone / "energy_uj").c_str(), 0400 & ~S_IRUSR);
    const PowerSource source = find_powercap_energy(root.string());
    EXPECT_TRUE(source.sensors.empty());
    EXPECT_NE(source.unavailable.find("needs root"), std::string::npos) << source.unavailable;
    EXPECT_NE(source.unavailable.find("energy_uj"), std::string::npos) << source.unavailable;
}

// As root, a file can still fail to read (a directory where a number should be): the reason is kept.
TEST(PowerReaders, UnreadableRailGivesTheReason) {
    const fs::path root = fresh_root("bad_rail");
    const fs::path chip = root / "sys/class/hwmon/hwmon0";
    write_file(chip / "name", "ina226");
    fs::create_directories(chip / "power1_input");
    const PowerSource source = find_hwmon_power(root.string());
    EXPECT_TRUE(source.sensors.empty());
    EXPECT_NE(source.unavailable.find("power1_input"), std::string::npos) << source.unavailable;
}

TEST(PowerReaders, SamplerDifferencesEnergyCounters) {
    const fs::path root = fresh_root("rapl_sampler");
    const fs::path zone = root / "sys/class/powercap/intel-rapl:0";
    write_file(zone / "name", "package-0");
    write_file(zone / "max_energy_range_uj", "1000000000");
    write_file(zone / "energy_uj", "1000");
    PowerSampler sampler(find_powercap_energy(root.string()), std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    write_file(zone / "energy_uj", "2001000");  // +2 J
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const PowerReport report = sampler.stop();
    ASSERT_TRUE(report.available) << report.reason;
    EXPECT_NEAR(report.joules, 2.0, 1e-9);
    EXPECT_NEAR(report.average_watts, 2.0 / report.seconds, 1e-6);
    EXPECT_GE(report.peak_watts, report.average_watts);
}

TEST(PowerReaders, CurrentGivesTheRunningTotalsWhileSamplingGoesOn) {
    const fs::path root = fresh_root("running");
    write_file(root / "sys/class/hwmon/hwmon0/name", "ina260");
    write_file(root / "sys/class/hwmon/hwmon0/power1_input", "3000000");  // 3 W
    PowerMonitor monitor(nullptr, root.string(), std::chrono::milliseconds(5));
    PowerReport running;
    // Bounded wait for a few samples (the sampler thread runs on its own).
    for (int i = 0; i < 400 && running.samples < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        running = monitor.current();
    }
    ASSERT_TRUE(running.available) << running.reason;
    EXPECT_GE(running.samples, 3);
    EXPECT_NEAR(running.latest_watts, 3.0, 1e-9);
    EXPECT_NEAR(running.average_watts, 3.0, 1e-9);
    EXPECT_NEAR(running.joules, 3.0 * running.seconds, 1e-9);
    const PowerReport final_report = monitor.stop();
    EXPECT_GE(final_report.samples, running.samples);
    EXPECT_EQ(monitor.current().samples, final_report.samples);  // after stop: stop()'s report
}

TEST(PowerReaders, CurrentOfAMonitorWithoutSourceSaysWhy) {
    const PowerMonitor monitor(nullptr, fresh_root("none").string(), std::chrono::milliseconds(5));
    const PowerReport report = monitor.current();
    EXPECT_FALSE(report.available);
    EXPECT_NE(report.reason.find("hwmon:"), std::string::npos) << report.reason;
}

TEST(PowerReaders, DeviceWithoutSensorIsNotAvailable) {
    const std::unique_ptr<Device> device = open_device("emu");
    const PowerSource source = find_device_power(device.get());
    EXPECT_TRUE(source.sensors.empty());
    EXPECT_NE(source.unavailable.find("reports no power sensor"), std::string::npos) << source.unavailable;
    EXPECT_NE(find_device_power(nullptr).unavailable.find("no accelerator"), std::string::npos);
}

TEST(PowerReaders, MonitorExplainsEverySourceWhenNoneCanBeRead) {
    const fs::path root = fresh_root("empty_machine");
    PowerMonitor monitor(nullptr, root.string(), std::chrono::milliseconds(5));
    const PowerReport report = monitor.stop();
    EXPECT_FALSE(report.available);
    for (const char* source : {"device:", "hwmon:", "powercap:"})
        EXPECT_NE(report.reason.find(source), std::string::npos) << report.reason;
}

TEST(PowerReaders, MonitorPrefersHwmonOverPowercap) {
    const fs::path root = fresh_root("both");
    write_file(root / "sys/class/hwmon/hwmon0/name", "ina226");
    write_file(root / "sys/class/hwmon/hwmon0/power1_input", "1000000");
    write_file(root / "sys/class/powercap/intel-rapl:0/name", "package-0");
    write_file(root / "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "100");
    write_file(root / "sys/class/powercap/intel-rapl:0/energy_uj", "1");
    PowerMonitor monitor(nullptr, root.string(), std::chrono::milliseconds(5));
    const PowerReport report = monitor.stop();
    ASSERT_TRUE(report.available) << report.reason;
    EXPECT_NEAR(report.average_watts, 1.0, 1e-9);
    EXPECT_EQ(report.source.rfind("hwmon:", 0), 0u) << report.source;
}

}  // namespace
}  // namespace fpgacnn::test
