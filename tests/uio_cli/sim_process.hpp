// The CLI tests' simulated IP in another process, as on a board: fpgacnn-sim-uio (the path the build
// gives as FPGACNN_SIM_UIO_TOOL) serving a UIO tree under `root`.
#pragma once

#include <string>
#include <vector>

namespace fpgacnn::test {

/// fpgacnn-sim-uio running in the background until destroyed (SIGTERM), its tree under `root`.
class SimProcess {
public:
    SimProcess(const std::string& root, const std::vector<std::string>& arguments);
    ~SimProcess();
    SimProcess(const SimProcess&) = delete;
    SimProcess& operator=(const SimProcess&) = delete;

private:
    int pid_ = -1;
};

}  // namespace fpgacnn::test
