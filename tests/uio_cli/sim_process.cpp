#include "sim_process.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

extern char** environ;

namespace fpgacnn::test {

SimProcess::SimProcess(const std::string& root, const std::vector<std::string>& arguments) {
    std::vector<std::string> words = {FPGACNN_SIM_UIO_TOOL, "--root", root};
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
        ADD_FAILURE() << "cannot start " << FPGACNN_SIM_UIO_TOOL;
        pid_ = -1;
        return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::filesystem::exists(root + "/ready")) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            ADD_FAILURE() << "fpgacnn-sim-uio exited early (status " << status << ")";
            pid_ = -1;
            return;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "fpgacnn-sim-uio did not get ready within 20 s";
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

SimProcess::~SimProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
}

}  // namespace fpgacnn::test
