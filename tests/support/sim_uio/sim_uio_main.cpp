// fpgacnn-sim-uio: the simulated UIO IP (sim_uio.hpp) as a process, so that fpgacnn-detect can run
// against it with FPGACNN_UIO_ROOT=<root>. Builds the tree, writes <root>/ready, serves until
// SIGTERM or SIGINT.
#include <csignal>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "sim_uio.hpp"

int main(int argc, char** argv) {
    CLI::App app{"fpgacnn-sim-uio: a simulated fpgacnn IP behind UIO + u-dma-buf (tests, docs)"};
    fpgacnn::test::SimUioOptions options;
    std::string fault = "none";
    std::size_t udmabuf_mib = options.udmabuf_bytes >> 20;
    std::size_t cma_free_mib = options.cma_free_bytes >> 20;
    bool no_interrupt = false;
    app.add_option("--root", options.root, "folder to build sys/, dev/ and proc/ in")->required();
    app.add_option("--name", options.name, "the UIO device name")->capture_default_str();
    app.add_option("--udmabuf-mib", udmabuf_mib, "u-dma-buf size in MiB (0: none)")->capture_default_str();
    app.add_option("--cma-free-mib", cma_free_mib, "CmaFree in proc/meminfo")->capture_default_str();
    app.add_flag("--no-interrupt", no_interrupt, "no interrupt FIFOs: the driver must poll");
    app.add_option("--fault", fault,
                   "none | never-finish | wrong-status | wrong-fingerprint | small-tiles | not-fpgacnn")
        ->capture_default_str();
    app.add_option("--fault-from", options.fault_from_command, "first command the fault hits (0 = identify)");
    app.add_option("--fault-count", options.fault_commands, "commands it hits (-1 = all)");
    CLI11_PARSE(app, argc, argv);
    options.udmabuf_bytes = udmabuf_mib << 20;
    options.cma_free_bytes = cma_free_mib << 20;
    options.interrupt = !no_interrupt;
    try {
        options.fault = fpgacnn::test::parse_sim_fault(fault);
        sigset_t signals;
        sigemptyset(&signals);
        sigaddset(&signals, SIGTERM);
        sigaddset(&signals, SIGINT);
        pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before the IP thread starts: it inherits the mask
        fpgacnn::test::SimUio sim(options);
        std::ofstream(options.root + "/ready") << "ready\n";
        int signal = 0;
        sigwait(&signals, &signal);
        std::cerr << "fpgacnn-sim-uio: " << sim.commands_completed() << " commands, "
                  << sim.interrupts_raised() << " interrupts\n";
    } catch (const std::exception& e) {
        std::cerr << "fpgacnn-sim-uio: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
